import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { Writable } from 'node:stream';
import { ACTIVESYNC_PATH } from '@tessera/contract';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Agent } from 'undici';
import { type OutboundPolicy, parseAddress } from '../../lib/outbound-address.ts';
import { basicCredentials, parseActiveSyncQuery } from './activesync-request.ts';
import type { AgentDecision, AgentService } from './agent.service.ts';
import { autodiscoverResponse, emailOfAutodiscoverRequest } from './autodiscover.ts';

/**
 * The Exchange agent's HTTP side, in the server's own process and port: `/Microsoft-Server-ActiveSync`
 * (OPTIONS and POST, as phones send them) forwarded to the company's Exchange, and Autodiscover
 * answered with the agent's own address. Bodies stream both ways (undici, no buffering), so a
 * Ping held by Exchange up to `maxHoldSeconds` stays open end to end.
 */

/** Headers that belong to one connection (RFC 9110 §7.6.1) or that the agent sets itself. */
const requestHeadersDropped = new Set([
  'connection',
  'keep-alive',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  'authorization',
  'expect',
  'x-forwarded-for',
  'x-forwarded-proto',
  'x-forwarded-host',
  'forwarded',
]);
const responseHeadersDropped = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

const REALM = 'Basic realm="Exchange ActiveSync", charset="UTF-8"';

function forwardedHeaders(incoming: IncomingHttpHeaders, authorization: string, ip: string) {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(incoming)) {
    if (value !== undefined && !requestHeadersDropped.has(name)) headers[name] = value;
  }
  headers.authorization = authorization;
  headers['x-forwarded-for'] = ip;
  return headers;
}

/** Where a body nobody reads goes. */
const discard = () =>
  new Writable({
    write(_chunk, _encoding, done) {
      done();
    },
  });

function answered(response: ServerResponse, status: number, headers: Record<string, string> = {}) {
  response.writeHead(status, { 'content-length': '0', 'cache-control': 'private', ...headers });
  response.end();
}

export interface AgentRoutesDeps {
  agent: AgentService;
  guard: OutboundPolicy;
  maxHoldSeconds: number;
  publicUrl: string;
}

export async function agentRoutes(app: FastifyInstance, deps: AgentRoutesDeps) {
  const holdMs = deps.maxHoldSeconds * 1000;
  // undici (about 20 MB) is loaded with the first request an agent forwards: most installations
  // have no Exchange.
  let undici: Promise<{ dispatcher: Agent; errors: typeof import('undici').errors }> | undefined;
  const loadUndici = () =>
    (undici ??= import('undici').then(({ Agent, errors }) => ({
      dispatcher: new Agent({
        connect: { lookup: deps.guard.lookup as never, timeout: 10_000 },
        keepAliveTimeout: 30_000,
        headersTimeout: holdMs,
        bodyTimeout: holdMs,
      }),
      errors,
    })));
  app.addHook('onClose', async () => {
    if (undici) await (await undici).dispatcher.destroy();
  });

  async function forward(
    request: FastifyRequest,
    reply: FastifyReply,
    decision: Extract<AgentDecision, { kind: 'forward' }>,
    query: string,
    log: FastifyBaseLogger,
  ) {
    const response = reply.raw;
    const target = new URL(decision.upstream.url);
    // An address written as such is never looked up: judged here.
    if (parseAddress(target.hostname) && !deps.guard.allows(target.hostname)) return answered(response, 502);
    const aborted = new AbortController();
    // The phone went away (or the server is closing): Exchange's request ends too.
    response.on('close', () => {
      if (!response.writableFinished) aborted.abort();
    });
    const { dispatcher, errors: undiciErrors } = await loadUndici();
    let refusedSignIn = false;
    try {
      // Exchange's answer is written straight into the phone's response as it arrives (undici's
      // stream API: no intermediate body stream, the cheapest path for the many small Syncs).
      await dispatcher.stream(
        {
          origin: target.origin,
          path: `${target.pathname}${query ? `?${query}` : ''}`,
          method: request.method as 'POST' | 'OPTIONS',
          headers: forwardedHeaders(request.headers, decision.upstream.authorization, request.ip),
          body: request.method === 'POST' ? request.raw : null,
          signal: aborted.signal,
        },
        ({ statusCode, headers: upstreamHeaders }) => {
          if (statusCode === 401) {
            // Exchange refused the agent's own sign-in: the phone's password is not what is wrong.
            refusedSignIn = true;
            return discard();
          }
          const headers: Record<string, string | string[]> = {};
          for (const [name, value] of Object.entries(upstreamHeaders)) {
            if (value !== undefined && !responseHeadersDropped.has(name)) headers[name] = value;
          }
          response.writeHead(statusCode, headers);
          return response;
        },
      );
      if (refusedSignIn) {
        log.warn({ status: 401 }, 'Exchange refused the sign-in of the Exchange agent');
        answered(response, 503, { 'retry-after': '300' });
      }
    } catch (error) {
      if (aborted.signal.aborted) return;
      const timedOut =
        error instanceof undiciErrors.HeadersTimeoutError || error instanceof undiciErrors.BodyTimeoutError;
      log.warn({ err: error }, 'forwarding to Exchange failed');
      if (!response.headersSent) answered(response, timedOut ? 504 : 502);
      else response.destroy();
    }
  }

  async function activeSync(request: FastifyRequest, reply: FastifyReply) {
    const mark = request.url.indexOf('?');
    const rawQuery = mark < 0 ? '' : request.url.slice(mark + 1);
    const parsed = parseActiveSyncQuery(rawQuery);
    reply.hijack();
    if (!parsed.ok) return answered(reply.raw, 400);
    const decision = await deps.agent
      .authorize({
        method: request.method as 'OPTIONS' | 'POST',
        query: parsed.query,
        credentials: basicCredentials(request.headers.authorization),
        ip: request.ip,
        userAgent: request.headers['user-agent']?.slice(0, 512) ?? null,
      })
      .catch((error: unknown) => {
        request.log.error({ err: error }, 'the Exchange agent could not decide');
        return undefined;
      });
    if (!decision) return answered(reply.raw, 503, { 'retry-after': '60' });
    if (decision.kind === 'refuse') {
      const extra: Record<string, string> =
        decision.status === 401
          ? { 'www-authenticate': REALM }
          : decision.status === 429
            ? { 'retry-after': '600' }
            : {};
      return answered(reply.raw, decision.status, extra);
    }
    const query = rawQuery ? parsed.query.forwardQuery(decision.upstream.user) : '';
    try {
      await forward(request, reply, decision, query, request.log);
    } finally {
      if (decision.longPoll && decision.deviceRowId) {
        await deps.agent
          .longRequestEnded(decision.deviceRowId)
          .catch((error: unknown) => request.log.warn({ err: error }, 'recording the end of a Ping failed'));
      }
    }
  }

  await app.register(async (scope) => {
    // The phone's body goes to Exchange as it comes: nothing here reads it.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, _payload, done) => done(null));
    for (const path of [ACTIVESYNC_PATH, ACTIVESYNC_PATH.toLowerCase()]) {
      scope.route({ method: ['OPTIONS', 'POST'], url: path, handler: activeSync });
    }
  });

  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'string', bodyLimit: 16 * 1024 }, (_request, body, done) =>
      done(null, body),
    );
    const agentUrl = `${deps.publicUrl}${ACTIVESYNC_PATH}`;
    // The same answer for every address, with no password checked: it tells nobody whether a
    // mailbox exists, and the phone then signs in to the agent (never to Exchange directly).
    const handler = async (request: FastifyRequest, reply: FastifyReply) => {
      const email = emailOfAutodiscoverRequest(typeof request.body === 'string' ? request.body : '');
      return reply
        .header('cache-control', 'no-store')
        .type('text/xml; charset=utf-8')
        .send(autodiscoverResponse(email, agentUrl));
    };
    for (const path of ['/autodiscover/autodiscover.xml', '/Autodiscover/Autodiscover.xml']) {
      scope.route({ method: ['GET', 'POST'], url: path, handler });
    }
  });
}
