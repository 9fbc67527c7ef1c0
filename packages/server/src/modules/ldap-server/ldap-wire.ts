import { createRequire } from 'node:module';

/**
 * The LDAP wire format, from ldapjs 3's parts (@ldapjs/messages, /controls, /filter, /dn, through
 * the `ldapjs` package that declares them): BER framing and decoding of requests, encoding of
 * responses. The server on top (ldap-server.ts) is ours: ldapjs's own Server cannot upgrade a
 * connection to TLS (StartTLS), routes by DN suffix with handler chains we would bypass, and
 * answers unimplemented operations by dropping the connection. @types/ldapjs describes ldapjs 2,
 * so the few shapes used here are declared below.
 */

export interface LdapDn {
  length: number;
  rdnAt(index: number): LdapRdn;
  toString(): string;
}
export interface LdapRdn {
  size: number;
  keys(): IterableIterator<string>;
  getValue(name: string): unknown;
}
export interface LdapControl {
  type: string;
  criticality: boolean;
  value?: unknown;
}
export interface LdapFilter {
  type: string;
  attribute: string;
  value?: unknown;
  /** Substring filters. */
  initial?: string;
  any?: string[];
  final?: string;
  /** And, Or. */
  clauses?: LdapFilter[];
  /** Not. */
  filter?: LdapFilter;
  matches(entry: Record<string, string[]>, strict?: boolean): boolean;
  toString(): string;
}
export interface LdapRequest {
  messageId: number;
  protocolOp: number;
  type: string;
  controls: LdapControl[];
  /** Bind. */
  name?: string;
  credentials?: string;
  authentication?: string;
  version?: number;
  /** Search. */
  baseObject?: LdapDn;
  scope?: number;
  sizeLimit?: number;
  typesOnly?: boolean;
  filter?: LdapFilter;
  attributes?: string[];
  /** Extended. */
  requestName?: string;
  requestValue?: unknown;
  /** Compare. */
  entry?: string | LdapDn;
  attribute?: string;
  value?: string;
}
interface Encodable {
  toBer(): { buffer: Buffer };
}
type Ctor<O> = new (options: O) => Encodable;
interface ResultOptions {
  messageId: number;
  status?: number;
  diagnosticMessage?: string;
  matchedDN?: string;
  controls?: unknown[];
}

const require = createRequire(import.meta.url);
const ldapjs = require('ldapjs') as Record<string, unknown>;
const dnModule = require('ldapjs').dn as { DN: { fromString(value: string): LdapDn } };

export const wire = {
  Parser: ldapjs.Parser as new (options: {
    log: unknown;
  }) => {
    write(data: Buffer): boolean;
    on(event: 'message', listener: (message: LdapRequest) => void): void;
    on(event: 'error', listener: (error: Error) => void): void;
  },
  BindResponse: ldapjs.BindResponse as Ctor<ResultOptions>,
  SearchResultEntry: ldapjs.SearchEntry as Ctor<{
    messageId: number;
    objectName: string;
    attributes: { type: string; values: string[] }[];
  }>,
  SearchResultDone: ldapjs.SearchResultDone as unknown as Ctor<ResultOptions>,
  ExtendedResponse: ldapjs.ExtendedResponse as Ctor<
    ResultOptions & { responseName?: string; responseValue?: string }
  >,
  CompareResponse: ldapjs.CompareResponse as Ctor<ResultOptions>,
  AddResponse: ldapjs.AddResponse as Ctor<ResultOptions>,
  DeleteResponse: ldapjs.DeleteResponse as Ctor<ResultOptions>,
  ModifyResponse: ldapjs.ModifyResponse as Ctor<ResultOptions>,
  ModifyDNResponse: ldapjs.ModifyDNResponse as Ctor<ResultOptions>,
  PagedResultsControl: ldapjs.PagedResultsControl as (new (options: {
    value: { size: number; cookie: Buffer };
  }) => LdapControl) & { OID: string },
  parseDn: (value: string): LdapDn => dnModule.DN.fromString(value),
};

// SearchResultDone is not re-exported by ldapjs's message list: take it from its package.
wire.SearchResultDone = (
  require('@ldapjs/messages') as { SearchResultDone: Ctor<ResultOptions> }
).SearchResultDone;

/** LDAP result codes (RFC 4511 appendix A) that this server answers. */
export const resultCode = {
  success: 0,
  operationsError: 1,
  protocolError: 2,
  sizeLimitExceeded: 4,
  compareFalse: 5,
  compareTrue: 6,
  authMethodNotSupported: 7,
  unavailableCriticalExtension: 12,
  noSuchAttribute: 16,
  noSuchObject: 32,
  invalidDnSyntax: 34,
  inappropriateAuthentication: 48,
  invalidCredentials: 49,
  insufficientAccessRights: 50,
  busy: 51,
  unwillingToPerform: 53,
} as const;

/** Protocol operation tags of requests (RFC 4511). */
export const operation = {
  bind: 0x60,
  unbind: 0x42,
  search: 0x63,
  modify: 0x66,
  add: 0x68,
  delete: 0x4a,
  modifyDn: 0x6c,
  compare: 0x6e,
  abandon: 0x50,
  extended: 0x77,
} as const;

export const STARTTLS_OID = '1.3.6.1.4.1.1466.20037';
export const WHOAMI_OID = '1.3.6.1.4.1.4203.1.11.3';
export const PAGED_RESULTS_OID = '1.2.840.113556.1.4.319';
