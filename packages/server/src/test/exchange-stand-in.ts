import { createHash } from 'node:crypto';
import { EventEmitter, once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A small Exchange ActiveSync server for tests (MS-ASHTTP): answers OPTIONS with the protocol
 * headers Exchange sends, and POST Sync, FolderSync, Provision, SendMail and Ping. It accepts only
 * its service account's Basic credentials (401 with a Basic challenge otherwise, as IIS does) and
 * only the mailboxes it knows in the User parameter, in the plain and the base64 query form
 * (decoded here independently of the product). A Ping is held for `pingHoldMs` (a short
 * heartbeat) before Exchange's "no changes" answer. Every request is recorded; bodies are
 * hashed as they stream in, and `firstChunk` is emitted when a request's first bytes arrive.
 */

const PROTOCOL_HEADERS = {
  'ms-server-activesync': '15.1',
  'ms-asprotocolversions': '2.0,2.1,2.5,12.0,12.1,14.0,14.1,16.0,16.1',
  'ms-asprotocolcommands':
    'Sync,SendMail,SmartForward,SmartReply,GetAttachment,GetHierarchy,CreateCollection,DeleteCollection,MoveCollection,FolderSync,FolderCreate,FolderDelete,FolderUpdate,MoveItems,GetItemEstimate,MeetingResponse,Search,Settings,Ping,ItemOperations,Provision,ResolveRecipients,ValidateCert,Find',
  allow: 'OPTIONS,POST',
  public: 'OPTIONS,POST',
};

/** MS-ASHTTP 2.2.1.1.1.1.2 command codes (the stand-in's own table). */
const COMMANDS = [
  'Sync',
  'SendMail',
  'SmartForward',
  'SmartReply',
  'GetAttachment',
  'GetHierarchy',
  'CreateCollection',
  'DeleteCollection',
  'MoveCollection',
  'FolderSync',
  'FolderCreate',
  'FolderDelete',
  'FolderUpdate',
  'MoveItems',
  'GetItemEstimate',
  'MeetingResponse',
  'Search',
  'Settings',
  'Ping',
  'ItemOperations',
  'Provision',
  'ResolveRecipients',
  'ValidateCert',
];

export interface StandInRequest {
  method: string;
  command: string | null;
  user: string | null;
  deviceId: string | null;
  deviceType: string | null;
  base64: boolean;
  headers: IncomingMessage['headers'];
  bodyBytes: number;
  bodySha256: string;
}

/** Decodes a base64 query as Exchange does: version, command, locale, device id, policy key, type, then tag-length-value. */
function decodeBase64Query(raw: string) {
  const bytes = Buffer.from(decodeURIComponent(raw), 'base64');
  let at = 2 + 2;
  const command = COMMANDS[bytes[1] as number] ?? null;
  const idLength = bytes[at] as number;
  const deviceId = bytes.subarray(at + 1, at + 1 + idLength).toString('latin1');
  at += 1 + idLength;
  at += 1 + (bytes[at] as number);
  const typeLength = bytes[at] as number;
  const deviceType = bytes.subarray(at + 1, at + 1 + typeLength).toString('latin1');
  at += 1 + typeLength;
  let user: string | null = null;
  while (at < bytes.length) {
    const tag = bytes[at] as number;
    const length = bytes[at + 1] as number;
    if (tag === 8) user = bytes.subarray(at + 2, at + 2 + length).toString('utf8');
    at += 2 + length;
  }
  return { command, deviceId, deviceType, user };
}

function queryOf(url: string) {
  const raw = url.includes('?') ? url.slice(url.indexOf('?') + 1) : '';
  if (!raw) return { command: null, deviceId: null, deviceType: null, user: null, base64: false };
  if (raw.includes('=') && !/^[A-Za-z0-9+/]+={1,2}$/.test(raw)) {
    const params = new URLSearchParams(raw);
    return {
      command: params.get('Cmd'),
      deviceId: params.get('DeviceId'),
      deviceType: params.get('DeviceType'),
      user: params.get('User'),
      base64: false,
    };
  }
  return { ...decodeBase64Query(raw), base64: true };
}

export async function startExchangeStandIn(options: {
  service: { username: string; password: string };
  mailboxes: string[];
  /** Mailboxes whose own sign-in Exchange also accepts (for their own mailbox only). */
  ownPasswords?: Record<string, string>;
  pingHoldMs: number;
}) {
  const requests: StandInRequest[] = [];
  const events = new EventEmitter();
  /** A Sync answer of this many bytes (to stream a large body back); 0: a small one. */
  let largeAnswerBytes = 0;
  const expected = `Basic ${Buffer.from(`${options.service.username}:${options.service.password}`).toString('base64')}`;

  async function handle(request: IncomingMessage, response: ServerResponse) {
    const query = queryOf(request.url ?? '');
    const hash = createHash('sha256');
    let bodyBytes = 0;
    request.on('data', (chunk: Buffer) => {
      if (bodyBytes === 0) events.emit('firstChunk', query.command);
      bodyBytes += chunk.length;
      hash.update(chunk);
    });
    await once(request, 'end');
    const record: StandInRequest = {
      method: request.method ?? '',
      ...query,
      headers: request.headers,
      bodyBytes,
      bodySha256: hash.digest('hex'),
    };
    requests.push(record);
    events.emit('request', record);
    const own = Object.entries(options.ownPasswords ?? {}).find(
      ([user, password]) =>
        request.headers.authorization === `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` &&
        (request.method === 'OPTIONS' || query.user?.toLowerCase() === user),
    );
    if (request.headers.authorization !== expected && !own) {
      response.writeHead(401, {
        'www-authenticate': 'Basic realm="mail.example.test"',
        'content-length': '0',
      });
      return response.end();
    }
    if (request.method === 'OPTIONS') {
      response.writeHead(200, { ...PROTOCOL_HEADERS, 'content-length': '0' });
      return response.end();
    }
    if (!query.user || !options.mailboxes.includes(query.user.toLowerCase()) || !query.deviceId) {
      response.writeHead(403, { 'content-length': '0' });
      return response.end();
    }
    const wbxml = { 'content-type': 'application/vnd.ms-sync.wbxml', 'ms-server-activesync': '15.1' };
    if (query.command === 'Ping') {
      // Exchange holds a Ping until something changes or the heartbeat runs out: Status 1 (no changes).
      const held = setTimeout(() => {
        response.writeHead(200, wbxml);
        response.end(
          Buffer.from([0x03, 0x01, 0x6a, 0x00, 0x00, 0x0d, 0x45, 0x47, 0x03, 0x31, 0x00, 0x01, 0x01]),
        );
      }, options.pingHoldMs);
      events.emit('pingHeld');
      response.on('close', () => clearTimeout(held));
      return;
    }
    if (query.command === 'Sync' && largeAnswerBytes > 0) {
      response.writeHead(200, { ...wbxml, 'content-length': String(largeAnswerBytes) });
      // The first part, then the rest only once the test says the phone has received it.
      const first = Buffer.alloc(64 * 1024, 0x61);
      response.write(first);
      await once(events, 'sendRest');
      let left = largeAnswerBytes - first.length;
      while (left > 0) {
        const part = Buffer.alloc(Math.min(left, 256 * 1024), 0x62);
        left -= part.length;
        if (!response.write(part)) await once(response, 'drain');
      }
      return response.end();
    }
    response.writeHead(200, wbxml);
    response.end(Buffer.from(`${query.command}:${record.bodySha256}`));
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      response.destroy(error as Error);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    events,
    answerLarge(bytes: number) {
      largeAnswerBytes = bytes;
    },
    async close() {
      if (!server.listening) return;
      const closed = once(server, 'close');
      server.close();
      server.closeAllConnections();
      await closed;
    },
  };
}

export type ExchangeStandIn = Awaited<ReturnType<typeof startExchangeStandIn>>;
