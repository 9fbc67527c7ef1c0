import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';

/**
 * An ActiveSync client as phones send requests (MS-ASHTTP): the User-Agent, DeviceId and
 * DeviceType of a real iOS Mail or Android Gmail, Basic credentials, the MS-ASProtocolVersion
 * and X-MS-PolicyKey headers, WBXML bodies, and the plain or base64 query form.
 */

export interface PhoneProfile {
  userAgent: string;
  deviceId: string;
  deviceType: string;
  /** Send the base64-encoded query (MS-ASHTTP 2.2.1.1.1.1) instead of the plain one. */
  base64?: boolean;
}

export const iPhone = (deviceId = 'F2LXK1ABHG7F4C3D2E1A0B9C8D7E6F5A'): PhoneProfile => ({
  userAgent: 'Apple-iPhone15C3/2105.116',
  deviceId,
  deviceType: 'iPhone',
});
export const androidGmail = (deviceId = 'androidc1559372485'): PhoneProfile => ({
  userAgent: 'Android-Mail/2024.01.28.602617938.Release',
  deviceId,
  deviceType: 'Android',
});
/** Windows Mail, which sends the base64 query form. */
export const windowsMail = (deviceId = '6F24CAD599A5BF1A690246B8C2FAE4A6'): PhoneProfile => ({
  userAgent: 'MSFT-WIN-3/10.0.19045',
  deviceId,
  deviceType: 'WindowsMail',
  base64: true,
});

const COMMAND_CODES: Record<string, number> = {
  Sync: 0,
  SendMail: 1,
  FolderSync: 9,
  Ping: 18,
  Provision: 20,
};

/** The base64 query: version 14.1, command, locale en-US, device id, policy key 0, type, then User (tag 8). */
function base64Query(phone: PhoneProfile, command: string, user: string) {
  const id = Buffer.from(phone.deviceId, 'latin1');
  const type = Buffer.from(phone.deviceType, 'latin1');
  const userBytes = Buffer.from(user, 'utf8');
  return Buffer.concat([
    Buffer.from([141, COMMAND_CODES[command] as number, 0x09, 0x04, id.length]),
    id,
    Buffer.from([4, 0, 0, 0, 0, type.length]),
    type,
    Buffer.from([8, userBytes.length]),
    userBytes,
  ]).toString('base64');
}

export function activeSyncPath(phone: PhoneProfile, command: string | null, user: string) {
  if (command === null) return '/Microsoft-Server-ActiveSync';
  if (phone.base64) return `/Microsoft-Server-ActiveSync?${base64Query(phone, command, user)}`;
  const query = new URLSearchParams({
    Cmd: command,
    User: user,
    DeviceId: phone.deviceId,
    DeviceType: phone.deviceType,
  });
  return `/Microsoft-Server-ActiveSync?${query.toString()}`;
}

export interface PhoneAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/**
 * Sends one ActiveSync request to `baseUrl`. `body` may be a Buffer or a stream (sent as it
 * comes, chunked); `onResponse` sees the answer's stream before it is read to the end.
 */
export function activeSync(
  baseUrl: string,
  phone: PhoneProfile,
  options: {
    method?: 'POST' | 'OPTIONS';
    command?: string | null;
    user: string;
    password?: string;
    body?: Buffer | Readable;
    onResponse?: (response: Readable) => void;
  },
): Promise<PhoneAnswer> {
  const method = options.method ?? 'POST';
  const url = new URL(
    activeSyncPath(phone, method === 'OPTIONS' ? null : (options.command ?? 'Sync'), options.user),
    baseUrl,
  );
  const headers: Record<string, string> = {
    'user-agent': phone.userAgent,
    'accept-language': 'en-us',
    'ms-asprotocolversion': '16.1',
    'x-ms-policykey': '0',
  };
  if (options.password !== undefined)
    headers.authorization = `Basic ${Buffer.from(`${options.user}:${options.password}`).toString('base64')}`;
  if (method === 'POST') headers['content-type'] = 'application/vnd.ms-sync.wbxml';
  if (Buffer.isBuffer(options.body)) headers['content-length'] = String(options.body.length);
  return new Promise((resolve, reject) => {
    const sent = httpRequest(url, { method, headers, agent: false }, (response) => {
      options.onResponse?.(response);
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }),
      );
      response.on('error', reject);
    });
    sent.on('error', reject);
    const body = options.body;
    if (!body) sent.end();
    else if (Buffer.isBuffer(body)) sent.end(body);
    else body.pipe(sent);
  });
}

/** A WBXML Ping request with a heartbeat of `seconds` (MS-ASCMD 2.2.1.13). */
export const pingBody = (seconds: number) =>
  Buffer.concat([
    Buffer.from([0x03, 0x01, 0x6a, 0x00, 0x00, 0x0d, 0x45, 0x48, 0x03]),
    Buffer.from(String(seconds)),
    Buffer.from([0x00, 0x01, 0x01]),
  ]);

/** A minimal WBXML Sync request (MS-ASCMD 2.2.1.21). */
export const syncBody = () =>
  Buffer.from([0x03, 0x01, 0x6a, 0x00, 0x00, 0x00, 0x45, 0x5c, 0x4f, 0x01, 0x01, 0x01]);
