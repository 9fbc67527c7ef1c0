import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';
import { BlockList, isIPv4 } from 'node:net';
import { type Language, radiusLimits } from '@tessera/contract';
import type { FastifyBaseLogger } from 'fastify';
import type { DatabaseHandle } from '../../db/database.ts';
import type { Sealer } from '../../lib/crypto.ts';
import type { Metrics, RadiusDropReason } from '../ops/metrics.ts';
import { createAnswerCache } from './answer-cache.ts';
import * as repo from './radius.repo.ts';
import { SECRET_PURPOSE } from './radius.service.ts';
import type { KnownClient, RadiusAuthenticator } from './radius-auth.ts';
import {
  type Answer,
  addressOf,
  attribute,
  attributeValue,
  code,
  decryptPassword,
  encodeAnswer,
  parseRequest,
  type Request,
  signerOf,
  textOf,
} from './radius-packet.ts';

/**
 * The RADIUS authentication server (RFC 2865 over UDP). Every instance serves the clients of
 * every company from the database: it keeps them in memory and reloads them when any instance
 * announces a change (and every minute regardless).
 *
 * A request is answered only when it comes from a known client's address range and carries a
 * Message-Authenticator made with that client's secret (RFC 3579, required on every request:
 * Blast-RADIUS, CVE-2024-3596); anything else is dropped. Clients of different companies may
 * share a range: the secret that verifies the request says whose it is (see `identify`).
 * Retransmissions (RFC 5080 §2.2.2: same source, identifier and authenticator) get
 * the answer already sent, or nothing while it is being worked out. Rejects wait a second, as
 * FreeRADIUS's reject_delay does, so that guessing over RADIUS is slow and timings tell nothing.
 */

interface CachedClient extends KnownClient {
  secret: Buffer;
  range: BlockList;
}

export interface RadiusServerOptions {
  database: DatabaseHandle;
  sealer: Sealer;
  authenticator: RadiusAuthenticator;
  log: FastifyBaseLogger;
  host: string;
  port: number;
  /** How long an Access-Reject waits (ms); FreeRADIUS waits 1 s. */
  rejectDelayMs?: number;
  /** Where drops that belong to no client are counted (the platform's metrics). */
  metrics?: Pick<Metrics, 'radiusDropped'>;
}

const RELOAD_MS = 60_000;
const FLUSH_MS = 5_000;
/** How long an answer is kept for retransmissions (RFC 5080 suggests the client's retry window). */
const DUPLICATE_MS = 30_000;
const DUPLICATE_MAX = 20_000;
/**
 * The secrets tried per company for one request. Every company is tried: a bound over all
 * companies would let one company's clients (declared for another's NAS address) push the
 * other's out. A company holds no more clients than this, and an HMAC-MD5 costs microseconds.
 */
const CANDIDATES_PER_COMPANY = radiusLimits.clientsPerCompany;

const emptyCounts = (): repo.ClientCounts => ({
  accepts: 0,
  rejects: 0,
  challenges: 0,
  droppedNoAuthenticator: 0,
  droppedBadAuthenticator: 0,
  lastRequestAt: null,
});

/** A source address as the ranges hold it: IPv4-mapped IPv6 as plain IPv4. */
const plainAddress = (address: string) =>
  address.startsWith('::ffff:') && isIPv4(address.slice(7)) ? address.slice(7) : address;

export function createRadiusServer(options: RadiusServerOptions) {
  const { database, sealer, authenticator, log } = options;
  const rejectDelay = options.rejectDelayMs ?? 1000;
  let clients: CachedClient[] = [];
  const counts = new Map<string, repo.ClientCounts>();
  const answered = createAnswerCache(DUPLICATE_MS, DUPLICATE_MAX);
  const timers = new Set<NodeJS.Timeout>();
  const inFlight = new Set<Promise<void>>();
  let platformDrops = 0;
  let lastDropWarning = 0;
  let socket: Socket | undefined;
  let unlisten: (() => Promise<void>) | undefined;

  /**
   * The reload under way, if any. A change's notice reaches the instance that made it before its
   * commit returns (db/database.ts), so a request that arrives after the change waits for the
   * reload the notice started instead of matching the old list; of reloads that overlap, only the
   * last one started may store its list (an earlier one can finish after it with older rows).
   */
  let loading: Promise<void> | undefined;
  let generation = 0;

  function reload(): Promise<void> {
    const mine = ++generation;
    const run = loadClients().then((loaded) => {
      if (mine === generation) clients = loaded;
    });
    const tracked = run.finally(() => {
      if (loading === tracked) loading = undefined;
    });
    loading = tracked;
    return run;
  }

  async function loadClients(): Promise<CachedClient[]> {
    const rows = await repo.enabledClients(database.db);
    return rows.flatMap((row) => {
      const [network = '', bits = '0'] = row.source.split('/');
      const range = new BlockList();
      const family = isIPv4(network) ? 'ipv4' : 'ipv6';
      try {
        range.addSubnet(network, Number(bits), family);
        const secret = Buffer.from(sealer.open(row.secret_sealed, `${SECRET_PURPOSE}:${row.id}`), 'utf8');
        return [
          {
            id: row.id,
            companyId: row.company_id,
            name: row.name,
            access: row.access,
            otpMode: row.otp_mode,
            smsCodes: row.sms_codes,
            language: row.default_language as Language,
            secret,
            range,
          },
        ];
      } catch (error) {
        log.error({ err: error, clientId: row.id }, 'a RADIUS client could not be loaded');
        return [];
      }
    });
  }

  const count = (clientId: string, field: Exclude<keyof repo.ClientCounts, 'lastRequestAt'>) => {
    const entry = counts.get(clientId) ?? emptyCounts();
    entry[field] += 1;
    entry.lastRequestAt = new Date();
    counts.set(clientId, entry);
  };

  async function flush() {
    const pending = [...counts.entries()];
    counts.clear();
    for (const [clientId, entry] of pending) await repo.addCounts(database.db, clientId, entry);
  }

  /** A drop no client's secret explains: the platform's, never a company's. */
  function dropOnPlatform(source: string, reason: RadiusDropReason) {
    options.metrics?.radiusDropped(reason);
    platformDrops++;
    const now = Date.now();
    if (now - lastDropWarning > 60_000) {
      lastDropWarning = now;
      log.warn({ source, reason, dropped: platformDrops }, 'RADIUS requests of no known client dropped');
    }
  }

  /** The clients whose range holds the source, oldest first, at most CANDIDATES_PER_COMPANY of each company. */
  function candidatesFor(source: string) {
    const family = isIPv4(source) ? 'ipv4' : 'ipv6';
    const perCompany = new Map<string, number>();
    const found: CachedClient[] = [];
    for (const client of clients) {
      const taken = perCompany.get(client.companyId) ?? 0;
      if (taken >= CANDIDATES_PER_COMPANY || !client.range.check(source, family)) continue;
      perCompany.set(client.companyId, taken + 1);
      found.push(client);
    }
    return found;
  }

  /**
   * The client whose range holds the source and whose secret made the Message-Authenticator.
   * The oldest clients are tried first, so that clients declared later (of whatever company)
   * do not even slow down the match of those already there.
   *
   * A request without a Message-Authenticator is never answered, whoever's range holds it:
   * nothing else in it proves whose secret it was made with (a User-Password decrypts to bytes
   * under any secret, and the Request Authenticator is random), so it cannot be matched to a
   * client safely and Blast-RADIUS forbids answering it. A drop is counted on a client only when
   * that client alone holds the source in its range, so that the address says whose it is;
   * when several do, or none, the drop is counted on the platform and no company sees another's.
   */
  function identify(request: Request, source: string): CachedClient | undefined {
    const candidates = candidatesFor(source);
    if (!candidates.length) {
      dropOnPlatform(source, 'unknown_client');
      return undefined;
    }
    const signer = signerOf(request, candidates);
    if (typeof signer !== 'string') return signer;
    const [sole] = candidates;
    if (sole && candidates.length === 1)
      count(sole.id, signer === 'missing' ? 'droppedNoAuthenticator' : 'droppedBadAuthenticator');
    else
      dropOnPlatform(source, signer === 'missing' ? 'no_message_authenticator' : 'bad_message_authenticator');
    return undefined;
  }

  function send(client: CachedClient, request: Request, key: string, remote: RemoteInfo, answer: Answer) {
    const bytes = encodeAnswer(request, answer, client.secret);
    answered.answered(key, bytes);
    socket?.send(bytes, remote.port, remote.address);
  }

  async function handle(message: Buffer, remote: RemoteInfo) {
    const request = parseRequest(message);
    if (!request || (request.code !== code.accessRequest && request.code !== code.statusServer)) return;
    const source = plainAddress(remote.address);
    if (loading) await loading.catch(() => undefined);
    const client = identify(request, source);
    if (!client) return;
    const key = `${client.id}|${source}|${remote.port}|${request.identifier}|${request.authenticator.toString('hex')}`;
    const seen = answered.seen(key);
    if (seen) {
      if (seen.answer) socket?.send(seen.answer, remote.port, remote.address);
      return;
    }
    answered.arrived(key);
    // RFC 5997: a Status-Server with a good Message-Authenticator is answered, for health checks.
    if (request.code === code.statusServer)
      return send(client, request, key, remote, { code: code.accessAccept });
    const hasPap = attributeValue(request, attribute.userPassword) !== undefined;
    const answer = await authenticator.authenticate({
      client,
      sourceIp: source,
      username: textOf(request, attribute.userName),
      // CHAP and EAP are not offered: such a request is refused like a missing password.
      password: hasPap ? (decryptPassword(request, client.secret) ?? null) : null,
      state: attributeValue(request, attribute.state) ?? null,
      nasIp: addressOf(request),
      callingStationId: textOf(request, attribute.callingStationId, 128),
    });
    count(
      client.id,
      answer.code === code.accessAccept
        ? 'accepts'
        : answer.code === code.accessReject
          ? 'rejects'
          : 'challenges',
    );
    if (answer.code !== code.accessReject || rejectDelay <= 0)
      return send(client, request, key, remote, answer);
    const timer = setTimeout(() => {
      timers.delete(timer);
      send(client, request, key, remote, answer);
    }, rejectDelay);
    timers.add(timer);
  }

  let reloadTimer: NodeJS.Timeout | undefined;
  let flushTimer: NodeJS.Timeout | undefined;

  return {
    /** Starts listening; answers the port it got (0 asks the system for a free one). */
    async start(): Promise<number> {
      await reload();
      unlisten = await database.listen(repo.RADIUS_CLIENTS_CHANNEL, () => {
        reload().catch((error) => log.error({ err: error }, 'reloading RADIUS clients failed'));
      });
      reloadTimer = setInterval(
        () => reload().catch((error) => log.warn({ err: error }, 'reloading RADIUS clients failed')),
        RELOAD_MS,
      );
      flushTimer = setInterval(
        () => flush().catch((error) => log.warn({ err: error }, 'counting RADIUS requests failed')),
        FLUSH_MS,
      );
      reloadTimer.unref();
      flushTimer.unref();
      const udp = createSocket({
        type: isIPv4(options.host) || options.host === 'localhost' ? 'udp4' : 'udp6',
      });
      socket = udp;
      udp.on('message', (message, remote) => {
        const work = handle(message, remote)
          .catch((error) => log.error({ err: error }, 'a RADIUS request failed'))
          .finally(() => inFlight.delete(work));
        inFlight.add(work);
      });
      await new Promise<void>((resolve, reject) => {
        udp.once('error', reject);
        udp.bind(options.port, options.host, () => {
          udp.off('error', reject);
          udp.on('error', (error) => log.error({ err: error }, 'RADIUS socket error'));
          resolve();
        });
      });
      return udp.address().port;
    },
    /** Reloads the clients now (tests; changes reach other instances by NOTIFY). */
    reload,
    /** Counts gathered so far are written; tests read them at once. */
    flush,
    async close() {
      clearInterval(reloadTimer);
      clearInterval(flushTimer);
      for (const timer of timers) clearTimeout(timer);
      await unlisten?.();
      const closing = socket;
      socket = undefined;
      await new Promise<void>((resolve) => (closing ? closing.close(() => resolve()) : resolve()));
      // Requests under way finish (their answers are no longer sent) before the database closes.
      await Promise.allSettled([...inFlight]);
      await flush().catch((error) => log.warn({ err: error }, 'counting RADIUS requests failed'));
    },
  };
}

export type RadiusServer = ReturnType<typeof createRadiusServer>;
