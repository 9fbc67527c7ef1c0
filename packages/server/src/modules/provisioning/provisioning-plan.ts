import type { ProvisioningAction } from '@tessera/contract';
import type { Db } from '../../db/database.ts';
import type { App } from '../../db/schema.ts';
import type { ProvisionedPerson, ProvisioningTarget } from '../../db/schema-provisioning.ts';
import { appAccessRefusal } from '../app/app-access.ts';
import { findCompanyPeople, findProvisionedPeople } from './provisioning.repo.ts';
import {
  attributesHash,
  desiredAttributes,
  type ManagedAttributes,
  type ProvisionedPersonData,
} from './scim-user.ts';

/**
 * What a run must do, worked out from the one access rule (modules/app/app-access.ts, asked for
 * each person of the company) and from what was sent last: the preview shows exactly this, and a
 * run carries it out.
 * - A person the application is given (and whose account is enabled) and who was never sent:
 *   create (the run adopts a remote account of the same userName instead of creating twice).
 * - One sent before whose attributes changed, or who was deactivated and is given the app again:
 *   update (full lifecycle only).
 * - One sent before who lost access (assignment removed or expired, disabled, removed from the
 *   company, deleted): deactivate, or delete when the administrator chose deletion (full
 *   lifecycle only; a create-only target is never told of changes).
 */

export type PlanAction = ProvisioningAction;

export interface PlanEntry {
  action: PlanAction;
  accountId: string;
  username: string;
  name: string | null;
  /** The attributes to have remotely (for deactivation: with active false). */
  wanted: ManagedAttributes;
  mapping?: ProvisionedPerson;
}

export interface Plan {
  entries: PlanEntry[];
  unchanged: number;
  /** People given the app who cannot be sent (no email to be their userName). */
  unnamed: ProvisionedPersonData[];
}

type AccessApp = Pick<App, 'id' | 'company_id' | 'status' | 'default_access'>;

export async function planProvisioning(db: Db, app: AccessApp, target: ProvisioningTarget): Promise<Plan> {
  const people = await findCompanyPeople(db, app.company_id);
  const sent = await findProvisionedPeople(db, app.id);
  const full = target.lifecycle === 'full';
  const entries: PlanEntry[] = [];
  const unnamed: ProvisionedPersonData[] = [];
  let unchanged = 0;

  const lose = (
    mapping: ProvisionedPerson,
    wanted: ManagedAttributes,
    who: { username: string; name: string | null },
  ) => {
    if (!full) return void unchanged++;
    if (target.on_loss === 'delete')
      return void entries.push({ action: 'delete', accountId: mapping.account_id, ...who, wanted, mapping });
    if (!mapping.active) return void unchanged++;
    entries.push({ action: 'deactivate', accountId: mapping.account_id, ...who, wanted, mapping });
  };

  for (const person of people) {
    const mapping = sent.get(person.accountId);
    sent.delete(person.accountId);
    const given = person.accountEnabled && (await appAccessRefusal(db, app, person.accountId)) === null;
    const who = { username: person.username, name: person.name };
    const wanted = desiredAttributes(person, target, given);
    if (!given) {
      if (mapping) lose(mapping, wanted ?? { ...mapping.sent, active: false }, who);
      continue;
    }
    if (!wanted) {
      unnamed.push(person);
      continue;
    }
    if (!mapping) entries.push({ action: 'create', accountId: person.accountId, ...who, wanted });
    else if (full && (attributesHash(wanted) !== mapping.sent_hash || !mapping.active))
      entries.push({ action: 'update', accountId: person.accountId, ...who, wanted, mapping });
    else unchanged++;
  }
  // Sent before, no longer of the company (removed or deleted): they lost access too.
  for (const mapping of sent.values())
    lose(mapping, { ...mapping.sent, active: false }, { username: mapping.user_name, name: null });
  return { entries, unchanged, unnamed };
}
