import { createHash } from 'node:crypto';
import net, { type Socket } from 'node:net';
import tls from 'node:tls';
import type { FastifyBaseLogger } from 'fastify';
import type { Bound, LdapBinds } from './ldap-bind.ts';
import type { LdapNames } from './ldap-names.ts';
import { SUBSCHEMA_DN, subschemaEntry } from './ldap-schema.ts';
import { type Entry, type Position, SCOPE, type Search } from './ldap-search.ts';
import type { LdapTls } from './ldap-tls.ts';
import {
  createMessageReader,
  type LdapControl,
  type LdapFilter,
  type LdapRequest,
  operation,
  PAGED_RESULTS_OID,
  resultCode,
  STARTTLS_OID,
  WHOAMI_OID,
  wire,
} from './ldap-wire.ts';

/**
 * The LDAP server: plain LDAP with StartTLS, and LDAPS, over the directory of every company.
 * Each connection's requests are answered one after the other (a StartTLS must find nothing
 * under way), with what its last bind made it.
 */

/** The most entries one search answers (a paged search: one page). */
export const ADMIN_LIMIT = 1000;

interface Connection {
  socket: Socket;
  secure: boolean;
  bound: Bound | null;
  ip: string | null;
  queue: Promise<void>;
}

export interface LdapServerDeps {
  binds: LdapBinds;
  search: Search;
  names: LdapNames;
  log: FastifyBaseLogger;
  /** The certificate of LDAPS and StartTLS; without it neither is offered. */
  tls?: LdapTls;
  version: string;
}

export function createLdapServer(deps: LdapServerDeps) {
  const { names, search } = deps;
  const sockets = new Set<Socket>();

  const send = (connection: Connection, message: { toBer(): { buffer: Buffer } }) => {
    if (!connection.socket.destroyed) connection.socket.write(message.toBer().buffer);
  };

  function rootDse(connection: Connection): Entry {
    const naming = connection.bound ? names.names.base(connection.bound.view.code) : names.names.suffix;
    return {
      dn: '',
      attributes: {
        objectClass: ['top'],
        namingContexts: [naming],
        subschemaSubentry: [SUBSCHEMA_DN],
        supportedLDAPVersion: ['3'],
        supportedControl: [PAGED_RESULTS_OID],
        supportedExtension: [...(deps.tls ? [STARTTLS_OID] : []), WHOAMI_OID],
        supportedFeatures: ['1.3.6.1.4.1.4203.1.5.1', '1.3.6.1.4.1.4203.1.5.3'],
        vendorName: ['Tessera'],
        vendorVersion: [deps.version],
      },
    };
  }

  /** The attributes a search asked for (RFC 4511 4.5.1.8): all user ones for none or `*`, none for `1.1`. */
  function selectAttributes(entry: Entry, requested: string[], typesOnly: boolean) {
    const wanted = requested.map((name) => name.toLowerCase());
    const all = wanted.length === 0 || wanted.includes('*') || wanted.includes('+');
    return Object.entries(entry.attributes)
      .filter(([type]) => all || wanted.includes(type.toLowerCase()))
      .map(([type, values]) => ({ type, values: typesOnly ? [] : values }));
  }

  function sendEntry(connection: Connection, request: LdapRequest, entry: Entry) {
    send(
      connection,
      new wire.SearchResultEntry({
        messageId: request.messageId,
        objectName: entry.dn,
        attributes: selectAttributes(entry, request.attributes ?? [], request.typesOnly ?? false),
      }),
    );
  }

  const done = (
    connection: Connection,
    request: LdapRequest,
    status: number,
    diagnosticMessage = '',
    controls?: LdapControl[],
  ) =>
    send(
      connection,
      new wire.SearchResultDone({ messageId: request.messageId, status, diagnosticMessage, controls }),
    );

  const cookieCheck = (request: LdapRequest) =>
    createHash('sha256')
      .update(`${request.baseObject?.toString()}\n${request.scope}\n${request.filter?.toString()}`)
      .digest('base64url')
      .slice(0, 16);

  function readCookie(cookie: Buffer, request: LdapRequest): Position | null | 'bad' {
    if (!cookie.length) return null;
    try {
      const value = JSON.parse(cookie.toString('utf8')) as { p: Position['phase']; a: string; h: string };
      if (value.h !== cookieCheck(request) || !['fixed', 'people', 'groups'].includes(value.p)) return 'bad';
      return { phase: value.p, after: String(value.a) };
    } catch {
      return 'bad';
    }
  }

  const writeCookie = (position: Position | null, request: LdapRequest) =>
    position
      ? Buffer.from(JSON.stringify({ p: position.phase, a: position.after, h: cookieCheck(request) }))
      : Buffer.alloc(0);

  async function onSearch(connection: Connection, request: LdapRequest) {
    const filter = request.filter as LdapFilter;
    const scope = request.scope ?? SCOPE.base;
    const controls = request.controls ?? [];
    const paged = controls.find((control) => control.type === PAGED_RESULTS_OID) as
      | (LdapControl & { value: { size: number; cookie: Buffer } })
      | undefined;
    if (controls.some((control) => control.criticality && control.type !== PAGED_RESULTS_OID))
      return done(
        connection,
        request,
        resultCode.unavailableCriticalExtension,
        'unsupported critical control',
      );
    const named = request.baseObject ? names.classifyDn(request.baseObject) : ({ kind: 'root' } as const);
    if (named.kind === 'root' || named.kind === 'subschema') {
      const entry = named.kind === 'root' ? rootDse(connection) : subschemaEntry;
      if (scope === SCOPE.base && filter.matches(entry.attributes, false))
        sendEntry(connection, request, entry);
      return done(connection, request, resultCode.success);
    }
    const bound = connection.bound;
    if (!bound) return done(connection, request, resultCode.insufficientAccessRights, 'bind first');
    // Another company's names are as absent as names that do not exist.
    if (!('code' in named) || named.code !== bound.view.code)
      return done(connection, request, resultCode.noSuchObject);
    const planned = await search.plan(bound.view, named, scope);
    if (!planned.found) return done(connection, request, resultCode.noSuchObject);

    if (paged) {
      const from = readCookie(paged.value.cookie, request);
      if (from === 'bad')
        return done(connection, request, resultCode.unwillingToPerform, 'paging cookie not of this search');
      const pageSize = paged.value.size;
      if (pageSize <= 0) {
        const end = new wire.PagedResultsControl({ value: { size: 0, cookie: Buffer.alloc(0) } });
        return done(connection, request, resultCode.success, '', [end]);
      }
      const limit = Math.min(pageSize, ADMIN_LIMIT);
      const page = await search.run(
        bound.view,
        planned,
        filter,
        from ?? { phase: 'fixed', after: '' },
        limit,
      );
      for (const entry of page.entries) sendEntry(connection, request, entry);
      const next = new wire.PagedResultsControl({
        value: { size: 0, cookie: writeCookie(page.next, request) },
      });
      return done(connection, request, resultCode.success, '', [next]);
    }
    const asked = request.sizeLimit ?? 0;
    const limit = asked > 0 ? Math.min(asked, ADMIN_LIMIT) : ADMIN_LIMIT;
    const result = await search.run(bound.view, planned, filter, { phase: 'fixed', after: '' }, limit + 1);
    for (const entry of result.entries.slice(0, limit)) sendEntry(connection, request, entry);
    if (result.entries.length > limit)
      return done(
        connection,
        request,
        resultCode.sizeLimitExceeded,
        asked > 0 ? '' : `at most ${ADMIN_LIMIT} entries without paging`,
      );
    return done(connection, request, resultCode.success);
  }

  async function onBind(connection: Connection, request: LdapRequest) {
    const answer = (status: number, diagnosticMessage = '') =>
      send(connection, new wire.BindResponse({ messageId: request.messageId, status, diagnosticMessage }));
    // A bind, whatever its outcome, first makes the connection anonymous (RFC 4511 4.2.1).
    const previous = connection.bound;
    connection.bound = null;
    if (request.version !== 3) return answer(resultCode.protocolError, 'LDAPv3 only');
    // SASL (EXTERNAL, GSSAPI, DIGEST-MD5, …): not offered (the rootDSE lists no mechanism); the
    // connection stays open for a simple bind.
    if (request.authentication === 'sasl')
      return answer(resultCode.authMethodNotSupported, 'SASL binds are not supported: use a simple bind');
    const dn = request.name ?? '';
    const password = request.credentials ?? '';
    if (!dn && !password)
      return answer(resultCode.inappropriateAuthentication, 'anonymous binds are not allowed');
    if (!password) return answer(resultCode.unwillingToPerform, 'unauthenticated binds are not allowed');
    const named = names.classify(dn);
    let outcome: Awaited<ReturnType<LdapBinds['bindApp']>>;
    if (named?.kind === 'app') outcome = await deps.binds.bindApp(dn, named, password);
    else if (named?.kind === 'person')
      outcome = await deps.binds.bindPerson(dn, named, password, { ip: connection.ip, previous });
    else if (named === null) return answer(resultCode.invalidDnSyntax, 'invalid DN');
    else return answer(resultCode.invalidCredentials, 'invalid credentials');
    if (!outcome.ok) return answer(outcome.code, outcome.message);
    connection.bound = outcome.bound;
    return answer(resultCode.success);
  }

  function startTls(connection: Connection, request: LdapRequest) {
    const reply = (status: number, diagnosticMessage = '') =>
      send(
        connection,
        new wire.ExtendedResponse({
          messageId: request.messageId,
          status,
          diagnosticMessage,
          responseName: STARTTLS_OID,
        }),
      );
    if (!deps.tls) return reply(resultCode.protocolError, 'StartTLS is not configured');
    if (connection.secure) return reply(resultCode.operationsError, 'TLS is already on');
    reply(resultCode.success);
    // The client sends nothing more in clear: the rest of this socket is TLS.
    const plain = connection.socket;
    plain.removeAllListeners('data');
    const secure = new tls.TLSSocket(plain, { isServer: true, secureContext: deps.tls.current().context });
    attach(secure, true, connection.bound);
  }

  function onExtended(connection: Connection, request: LdapRequest) {
    if (request.requestName === STARTTLS_OID) return startTls(connection, request);
    if (request.requestName === WHOAMI_OID)
      return send(
        connection,
        new wire.ExtendedResponse({
          messageId: request.messageId,
          status: resultCode.success,
          responseValue: connection.bound ? `dn:${connection.bound.dn}` : '',
        }),
      );
    return send(
      connection,
      new wire.ExtendedResponse({
        messageId: request.messageId,
        status: resultCode.protocolError,
        diagnosticMessage: 'unsupported extended operation',
      }),
    );
  }

  async function onCompare(connection: Connection, request: LdapRequest) {
    const answer = (status: number, diagnosticMessage = '') =>
      send(connection, new wire.CompareResponse({ messageId: request.messageId, status, diagnosticMessage }));
    const bound = connection.bound;
    if (!bound) return answer(resultCode.insufficientAccessRights, 'bind first');
    const named = names.classify(String(request.entry ?? ''));
    if (!named || !('code' in named) || named.code !== bound.view.code)
      return answer(resultCode.noSuchObject);
    const planned = await search.plan(bound.view, named, SCOPE.base);
    if (!planned.found) return answer(resultCode.noSuchObject);
    const filter = {
      type: 'EqualityFilter',
      attribute: request.attribute ?? '',
      value: request.value ?? '',
      matches: () => false,
      toString: () => '',
    };
    const found = await search.run(bound.view, planned, filter, { phase: 'fixed', after: '' }, 1);
    return answer(found.entries.length ? resultCode.compareTrue : resultCode.compareFalse);
  }

  const writes = new Map<
    number,
    {
      new (options: {
        messageId: number;
        status: number;
        diagnosticMessage: string;
      }): { toBer(): { buffer: Buffer } };
    }
  >([
    [operation.add, wire.AddResponse],
    [operation.delete, wire.DeleteResponse],
    [operation.modify, wire.ModifyResponse],
    [operation.modifyDn, wire.ModifyDNResponse],
  ]);

  async function handle(connection: Connection, request: LdapRequest) {
    switch (request.protocolOp) {
      case operation.bind:
        return onBind(connection, request);
      case operation.search:
        return onSearch(connection, request);
      case operation.extended:
        return onExtended(connection, request);
      case operation.compare:
        return onCompare(connection, request);
      case operation.unbind:
        connection.socket.destroy();
        return;
      case operation.abandon:
        return;
      default: {
        const Response = writes.get(request.protocolOp);
        if (!Response) {
          connection.socket.destroy();
          return;
        }
        // The directory is Tessera's people: it is changed in the console, never over LDAP.
        send(
          connection,
          new Response({
            messageId: request.messageId,
            status: resultCode.unwillingToPerform,
            diagnosticMessage: 'the directory is read-only',
          }),
        );
      }
    }
  }

  function attach(socket: Socket, secure: boolean, bound: Bound | null = null) {
    sockets.add(socket);
    // A search answers in several small writes (entries, then the result): without this, Nagle's
    // algorithm holds the last one until the client's delayed ACK, about 40 ms per search.
    socket.setNoDelay(true);
    const connection: Connection = {
      socket,
      secure,
      bound,
      ip: socket.remoteAddress?.replace(/^::ffff:/, '') ?? null,
      queue: Promise.resolve(),
    };
    // A message that does not parse ends the connection (RFC 4511 4.1.1: protocolError notice not needed).
    const read = createMessageReader(
      (request) => {
        connection.queue = connection.queue.then(async () => {
          if (socket.destroyed) return;
          try {
            await handle(connection, request);
          } catch (error) {
            deps.log.error({ err: error }, 'LDAP request failed');
            socket.destroy();
          }
        });
      },
      () => socket.destroy(),
    );
    socket.on('data', read);
    socket.on('error', () => socket.destroy());
    socket.on('close', () => sockets.delete(socket));
    socket.setTimeout(15 * 60_000, () => socket.destroy());
  }

  const servers: net.Server[] = [];

  async function listen(server: net.Server, host: string, port: number): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    servers.push(server);
    const address = server.address();
    return typeof address === 'object' && address ? address.port : port;
  }

  return {
    /** Listens for LDAP (and LDAPS when given a port and a certificate); the ports listened on. */
    async start(options: { host: string; port: number; ldapsPort: number | null }) {
      const port = await listen(
        net.createServer((socket) => attach(socket, false)),
        options.host,
        options.port,
      );
      let ldapsPort: number | null = null;
      const served = deps.tls;
      if (options.ldapsPort !== null && served) {
        const { cert, key } = served.current();
        const ldaps = tls.createServer({ cert, key }, (socket) => attach(socket, true));
        // A renewed certificate is served to the next connections; open ones keep theirs.
        served.onRenew(() => {
          const renewed = served.current();
          ldaps.setSecureContext({ cert: renewed.cert, key: renewed.key });
        });
        ldapsPort = await listen(ldaps, options.host, options.ldapsPort);
      }
      return { port, ldapsPort };
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      deps.tls?.close();
      await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
      servers.length = 0;
    },
  };
}

export type LdapServer = ReturnType<typeof createLdapServer>;
