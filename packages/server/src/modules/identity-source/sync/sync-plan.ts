import { createHash } from 'node:crypto';
import {
  departmentLimits,
  type SyncRowKind,
  syncRowKinds,
  USERNAME_PATTERN,
  userLimits,
} from '@tessera/contract';
import type { DirectoryPerson, DirectorySnapshot } from './snapshot.ts';
import { type DepartmentPlan, planDepartments } from './sync-plan-departments.ts';
import type { IdentifierOwner, LinkedPerson, SyncState } from './sync-state.ts';

/**
 * The sync plan: what a directory snapshot changes in the company, worked out without changing
 * anything. A preview stores it (its rows and counts); applying runs exactly its operations. It
 * depends only on the snapshot and the state, so the same snapshot against an unchanged company
 * gives the same plan (its hash), which is how an apply knows the preview still holds.
 */

export interface SyncNote {
  key: string;
  params?: Record<string, string>;
}

export interface SyncRowData {
  externalId: string;
  label: string;
  changes: { field: string; before: string | null; after: string | null }[];
  note: SyncNote | null;
}

export type ProfileSet = {
  display_name?: string | null;
  email?: string | null;
  phone?: string | null;
  username?: string;
};

export interface SyncPlan {
  departments: DepartmentPlan;
  people: {
    create: DirectoryPerson[];
    update: { accountId: string; externalId: string; set: ProfileSet }[];
    /** Department changes of linked people: source departments to add (by external id) and remove (by id). */
    move: { accountId: string; externalId: string; add: string[]; remove: string[] }[];
    disable: { accountId: string; externalId: string; why: 'gone' | 'directory_disabled' }[];
    enable: { accountId: string; externalId: string }[];
    /** The entry's DN or username changed: the link follows (no row: nothing a person would notice). */
    relink: { accountId: string; externalDn: string | null; externalName: string }[];
  };
  /** Entries whose username, email or phone an account outside the company has: counted, never listed. */
  elsewhere: Map<string, string>;
  rows: Record<SyncRowKind, SyncRowData[]>;
  counts: {
    departmentsCreated: number;
    departmentsUpdated: number;
    departmentsRemoved: number;
    created: number;
    updated: number;
    moved: number;
    disabled: number;
    enabled: number;
    unchanged: number;
    conflicts: number;
    conflictsElsewhere: number;
  };
  /** A digest of the rows: equal for equal plans. */
  hash: string;
}

/** A fingerprint of an entry's identifiers: an outside collision is counted again only when they change. */
export const identifierFingerprint = (person: Pick<DirectoryPerson, 'username' | 'email' | 'phone'>) =>
  createHash('sha256')
    .update(`${person.username.toLowerCase()}\n${person.email ?? ''}\n${person.phone ?? ''}`)
    .digest('hex');

/**
 * Who owns each identifier already: lower-case username or email (one key space: people sign
 * in with either, so a username may not be someone else's email, nor the reverse), and phone.
 */
function ownerIndex(owners: IdentifierOwner[]) {
  const index = new Map<string, IdentifierOwner>();
  for (const owner of owners) {
    index.set(`n:${owner.username.toLowerCase()}`, owner);
    if (owner.email) index.set(`n:${owner.email.toLowerCase()}`, owner);
    if (owner.phone) index.set(`p:${owner.phone}`, owner);
  }
  return index;
}

type IdentifierField = 'username' | 'email' | 'phone';
function identifierKeys(values: { username?: string; email?: string | null; phone?: string | null }) {
  const keys: [IdentifierField, string][] = [];
  if (values.username) keys.push(['username', `n:${values.username.toLowerCase()}`]);
  if (values.email) keys.push(['email', `n:${values.email.toLowerCase()}`]);
  if (values.phone) keys.push(['phone', `p:${values.phone}`]);
  return keys;
}

export function planSync(input: {
  snapshot: DirectorySnapshot;
  state: SyncState;
  owners: IdentifierOwner[];
}): SyncPlan {
  const { snapshot, state } = input;
  const rows = Object.fromEntries(
    syncRowKinds.map((kind) => [kind, [] as SyncRowData[]]),
  ) as SyncPlan['rows'];
  const departments = planDepartments(snapshot, state, departmentLimits.maxDepth);
  const deptName = (externalId: string) => departments.names.get(externalId) ?? externalId;
  const idName = (id: string) => state.departments.get(id)?.name ?? id;
  const people: SyncPlan['people'] = {
    create: [],
    update: [],
    move: [],
    disable: [],
    enable: [],
    relink: [],
  };
  const elsewhere = new Map<string, string>();
  const owners = ownerIndex(input.owners);
  /** Identifiers this run gives to someone (two entries may not get the same). */
  const claimed = new Map<string, string>();
  let unchanged = 0;

  const conflict = (person: { externalId: string | null; label: string }, note: SyncNote) =>
    rows.conflict.push({ externalId: person.externalId ?? '', label: person.label, changes: [], note });
  for (const skipped of snapshot.skipped)
    conflict(skipped, { key: skipped.reason === 'duplicate' ? 'duplicate_id' : 'missing_attribute' });

  /** The first identifier of `values` that someone else has: a row in the company, a count outside it. */
  const collision = (
    person: DirectoryPerson,
    values: Parameters<typeof identifierKeys>[0],
    self?: string,
  ) => {
    for (const [field, key] of identifierKeys(values)) {
      const taker = claimed.get(key);
      if (taker && taker !== person.externalId) return { where: 'directory' as const, field };
      const owner = owners.get(key);
      if (owner && owner.id !== self)
        return { where: owner.inCompany ? ('company' as const) : ('elsewhere' as const), field };
    }
    return undefined;
  };
  const claim = (person: DirectoryPerson, values: Parameters<typeof identifierKeys>[0]) => {
    for (const [, key] of identifierKeys(values)) claimed.set(key, person.externalId);
  };
  const noteOf = (where: 'directory' | 'company', field: string, username: string): SyncNote => ({
    key: where === 'directory' ? 'duplicate_in_directory' : 'taken_in_company',
    params: { field, username },
  });

  const sorted = [...snapshot.people].sort((a, b) => a.externalId.localeCompare(b.externalId));
  const inSnapshot = new Set(sorted.map((p) => p.externalId));

  for (const person of sorted) {
    const link = state.links.get(person.externalId);
    if (!link) {
      if (person.disabled) continue;
      if (!USERNAME_PATTERN.test(person.username) || person.username.length > userLimits.usernameMax) {
        conflict(
          { externalId: person.externalId, label: person.username },
          { key: 'invalid_username', params: { username: person.username } },
        );
        continue;
      }
      const hit = collision(person, person);
      if (hit?.where === 'elsewhere') {
        elsewhere.set(person.externalId, identifierFingerprint(person));
        continue;
      }
      if (hit) {
        conflict(
          { externalId: person.externalId, label: person.username },
          noteOf(hit.where, hit.field, person.username),
        );
        continue;
      }
      claim(person, person);
      people.create.push(person);
      rows.created.push({
        externalId: person.externalId,
        label: person.username,
        changes: [
          { field: 'name', before: null, after: person.name },
          { field: 'email', before: null, after: person.email },
          { field: 'phone', before: null, after: person.phone },
          {
            field: 'departments',
            before: null,
            after: person.departmentExternalIds.map(deptName).join(', ') || null,
          },
        ],
        note: null,
      });
      continue;
    }
    if (planLinkedPerson(person, link)) continue;
    unchanged += 1;
  }

  /** A linked person still in the directory: profile, departments, status, link; true when anything changes. */
  function planLinkedPerson(person: DirectoryPerson, link: LinkedPerson): boolean {
    let changed = false;
    if (link.fullyManaged) {
      const set: ProfileSet = {};
      const changes: SyncRowData['changes'] = [];
      const compare = (
        field: 'name' | 'email' | 'phone' | 'username',
        before: string | null,
        after: string | null,
      ) => {
        if ((before ?? null) === (after ?? null)) return;
        if (field === 'username' && (!after || !USERNAME_PATTERN.test(after))) return;
        changes.push({ field, before, after });
        if (field === 'name') set.display_name = after;
        else if (field === 'username') set.username = after as string;
        else set[field] = after;
      };
      compare('username', link.username, person.username);
      compare('name', link.name, person.name);
      compare('email', link.email, person.email);
      compare('phone', link.phone, person.phone);
      const identifiers = { username: set.username, email: set.email, phone: set.phone };
      const hit = collision(person, identifiers, link.accountId);
      if (hit?.where === 'elsewhere') elsewhere.set(person.externalId, identifierFingerprint(person));
      else if (hit)
        conflict(
          { externalId: person.externalId, label: link.username },
          noteOf(hit.where, hit.field, link.username),
        );
      else if (changes.length) {
        claim(person, identifiers);
        people.update.push({ accountId: link.accountId, externalId: person.externalId, set });
        rows.updated.push({ externalId: person.externalId, label: link.username, changes, note: null });
        changed = true;
      }
    }
    const wanted = new Set(person.departmentExternalIds);
    const currentIds = new Set(link.sourceDepartmentIds);
    const add = [...wanted].filter((ext) => {
      const id = state.sourceDepartments.get(ext);
      return !id || !currentIds.has(id);
    });
    const wantedIds = new Set([...wanted].map((ext) => state.sourceDepartments.get(ext)).filter(Boolean));
    const remove = [...currentIds].filter((id) => !wantedIds.has(id));
    if (add.length || remove.length) {
      people.move.push({ accountId: link.accountId, externalId: person.externalId, add, remove });
      departments.removedMembers(remove);
      rows.moved.push({
        externalId: person.externalId,
        label: link.username,
        changes: [
          {
            field: 'departments',
            before: [...currentIds].map(idName).sort().join(', ') || null,
            after: [...wanted].map(deptName).sort().join(', ') || null,
          },
        ],
        note: null,
      });
      changed = true;
    }
    if (person.disabled && link.recordStatus === 'enabled')
      changed = planDisable(link, 'directory_disabled') || changed;
    else if (!person.disabled && link.recordStatus === 'disabled' && link.disabledBySync) {
      people.enable.push({ accountId: link.accountId, externalId: link.externalId });
      rows.enabled.push({ externalId: link.externalId, label: link.username, changes: [], note: null });
      changed = true;
    }
    if ((person.dn ?? null) !== link.externalDn || person.username !== link.externalName)
      people.relink.push({ accountId: link.accountId, externalDn: person.dn, externalName: person.username });
    return changed;
  }

  function planDisable(link: LinkedPerson, why: 'gone' | 'directory_disabled'): boolean {
    if (link.role === 'owner') {
      conflict({ externalId: link.externalId, label: link.username }, { key: 'owner_protected' });
      return false;
    }
    people.disable.push({ accountId: link.accountId, externalId: link.externalId, why });
    rows.disabled.push({
      externalId: link.externalId,
      label: link.username,
      changes: [],
      note: { key: why },
    });
    return true;
  }

  for (const link of [...state.links.values()].sort((a, b) => a.externalId.localeCompare(b.externalId))) {
    if (inSnapshot.has(link.externalId)) continue;
    if (link.recordStatus === 'enabled' && planDisable(link, 'gone')) continue;
    unchanged += 1;
  }

  departments.finish(rows, idName);
  const counts = {
    departmentsCreated: rows.department_created.length,
    departmentsUpdated: rows.department_updated.length,
    departmentsRemoved: departments.remove.length,
    created: rows.created.length,
    updated: rows.updated.length,
    moved: rows.moved.length,
    disabled: rows.disabled.length,
    enabled: rows.enabled.length,
    unchanged,
    conflicts: rows.conflict.length,
    conflictsElsewhere: elsewhere.size,
  };
  const hash = createHash('sha256')
    .update(JSON.stringify({ rows, elsewhere: [...elsewhere.keys()] }))
    .digest('hex');
  return { departments, people, elsewhere, rows, counts, hash };
}
