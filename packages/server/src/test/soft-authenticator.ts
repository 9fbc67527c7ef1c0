import { createHash, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { csrfOf, decodeEntities } from './browser-flow.ts';

type Cbor = number | string | Uint8Array | Map<number | string, Cbor> | { [key: string]: Cbor };
function cbor(value: Cbor): Buffer {
  const head = (major: number, n: number) => {
    if (n < 24) return Buffer.from([(major << 5) | n]);
    if (n < 256) return Buffer.from([(major << 5) | 24, n]);
    if (n < 65_536) return Buffer.from([(major << 5) | 25, n >> 8, n & 0xff]);
    const b = Buffer.alloc(5);
    b[0] = (major << 5) | 26;
    b.writeUInt32BE(n, 1);
    return b;
  };
  if (typeof value === 'number') return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (typeof value === 'string') {
    const bytes = Buffer.from(value, 'utf8');
    return Buffer.concat([head(3, bytes.length), bytes]);
  }
  if (value instanceof Uint8Array) return Buffer.concat([head(2, value.length), value]);
  const entries = value instanceof Map ? [...value] : Object.entries(value);
  return Buffer.concat([head(5, entries.length), ...entries.flatMap(([k, v]) => [cbor(k), cbor(v)])]);
}

export const UP = 0x01;
const UV = 0x04;
const AT = 0x40;
export const b64url = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');
const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest();

/**
 * A software authenticator for tests: an ES256 key, attestation 'none', the CBOR made by hand.
 * `create` answers registration options and `get` authentication options as a browser's
 * `navigator.credentials` would (their JSON, as @simplewebauthn/browser sends it).
 */
export class SoftAuthenticator {
  readonly credentialId = randomBytes(16);
  readonly keys = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  counter = 0;
  userHandle = '';

  private cosePublicKey() {
    const jwk = this.keys.publicKey.export({ format: 'jwk' });
    return cbor(
      new Map<number, Cbor>([
        [1, 2], // kty: EC2
        [3, -7], // alg: ES256
        [-1, 1], // crv: P-256
        [-2, Buffer.from(jwk.x!, 'base64url')],
        [-3, Buffer.from(jwk.y!, 'base64url')],
      ]),
    );
  }

  private authData(rpId: string, flags: number, counter: number, attested: boolean) {
    const count = Buffer.alloc(4);
    count.writeUInt32BE(counter);
    const parts: Buffer[] = [sha256(rpId), Buffer.from([flags]), count];
    if (attested) {
      const length = Buffer.alloc(2);
      length.writeUInt16BE(this.credentialId.length);
      parts.push(Buffer.alloc(16), length, this.credentialId, this.cosePublicKey());
    }
    return Buffer.concat(parts);
  }

  create(options: { challenge: string; rp: { id?: string }; user: { id: string } }, origin: string) {
    this.userHandle = options.user.id;
    const clientDataJSON = Buffer.from(
      JSON.stringify({ type: 'webauthn.create', challenge: options.challenge, origin, crossOrigin: false }),
    );
    const authData = this.authData(options.rp.id ?? '', UP | UV | AT, this.counter, true);
    const attestationObject = cbor({ fmt: 'none', attStmt: {}, authData });
    return {
      id: b64url(this.credentialId),
      rawId: b64url(this.credentialId),
      type: 'public-key',
      clientExtensionResults: {},
      response: {
        clientDataJSON: b64url(clientDataJSON),
        attestationObject: b64url(attestationObject),
        transports: ['internal'],
      },
    };
  }

  get(
    options: { challenge: string; rpId?: string },
    origin: string,
    opts: { counter?: number; flags?: number } = {},
  ) {
    this.counter = opts.counter ?? this.counter + 1;
    const clientDataJSON = Buffer.from(
      JSON.stringify({ type: 'webauthn.get', challenge: options.challenge, origin, crossOrigin: false }),
    );
    const authData = this.authData(options.rpId ?? '', opts.flags ?? UP | UV, this.counter, false);
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), this.keys.privateKey);
    return {
      id: b64url(this.credentialId),
      rawId: b64url(this.credentialId),
      type: 'public-key',
      clientExtensionResults: {},
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
        userHandle: this.userHandle,
      },
    };
  }
}

/** The passkey form of a page: its action, CSRF token and options. */
export function passkeyFormOf(html: string) {
  const form =
    /<form method="post" action="([^"]+)" class="passkey-form" data-webauthn="(create|get)" data-options="([^"]+)">([\s\S]*?)<\/form>/.exec(
      html,
    );
  if (!form) throw new Error(`no passkey form in ${html.slice(0, 2000)}`);
  return {
    action: decodeEntities(form[1]!),
    mode: form[2],
    options: JSON.parse(decodeEntities(form[3]!)),
    csrf: csrfOf(form[4]!),
  };
}
