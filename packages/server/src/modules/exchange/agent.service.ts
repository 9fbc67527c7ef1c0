import { ACTIVESYNC_PATH } from '@tessera/contract';
import type { Db } from '../../db/database.ts';
import type { Sealer } from '../../lib/crypto.ts';
import { newId } from '../../lib/ids.ts';
import { type Budget, spendBudgets } from '../../lib/rate-windows.ts';
import { dummyPasswordHash, verifyPassword } from '../account/password.ts';
import {
  type AgentFailureCause,
  insertLoginEvent,
  type LoginFailureCause,
} from '../signin/login-events.repo.ts';

type Cause = LoginFailureCause | AgentFailureCause;

import {
  type ActiveSyncQuery,
  accountNameOf,
  osOfUserAgent,
  SENDING_COMMANDS,
} from './activesync-request.ts';
import * as repo from './agent.repo.ts';
import { issueDevicePassword, passwordDigitsOf } from './device-passwords.ts';
import { type DevicePolicy, policyAllows } from './device-policy.ts';
import { mayBeToken, type VerifiedPasswords } from './device-secrets.ts';
import { findCompanyByToken } from './exchange-settings.repo.ts';
import { openServicePassword } from './exchange-settings.service.ts';
import { openOwnPassword } from './own-credentials.ts';

/** The client id login events of the agent carry (the user centre names it). */
export const AGENT_CLIENT_ID = 'tessera-exchange-agent';
/** Wrong device passwords: per device (person and DeviceId) and per address, in any hour. */
export const agentBudgets = { perDevicePerHour: 20, perAddressPerHour: 300 } as const;
/** A device stays online this long after its last request (a held Ping keeps it online longer). */
export const ONLINE_GRACE_SECONDS = 300;

export interface AgentRequest {
  method: 'OPTIONS' | 'POST';
  query: ActiveSyncQuery;
  credentials: { user: string; password: string } | null;
  ip: string;
  userAgent: string | null;
}

export interface Upstream {
  /** Exchange's ActiveSync address. */
  url: string;
  /** The Authorization header for Exchange. */
  authorization: string;
  /** The User parameter for Exchange: the mailbox the request is for. */
  user: string;
}

export type AgentDecision =
  | { kind: 'forward'; upstream: Upstream; deviceRowId: string | null; longPoll: boolean }
  | { kind: 'refuse'; status: 400 | 401 | 403 | 429 };

const refuse = (status: 400 | 401 | 403 | 429): AgentDecision => ({ kind: 'refuse', status });
const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`;

/** Exchange's ActiveSync address from the configured one (with or without the path). */
export const activeSyncUrlOf = (exchangeUrl: string) =>
  exchangeUrl.toLowerCase().endsWith(ACTIVESYNC_PATH.toLowerCase())
    ? exchangeUrl
    : `${exchangeUrl}${ACTIVESYNC_PATH}`;

/**
 * The agent's decisions (issue 18): who a phone's request is, whether it may reach Exchange,
 * and with which credentials. Every decision is a login event with its cause (a request let
 * through is one when it starts a new online period, so that a phone's every sync is not).
 * The person's own password is never asked for, stored on a device or logged.
 */
export function createAgentService(deps: {
  db: Db;
  sealer: Sealer;
  verified: VerifiedPasswords;
  /** How long the agent waits for Exchange to answer a Ping (it holds it up to its heartbeat). */
  maxHoldSeconds: number;
}) {
  const { db, sealer, verified } = deps;

  function event(
    request: AgentRequest,
    fields: { companyId: string | null; accountId: string | null; deviceRowId: string | null },
    cause: Cause | null,
  ) {
    return insertLoginEvent(db, {
      companyId: fields.companyId,
      accountId: fields.accountId,
      identifier: request.credentials?.user ?? '',
      clientId: AGENT_CLIENT_ID,
      ip: request.ip,
      userAgent: request.userAgent,
      result: cause ? 'failure' : 'success',
      failureCause: cause,
      deviceId: fields.deviceRowId,
    });
  }

  /** How the agent signs in to this company's Exchange for this person; null without a usable sign-in. */
  function upstreamOf(view: repo.AgentCompanyView): Upstream | null {
    if (!view.exchange_url) return null;
    const url = activeSyncUrlOf(view.exchange_url);
    if (view.credential_mode === 'personal') {
      if (!view.own_username || !view.own_password_sealed) return null;
      const password = openOwnPassword(sealer, view.own_password_sealed);
      return { url, authorization: basic(view.own_username, password), user: view.own_username };
    }
    if (!view.service_username || !view.service_password_sealed) return null;
    const password = openServicePassword(sealer, view.service_password_sealed);
    return { url, authorization: basic(view.service_username, password), user: view.email ?? view.username };
  }

  /** The refusals that concern the company and the person, whatever the device. */
  function personRefusal(view: repo.AgentCompanyView): [403, Cause] | null {
    if (!view.enabled || !view.exchange_url) return [403, 'exchange_disabled'];
    if (view.member_status === 'locked') return [403, 'account_locked'];
    if (view.account_status !== 'enabled' || view.member_status !== 'enabled')
      return [403, 'account_disabled'];
    return null;
  }

  /** A device whose password is right: the rest of the rules, then through to Exchange. */
  async function decideForDevice(device: repo.AgentDevice, request: AgentRequest): Promise<AgentDecision> {
    const ids = { companyId: device.company_id, accountId: device.account_id, deviceRowId: device.id };
    const refusal: [400 | 401 | 403, Cause] | null =
      personRefusal(device) ??
      (device.status === 'disabled'
        ? [403, 'device_disabled']
        : device.activation !== 'active'
          ? [401, 'device_to_be_activated']
          : !policyAllows(device.policy as DevicePolicy | null)
            ? [403, 'device_blocked_by_policy']
            : device.access_permission === 'receive_only' && SENDING_COMMANDS.has(request.query.command ?? '')
              ? [403, 'device_command_not_allowed']
              : null);
    if (refusal) {
      await event(request, ids, refusal[1]);
      return refuse(refusal[0]);
    }
    const upstream = upstreamOf(device);
    if (!upstream) {
      await event(request, ids, 'exchange_credentials_missing');
      return refuse(403);
    }
    const longPoll = request.query.command === 'Ping';
    const now = Date.now();
    const storedUntil = device.online_until?.getTime() ?? 0;
    const holdSeconds = longPoll ? deps.maxHoldSeconds + ONLINE_GRACE_SECONDS : ONLINE_GRACE_SECONDS;
    // Written about once a minute while a phone is busy, and whenever a new online period starts.
    const stale =
      storedUntil < now + (holdSeconds - 60) * 1000 ||
      device.last_ip !== request.ip ||
      (request.userAgent !== null && device.user_agent !== request.userAgent);
    if (stale)
      await repo.recordTraffic(db, device.id, { ip: request.ip, userAgent: request.userAgent, holdSeconds });
    if (storedUntil < now) await event(request, ids, null);
    return { kind: 'forward', upstream, deviceRowId: device.id, longPoll };
  }

  /**
   * The company's registration token instead of a device password: an OPTIONS request of a
   * phone being set up goes through; a new device is registered (spec §4) unless the person has
   * reached the limit; a device already registered is told to use its own password.
   */
  async function decideForToken(
    companyId: string,
    name: string,
    candidates: repo.AgentDevice[],
    request: AgentRequest,
  ): Promise<AgentDecision> {
    const person = await repo.agentPerson(db, companyId, name);
    if (!person) {
      await event(request, { companyId, accountId: null, deviceRowId: null }, 'unknown_account');
      return refuse(401);
    }
    const ids = { companyId, accountId: person.account_id, deviceRowId: null };
    const refusal = personRefusal(person);
    if (refusal) {
      await event(request, ids, refusal[1]);
      return refuse(refusal[0]);
    }
    const { deviceId, deviceType } = request.query;
    if (!deviceId || !deviceType) {
      const upstream = upstreamOf(person);
      if (!upstream) {
        await event(request, ids, 'exchange_credentials_missing');
        return refuse(403);
      }
      return { kind: 'forward', upstream, deviceRowId: null, longPoll: false };
    }
    const known = candidates.find((device) => device.company_id === companyId);
    if (known) {
      const cause =
        known.status === 'disabled'
          ? 'device_disabled'
          : known.activation === 'active'
            ? 'device_password_pending'
            : 'device_to_be_activated';
      await event(request, { ...ids, deviceRowId: known.id }, cause);
      return refuse(cause === 'device_disabled' ? 403 : 401);
    }
    return register(person, request, deviceId, deviceType);
  }

  async function register(
    person: repo.AgentCompanyView,
    request: AgentRequest,
    deviceId: string,
    deviceType: string,
  ): Promise<AgentDecision> {
    const settings = await db
      .selectFrom('exchange_settings')
      .select(['activation', 'user_device_limit'])
      .where('company_id', '=', person.company_id)
      .executeTakeFirstOrThrow();
    const automatic = settings.activation === 'automatic';
    const password = automatic
      ? await issueDevicePassword(sealer, await passwordDigitsOf(db, person.company_id))
      : undefined;
    const id = newId();
    const os = osOfUserAgent(request.userAgent);
    const outcome = await repo.registerDevice(
      db,
      {
        id,
        company_id: person.company_id,
        account_id: person.account_id,
        device_id: deviceId,
        device_type: deviceType,
        name: os ? `${deviceType} (${os})` : deviceType,
        os,
        user_agent: request.userAgent?.slice(0, 512) ?? null,
        activation: automatic ? 'active' : 'to_be_activated',
        activated_at: automatic ? new Date() : null,
        last_ip: request.ip,
        last_seen_at: new Date(),
        ...(password ?? {}),
      },
      settings.user_device_limit,
    );
    const ids = { companyId: person.company_id, accountId: person.account_id };
    if (outcome === 'limit') {
      await event(request, { ...ids, deviceRowId: null }, 'device_limit');
      return refuse(403);
    }
    if (outcome === 'registered') await event(request, { ...ids, deviceRowId: id }, 'device_registered');
    // The phone must now be given its own password (shown to its person in the user centre).
    return refuse(401);
  }

  /** Budgets of wrong device passwords: the device's (as named) and the address's. */
  const budgetsOf = (name: string, request: AgentRequest): Budget[] => [
    {
      key: `eas:device:${name}:${request.query.deviceId ?? '-'}`,
      limit: agentBudgets.perDevicePerHour,
      minutes: 60,
    },
    { key: `eas:ip:${request.ip}`, limit: agentBudgets.perAddressPerHour, minutes: 60 },
  ];

  async function authorize(request: AgentRequest): Promise<AgentDecision> {
    const { credentials, query } = request;
    // A phone that sends no credentials is asked for them; that is no decision about anyone.
    if (!credentials) return refuse(401);
    if (request.method === 'POST' && (!query.command || !query.deviceId || !query.deviceType))
      return refuse(400);
    const name = accountNameOf(credentials.user);
    const { password } = credentials;
    const candidates = await repo.agentDevices(db, name, query.deviceId);
    const remembered = candidates.find(
      (device) => device.password_hash && verified.has(device.id, device.password_hash, password),
    );
    if (remembered) return decideForDevice(remembered, request);
    const tokenCompany = mayBeToken(password) ? await findCompanyByToken(db, sealer, password) : undefined;
    if (tokenCompany) return decideForToken(tokenCompany, name, candidates, request);

    const budgets = budgetsOf(name, request);
    if (!(await spendBudgets(db, budgets, 'reserve'))) {
      await event(
        request,
        { companyId: null, accountId: (await repo.accountIdNamed(db, name)) ?? null, deviceRowId: null },
        'throttled',
      );
      return refuse(429);
    }
    let matched: repo.AgentDevice | undefined;
    const withPassword = candidates.filter((device) => device.password_hash);
    for (const device of withPassword) {
      if (await verifyPassword(device.password_hash as string, password)) {
        matched = device;
        break;
      }
    }
    // As long as a wrong password, whether or not there is a device to check against.
    if (!withPassword.length) await verifyPassword(await dummyPasswordHash(), password);
    if (!matched) {
      const first = candidates[0];
      const accountId = first?.account_id ?? (await repo.accountIdNamed(db, name)) ?? null;
      const cause = withPassword.length
        ? 'device_password_wrong'
        : accountId
          ? 'device_unknown'
          : 'unknown_account';
      await event(
        request,
        { companyId: first?.company_id ?? null, accountId, deviceRowId: first?.id ?? null },
        cause,
      );
      return refuse(401);
    }
    await spendBudgets(db, budgets, 'release');
    verified.add(matched.id, matched.password_hash as string, password);
    return decideForDevice(matched, request);
  }

  /** A long request (Ping) ended: the device goes offline after the grace unless it comes back. */
  const longRequestEnded = (deviceRowId: string) =>
    repo.recordLongRequestEnd(db, deviceRowId, ONLINE_GRACE_SECONDS);

  return { authorize, longRequestEnded };
}

export type AgentService = ReturnType<typeof createAgentService>;
