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
  /** `simple`, or `sasl` (read by `createMessageReader`: ldapjs cannot parse SASL binds). */
  authentication?: string;
  /** A SASL bind's mechanism. */
  mechanism?: string;
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

/** The largest LDAP message read (a request bigger than this ends the connection). */
export const MAX_MESSAGE_BYTES = 1024 * 1024;

/** The size of the BER TLV at the start of `buffer`: null while incomplete, 'bad' when not BER we read. */
function tlvAt(buffer: Buffer, offset: number): { header: number; length: number } | null | 'bad' {
  if (buffer.length < offset + 2) return null;
  const first = buffer[offset + 1] as number;
  if (first < 0x80) return { header: 2, length: first };
  const octets = first & 0x7f;
  // Indefinite lengths are not allowed in LDAP (RFC 4511 5.1); four octets are more than enough.
  if (octets === 0 || octets > 4) return 'bad';
  if (buffer.length < offset + 2 + octets) return null;
  let length = 0;
  for (let i = 0; i < octets; i++) length = length * 256 + (buffer[offset + 2 + i] as number);
  return { header: 2 + octets, length };
}

const SASL_CREDENTIALS_TAG = 0xa3;

/**
 * A bind request with SASL credentials, read by hand: ldapjs's BindRequest throws on them (it
 * knows simple binds only), and its parser then loses the connection's following bytes. Null for
 * any other message.
 */
function saslBindOf(frame: Buffer): LdapRequest | null {
  const outer = tlvAt(frame, 0);
  if (!outer || outer === 'bad') return null;
  let at = outer.header;
  const read = (tag: number) => {
    if (frame[at] !== tag) return null;
    const tlv = tlvAt(frame, at);
    if (!tlv || tlv === 'bad' || at + tlv.header + tlv.length > frame.length) return null;
    const value = frame.subarray(at + tlv.header, at + tlv.header + tlv.length);
    at += tlv.header + tlv.length;
    return value;
  };
  const id = read(0x02);
  if (!id || id.length > 4) return null;
  const messageId = id.reduce((value, octet) => value * 256 + octet, 0);
  if (frame[at] !== operation.bind) return null;
  const op = tlvAt(frame, at);
  if (!op || op === 'bad') return null;
  at += op.header;
  const version = read(0x02);
  const name = read(0x04);
  if (!version || !name || frame[at] !== SASL_CREDENTIALS_TAG) return null;
  at += (tlvAt(frame, at) as { header: number }).header;
  const mechanism = read(0x04);
  return {
    messageId,
    protocolOp: operation.bind,
    type: 'BindRequest',
    controls: [],
    version: version.reduce((value, octet) => value * 256 + octet, 0),
    name: name.toString('utf8'),
    authentication: 'sasl',
    mechanism: mechanism?.toString('utf8') ?? '',
  };
}

const silentLog = { trace() {}, debug() {}, info() {}, warn() {}, error() {}, child: () => silentLog };

/**
 * Reads a connection's bytes as LDAP messages, one whole message at a time: SASL binds by hand
 * (so that the server can answer them), everything else by ldapjs's parser. `onError` is called
 * once for bytes that are not LDAP or a message over MAX_MESSAGE_BYTES; nothing is read after it.
 */
export function createMessageReader(onMessage: (request: LdapRequest) => void, onError: () => void) {
  const parser = new wire.Parser({ log: silentLog });
  let failed = false;
  const fail = () => {
    if (!failed) onError();
    failed = true;
  };
  parser.on('message', onMessage);
  parser.on('error', fail);
  let pending: Buffer = Buffer.alloc(0);
  return (data: Buffer) => {
    if (failed) return;
    pending = pending.length ? Buffer.concat([pending, data]) : data;
    while (pending.length && !failed) {
      if (pending[0] !== 0x30) return fail();
      const tlv = tlvAt(pending, 0);
      if (tlv === 'bad' || (tlv && tlv.header + tlv.length > MAX_MESSAGE_BYTES)) return fail();
      if (!tlv || pending.length < tlv.header + tlv.length) return;
      const frame = pending.subarray(0, tlv.header + tlv.length);
      pending = pending.subarray(frame.length);
      const sasl = saslBindOf(frame);
      if (sasl) onMessage(sasl);
      else
        try {
          parser.write(frame);
        } catch {
          fail();
        }
    }
  };
}
