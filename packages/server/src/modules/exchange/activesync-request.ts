/**
 * What an ActiveSync request says about itself (MS-ASHTTP 2.2.1.1.1): the command, the device
 * (DeviceId, DeviceType) and the user, from the plain query (`Cmd=Sync&User=…&DeviceId=…`) or
 * the base64-encoded query (a byte sequence: protocol version, command code, locale, device id,
 * policy key, device type, then tag-length-value command parameters). The agent rewrites the
 * User parameter for Exchange in whichever form the phone used.
 */

/** MS-ASHTTP 2.2.1.1.1.1.2: command codes of the base64 form. */
const commandCodes: Record<number, string> = {
  0: 'Sync',
  1: 'SendMail',
  2: 'SmartForward',
  3: 'SmartReply',
  4: 'GetAttachment',
  5: 'GetHierarchy',
  6: 'CreateCollection',
  7: 'DeleteCollection',
  8: 'MoveCollection',
  9: 'FolderSync',
  10: 'FolderCreate',
  11: 'FolderDelete',
  12: 'FolderUpdate',
  13: 'MoveItems',
  14: 'GetItemEstimate',
  15: 'MeetingResponse',
  16: 'Search',
  17: 'Settings',
  18: 'Ping',
  19: 'ItemOperations',
  20: 'Provision',
  21: 'ResolveRecipients',
  22: 'ValidateCert',
};
const knownCommands = new Set(Object.values(commandCodes));
/** MS-ASHTTP 2.2.1.1.1.1.3: the tag of the User command parameter. */
const USER_TAG = 8;
const MAX_ID = 64;
const MAX_USER = 254;

/** Commands that send mail: a device with access permission `receive_only` may not use them. */
export const SENDING_COMMANDS = new Set(['SendMail', 'SmartForward', 'SmartReply']);

export interface ActiveSyncQuery {
  /** The command (`Sync`, `Ping`...), or null when the query names none (OPTIONS). */
  command: string | null;
  deviceId: string | null;
  deviceType: string | null;
  /** The User parameter as the phone sent it (for the log only: the Basic credentials decide). */
  user: string | null;
  protocolVersion: string | null;
  /** The query for Exchange, with the User parameter set to `user`. */
  forwardQuery(user: string): string;
}

export type ParsedQuery = { ok: true; query: ActiveSyncQuery } | { ok: false; problem: string };

/** Printable ASCII without spaces (DeviceId and DeviceType are short identifiers). */
const isIdentifier = (value: string) => value.length > 0 && value.length <= MAX_ID && /^[!-~]+$/.test(value);

function parsePlain(raw: string): ParsedQuery {
  const params = new URLSearchParams(raw);
  const value = (name: string) => {
    const found = params.get(name);
    return found === null || found === '' ? null : found;
  };
  const command = value('Cmd');
  const deviceId = value('DeviceId');
  const deviceType = value('DeviceType');
  const user = value('User');
  if (command !== null && !knownCommands.has(command)) return { ok: false, problem: 'unknown command' };
  if (deviceId !== null && !isIdentifier(deviceId)) return { ok: false, problem: 'bad DeviceId' };
  if (deviceType !== null && !isIdentifier(deviceType)) return { ok: false, problem: 'bad DeviceType' };
  if (user !== null && user.length > MAX_USER) return { ok: false, problem: 'bad User' };
  return {
    ok: true,
    query: {
      command,
      deviceId,
      deviceType,
      user,
      protocolVersion: null,
      forwardQuery(forwardUser) {
        const copy = new URLSearchParams(params);
        copy.set('User', forwardUser);
        return copy.toString();
      },
    },
  };
}

/** A field of the byte sequence: ASCII when printable, else upper-case hex (older clients sent binary GUIDs). */
const textOf = (bytes: Buffer) =>
  /^[!-~]*$/.test(bytes.toString('latin1')) ? bytes.toString('latin1') : bytes.toString('hex').toUpperCase();

function parseBase64(raw: string): ParsedQuery {
  let text: string;
  try {
    text = decodeURIComponent(raw);
  } catch {
    return { ok: false, problem: 'bad encoding' };
  }
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(text) || text.length > 4096) return { ok: false, problem: 'not base64' };
  const bytes = Buffer.from(text, 'base64');
  let at = 0;
  const take = (length: number) => {
    if (at + length > bytes.length) throw new RangeError('short');
    const part = bytes.subarray(at, at + length);
    at += length;
    return part;
  };
  try {
    const version = take(1)[0] as number;
    const code = take(1)[0] as number;
    take(2); // locale
    const deviceIdBytes = take(take(1)[0] as number);
    const policyKeyLength = take(1)[0] as number;
    take(policyKeyLength);
    const deviceTypeBytes = take(take(1)[0] as number);
    const head = bytes.subarray(0, at);
    const params: { tag: number; value: Buffer }[] = [];
    while (at < bytes.length) {
      const tag = take(1)[0] as number;
      params.push({ tag, value: take(take(1)[0] as number) });
    }
    const command = commandCodes[code];
    if (!command) return { ok: false, problem: 'unknown command' };
    const deviceId = textOf(deviceIdBytes);
    const deviceType = deviceTypeBytes.toString('latin1');
    if (!isIdentifier(deviceId) || !isIdentifier(deviceType)) return { ok: false, problem: 'bad device' };
    const userParam = params.find((param) => param.tag === USER_TAG);
    return {
      ok: true,
      query: {
        command,
        deviceId,
        deviceType,
        user: userParam ? userParam.value.toString('utf8') : null,
        protocolVersion: `${Math.floor(version / 10)}.${version % 10}`,
        forwardQuery(forwardUser) {
          const user = Buffer.from(forwardUser, 'utf8').subarray(0, 255);
          const rest = params
            .filter((param) => param.tag !== USER_TAG)
            .map((param) => Buffer.concat([Buffer.from([param.tag, param.value.length]), param.value]));
          return Buffer.concat([head, ...rest, Buffer.from([USER_TAG, user.length]), user]).toString(
            'base64',
          );
        },
      },
    };
  } catch {
    return { ok: false, problem: 'truncated' };
  }
}

/** Parses the query string of a request to the ActiveSync path (without the `?`). */
export function parseActiveSyncQuery(raw: string): ParsedQuery {
  if (raw === '') {
    return {
      ok: true,
      query: {
        command: null,
        deviceId: null,
        deviceType: null,
        user: null,
        protocolVersion: null,
        forwardQuery: () => '',
      },
    };
  }
  // The plain form always has name=value pairs; the base64 form is one token (padding aside).
  return /^[A-Za-z]+=[^=]/.test(raw) || raw.includes('&') ? parsePlain(raw) : parseBase64(raw);
}

/** The user name of Basic credentials without a Windows domain (`CORP\alice` → `alice`), lower case. */
export const accountNameOf = (user: string) => {
  const slash = user.lastIndexOf('\\');
  return (slash >= 0 ? user.slice(slash + 1) : user).trim().toLowerCase();
};

/** HTTP Basic credentials, or null when the header is absent or not Basic. */
export function basicCredentials(header: string | undefined): { user: string; password: string } | null {
  if (!header || !/^basic /i.test(header)) return null;
  const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return null;
  const user = decoded.slice(0, colon);
  const password = decoded.slice(colon + 1);
  if (user.length > MAX_USER || password.length > 256) return null;
  return { user, password };
}

/** The operating system a phone's User-Agent names (spec §3 Device), when it names one. */
export function osOfUserAgent(userAgent: string | null): string | null {
  const ua = userAgent ?? '';
  if (/^Apple-iPad|iPadOS/i.test(ua)) return 'iPadOS';
  if (/^Apple-(iPhone|iPod)|iOS|iPhone/i.test(ua)) return 'iOS';
  if (/Android/i.test(ua)) return 'Android';
  if (/HarmonyOS|OpenHarmony/i.test(ua)) return 'HarmonyOS';
  if (/MSFT-WP|Windows Phone/i.test(ua)) return 'Windows Phone';
  if (/Windows/i.test(ua)) return 'Windows';
  if (/Macintosh|Mac OS|macOS/i.test(ua)) return 'macOS';
  return null;
}
