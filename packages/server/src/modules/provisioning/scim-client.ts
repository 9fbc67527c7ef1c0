import type { OutboundPolicy } from '../../lib/outbound-address.ts';

/**
 * The SCIM 2.0 client of an application's target (RFC 7644): every request goes through the
 * outbound-address rule (`outbound.fetch` judges the resolved address at each connection) and
 * carries the bearer token in its Authorization header only: no message, error or log line made
 * here holds the token.
 */

export const SCIM_JSON = 'application/scim+json';
export const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

/** How a failed request counts for the run. */
export type ScimFailureKind =
  /** The outbound rule refused the address: the whole run stops, no retry helps. */
  | 'refused'
  /** 401/403: the token is wrong; the whole run stops. */
  | 'unauthorized'
  /** No answer, or 429/5xx: the run stops and its job is retried with back-off. */
  | 'transient'
  /** 409: the target holds a conflicting account (this person only). */
  | 'conflict'
  /** 404 for a remote id we hold: the account is gone there. */
  | 'gone'
  /** Any other 4xx: the target refused this person's account. */
  | 'rejected';

export class ScimFailure extends Error {
  constructor(
    readonly kind: ScimFailureKind,
    readonly status: number | null,
    readonly detail: string,
    /** For `refused`: the outbound rule's error (address, network to ask for). */
    override readonly cause?: unknown,
  ) {
    super(`SCIM ${kind}${status ? ` (HTTP ${status})` : ''}: ${detail}`);
  }
}

export interface ScimTarget {
  baseUrl: string;
  token: string;
}

export interface ScimCapabilities {
  patchSupported: boolean;
  filterSupported: boolean;
}

export interface RemoteUser {
  id: string;
  userName?: string;
  [attribute: string]: unknown;
}

export type PatchOperation = { op: 'replace'; path: string; value: unknown } | { op: 'remove'; path: string };

const TIMEOUT_MS = 15_000;
const DETAIL_MAX = 300;

function kindOfStatus(status: number): ScimFailureKind {
  if (status === 401 || status === 403) return 'unauthorized';
  if (status === 429 || status >= 500) return 'transient';
  if (status === 409) return 'conflict';
  if (status === 404) return 'gone';
  return 'rejected';
}

/** The `detail` of a SCIM error answer, or the start of whatever came. */
function detailOf(body: string): string {
  try {
    const parsed = JSON.parse(body) as { detail?: unknown; scimType?: unknown };
    if (typeof parsed.detail === 'string')
      return (parsed.scimType ? `${parsed.scimType}: ` : '') + parsed.detail.slice(0, DETAIL_MAX);
  } catch {}
  return body.slice(0, DETAIL_MAX).trim() || 'no detail';
}

export function createScimClient(outbound: Pick<OutboundPolicy, 'fetch'>, target: ScimTarget) {
  const base = target.baseUrl.replace(/\/+$/, '');

  async function request(method: string, path: string, body?: unknown): Promise<unknown> {
    let response: Response;
    try {
      response = await outbound.fetch(`${base}${path}`, {
        method,
        headers: {
          accept: `${SCIM_JSON}, application/json`,
          authorization: `Bearer ${target.token}`,
          ...(body === undefined ? {} : { 'content-type': SCIM_JSON }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        redirect: 'manual',
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === 'EADDRREFUSED') throw new ScimFailure('refused', null, 'address refused', error);
      const cause = (error as { cause?: { code?: string; address?: string } }).cause;
      if (cause?.code === 'EADDRREFUSED') throw new ScimFailure('refused', null, 'address refused', cause);
      const name = (error as Error).name;
      const what = name === 'TimeoutError' ? `no answer in ${TIMEOUT_MS} ms` : (cause?.code ?? code ?? name);
      throw new ScimFailure('transient', null, what);
    }
    const text = await response.text();
    if (response.status >= 300)
      throw new ScimFailure(kindOfStatus(response.status), response.status, detailOf(text));
    if (!text) return null;
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new ScimFailure('transient', response.status, 'the answer is not JSON');
    }
  }

  const userPath = (id: string) => `/Users/${encodeURIComponent(id)}`;

  return {
    /** What the target supports (RFC 7643 §5); a target that does not say supports PATCH and filters. */
    async capabilities(): Promise<ScimCapabilities> {
      const config = (await request('GET', '/ServiceProviderConfig')) as {
        patch?: { supported?: boolean };
        filter?: { supported?: boolean };
      } | null;
      return {
        patchSupported: config?.patch?.supported !== false,
        filterSupported: config?.filter?.supported !== false,
      };
    },
    /** Reads one page of Users: the token is checked even where ServiceProviderConfig is open to all. */
    async probeUsers(): Promise<void> {
      await request('GET', '/Users?startIndex=1&count=1');
    },
    async findByUserName(userName: string): Promise<RemoteUser | undefined> {
      const filter = `userName eq "${userName.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
      const page = (await request('GET', `/Users?filter=${encodeURIComponent(filter)}`)) as {
        Resources?: RemoteUser[];
      } | null;
      return page?.Resources?.[0];
    },
    async create(user: Record<string, unknown>): Promise<RemoteUser> {
      const created = (await request('POST', '/Users', user)) as RemoteUser | null;
      if (!created?.id) throw new ScimFailure('rejected', 201, 'the created account has no id');
      return created;
    },
    async patch(id: string, operations: PatchOperation[]): Promise<void> {
      await request('PATCH', userPath(id), { schemas: [PATCH_OP], Operations: operations });
    },
    async replace(id: string, user: Record<string, unknown>): Promise<void> {
      await request('PUT', userPath(id), { ...user, id });
    },
    async remove(id: string): Promise<void> {
      await request('DELETE', userPath(id));
    },
  };
}

export type ScimClient = ReturnType<typeof createScimClient>;
