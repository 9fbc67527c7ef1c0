import type { Db } from '../../db/database.ts';
import type { ProvisioningStoredError, ProvisioningTarget } from '../../db/schema-provisioning.ts';
import { deleteProvisionedPerson, saveProvisionedPerson } from './provisioning.repo.ts';
import type { Plan, PlanEntry } from './provisioning-plan.ts';
import { type ScimCapabilities, type ScimClient, ScimFailure } from './scim-client.ts';
import { attributesHash, type ManagedAttributes, patchOperations, userResource } from './scim-user.ts';

/**
 * Carries a plan out against the target, person by person (a few at a time), recording after
 * each remote change who was sent what: a run that stops half-way (a target failing, the
 * instance stopping) leaves a record from which the next try sends only what is still missing,
 * and never creates an account twice.
 *
 * A failure of one person (409 uniqueness, another refusal) is recorded and the run goes on; a
 * failure of the target (refused address, wrong token, no answer, 5xx) stops it by throwing.
 */

export const emptyCounts = () => ({
  created: 0,
  adopted: 0,
  updated: 0,
  deactivated: 0,
  deleted: 0,
  unchanged: 0,
  failed: 0,
});
export type RunCounts = ReturnType<typeof emptyCounts>;

/** Requests to the target at once. */
const PARALLEL = 4;
/** How many people between two lease renewals. */
const HEARTBEAT_EVERY = 200;

const stoppingFailures = new Set(['refused', 'unauthorized', 'transient']);

export function personError(failure: ScimFailure, username: string): ProvisioningStoredError {
  const reason = failure.kind === 'conflict' ? 'provisioning.remote_conflict' : 'provisioning.remote_refused';
  return { reason, params: { status: failure.status ?? 0, detail: failure.detail }, username };
}

export async function carryOutPlan(deps: {
  db: Db;
  client: ScimClient;
  capabilities: ScimCapabilities;
  target: ProvisioningTarget;
  plan: Plan;
  counts: RunCounts;
  errors: ProvisioningStoredError[];
  heartbeat(): Promise<unknown>;
  signal: AbortSignal;
}) {
  const { db, client, capabilities, target, counts, errors } = deps;
  const appId = target.app_id;

  const remember = (entry: PlanEntry, remoteId: string, sent: ManagedAttributes) =>
    saveProvisionedPerson(db, {
      app_id: appId,
      account_id: entry.accountId,
      remote_id: remoteId,
      user_name: String(sent.userName),
      sent,
      sent_hash: attributesHash(sent),
      active: sent.active !== false,
    });

  /** Sends `wanted` over what the target holds (`before`): PATCH of the differences, or PUT where PATCH is not supported. */
  async function send(remoteId: string, before: ManagedAttributes, wanted: ManagedAttributes) {
    if (!capabilities.patchSupported) return client.replace(remoteId, userResource(wanted));
    const operations = patchOperations(before, wanted);
    if (operations.length) await client.patch(remoteId, operations);
  }

  async function create(entry: PlanEntry) {
    const userName = String(entry.wanted.userName);
    const existing = capabilities.filterSupported ? await client.findByUserName(userName) : undefined;
    if (existing) {
      // Adopted: what it holds is unknown, so every managed attribute is sent.
      await send(existing.id, {}, entry.wanted);
      await remember(entry, existing.id, entry.wanted);
      counts.adopted++;
      return;
    }
    const created = await client.create(userResource(entry.wanted));
    await remember(entry, created.id, entry.wanted);
    counts.created++;
  }

  async function carryOut(entry: PlanEntry) {
    const mapping = entry.mapping;
    if (entry.action === 'create') return create(entry);
    if (!mapping) return;
    if (entry.action === 'delete') {
      try {
        await client.remove(mapping.remote_id);
      } catch (error) {
        if (!(error instanceof ScimFailure && error.kind === 'gone')) throw error;
      }
      await deleteProvisionedPerson(db, appId, entry.accountId);
      counts.deleted++;
      return;
    }
    const before = mapping.sent;
    // A deactivation changes only `active`: PATCH says just that; PUT sends the rest as it was sent.
    const wanted = entry.action === 'deactivate' ? { ...before, active: false } : entry.wanted;
    try {
      await send(mapping.remote_id, before, wanted);
    } catch (error) {
      // Gone there: forget it, so that the next run creates (or adopts) it again.
      if (error instanceof ScimFailure && error.kind === 'gone')
        await deleteProvisionedPerson(db, appId, entry.accountId);
      throw error;
    }
    await remember(entry, mapping.remote_id, wanted);
    if (entry.action === 'deactivate') counts.deactivated++;
    else counts.updated++;
  }

  let next = 0;
  let done = 0;
  let stop: unknown;
  async function worker() {
    while (stop === undefined && next < deps.plan.entries.length) {
      if (deps.signal.aborted) {
        stop = new ScimFailure('transient', null, 'the server is stopping');
        return;
      }
      const entry = deps.plan.entries[next++] as PlanEntry;
      try {
        await carryOut(entry);
      } catch (error) {
        if (!(error instanceof ScimFailure) || stoppingFailures.has(error.kind)) {
          stop ??= error;
          return;
        }
        counts.failed++;
        errors.push(personError(error, entry.username));
      }
      if (++done % HEARTBEAT_EVERY === 0) await deps.heartbeat();
    }
  }
  await Promise.all(Array.from({ length: PARALLEL }, worker));
  if (stop !== undefined) throw stop;
}
