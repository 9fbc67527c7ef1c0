import type { Db } from '../../db/database.ts';
import { createTaggedCache } from '../../lib/tagged-cache.ts';
import { type AgentDevice, agentDevices } from './agent.repo.ts';

/** Where the database announces every change the agent's answers depend on (migration 22). */
export const EXCHANGE_CHANNEL = 'tessera_exchange';
/** A backstop: a remembered device is read again after this long even if no notice came. */
const MAX_AGE_MS = 60_000;

/**
 * The devices a phone's request can be, by the name it signs in with and its DeviceId, kept in
 * memory between its requests. Database triggers announce every change that can alter a
 * decision on EXCHANGE_CHANNEL, whichever code path or instance made it (the person's status
 * and names, their memberships, devices and own Exchange sign-in; the company's settings):
 * the embedded database delivers the notice before the changing statement returns, PostgreSQL
 * to every instance right after the commit. The agent's own traffic writes forget at once.
 * Requests without a DeviceId (OPTIONS) and names with no device are always read.
 */
export function createAgentDeviceCache(db: Db, options: { max?: number } = {}) {
  const cache = createTaggedCache<AgentDevice[]>({
    maxAgeMs: MAX_AGE_MS,
    max: options.max ?? 20_000,
    tagsOf: (rows) =>
      rows.length === 0
        ? []
        : [
            ...new Set(rows.flatMap((row) => [`a:${row.account_id}`, `c:${row.company_id}`, `d:${row.id}`])),
            `p:${rows[0]?.device_id}`,
          ],
  });
  return {
    devices(name: string, deviceId: string | null): AgentDevice[] | Promise<AgentDevice[]> {
      if (deviceId === null) return agentDevices(db, name, null);
      return cache.read(`${name}\n${deviceId}`, () => agentDevices(db, name, deviceId));
    },
    /** A notice of EXCHANGE_CHANNEL (`a:<account>`, `c:<company>`, `p:<DeviceId>`). */
    onNotice: (payload: string) => cache.forget(payload),
    /** The agent wrote a device itself: read it again next time. */
    deviceChanged: (deviceRowId: string) => cache.forget(`d:${deviceRowId}`),
    size: cache.size,
  };
}

export type AgentDeviceCache = ReturnType<typeof createAgentDeviceCache>;
