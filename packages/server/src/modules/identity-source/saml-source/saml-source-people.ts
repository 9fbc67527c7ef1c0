import { randomBytes } from 'node:crypto';
import type { Db } from '../../../db/database.ts';
import type { QuotaService } from '../../license/quota.service.ts';
import type { SamlSettings } from '../identity-source.repo.ts';
import { findLinkByExternalId, updateLinkNames } from '../identity-source.repo.ts';
import { usernameFromLogin } from '../scan/contacts.ts';
import { cleanEmail, cleanPhone, cleanText } from '../sync/snapshot.ts';
import { createLinkedPeople } from '../sync/sync-apply.ts';
import { findIdentifierOwners } from '../sync/sync-state.ts';
import type { VerifiedAssertion } from './saml-source-protocol.ts';

/**
 * Who a verified assertion is: the person linked to its NameID in the source, or, when none is
 * and the source's first sign-in setting is "create", a new person of the company (as after a
 * first scan: fully managed, no password). A new person joins the company's departments whose
 * names are among the upstream's groups.
 */

/**
 * Who the upstream says signed in: the shape of the OpenID Connect source's UpstreamIdentity
 * (identity-source/upstream, issue 33), so that both kinds can share one finish.
 */
export interface UpstreamPerson {
  externalId: string;
  /** Empty when the attribute gives nothing usable: a new person then gets a generated username. */
  username: string;
  name: string | null;
  email: string | null;
  phone: string | null;
  groups: string[];
  /** The upstream's authentication context is one the source counts as a second factor. */
  upstreamMfa: boolean;
}

/** The person an assertion describes, by the source's attribute names. */
export function personOf(settings: SamlSettings, assertion: VerifiedAssertion): UpstreamPerson {
  const first = (name: string | null | undefined) =>
    name ? (assertion.attributes[name]?.[0] ?? null) : null;
  const username = first(settings.usernameAttribute) ?? assertion.nameId;
  return {
    externalId: assertion.nameId,
    username: usernameFromLogin(username),
    name: cleanText(first(settings.nameAttribute)),
    email: cleanEmail(first(settings.emailAttribute)),
    phone: cleanPhone(first(settings.phoneAttribute)),
    groups: settings.groupsAttribute
      ? (assertion.attributes[settings.groupsAttribute] ?? []).slice(0, 100)
      : [],
    upstreamMfa: Boolean(assertion.authnContext && settings.mfaContexts.includes(assertion.authnContext)),
  };
}

async function freeUsername(db: Db, companyId: string, person: UpstreamPerson) {
  const candidates = [
    ...(person.username ? [person.username] : []),
    ...Array.from({ length: 3 }, () => `saml-${randomBytes(5).toString('hex')}`),
  ];
  const owners = await findIdentifierOwners(db, companyId, { usernames: candidates, emails: [], phones: [] });
  const taken = new Set(owners.map((o) => o.username.toLowerCase()));
  return candidates.find((candidate) => !taken.has(candidate.toLowerCase()));
}

/** The company's departments named as the groups: external id (the group) → department. */
async function departmentsOfGroups(db: Db, companyId: string, groups: string[]) {
  if (!groups.length) return new Map<string, string>();
  const rows = await db
    .selectFrom('departments')
    .select(['id', 'name'])
    .where('company_id', '=', companyId)
    .where('name', 'in', groups)
    .execute();
  return new Map(rows.map((row) => [row.name, row.id]));
}

export async function samlPerson(
  deps: { db: Db; quotas: Pick<QuotaService, 'takePlaces'> },
  source: { id: string; company_id: string; settings: SamlSettings },
  person: UpstreamPerson,
): Promise<{ accountId: string } | 'not_linked' | 'conflict'> {
  const { db } = deps;
  const link = await findLinkByExternalId(db, source.id, person.externalId);
  if (link) return { accountId: link.account_id };
  if (source.settings.firstSignIn !== 'create') return 'not_linked';
  const username = await freeUsername(db, source.company_id, person);
  if (!username) return 'conflict';
  const owners = await findIdentifierOwners(db, source.company_id, {
    usernames: [],
    emails: person.email ? [person.email] : [],
    phones: person.phone ? [person.phone] : [],
  });
  try {
    await createLinkedPeople(
      { db, quotas: deps.quotas, companyId: source.company_id, sourceId: source.id },
      [
        {
          externalId: person.externalId,
          username,
          name: person.name,
          // Someone else's email or phone is left out rather than refusing the person.
          email: owners.some((o) => o.email === person.email) ? null : person.email,
          phone: owners.some((o) => o.phone === person.phone) ? null : person.phone,
          dn: null,
          departmentExternalIds: person.groups,
          disabled: false,
        },
      ],
      await departmentsOfGroups(db, source.company_id, person.groups),
    );
  } catch {
    return 'conflict';
  }
  const created = await findLinkByExternalId(db, source.id, person.externalId);
  if (!created) return 'conflict';
  await updateLinkNames(db, source.id, created.account_id, { external_name: person.name ?? person.username });
  return { accountId: created.account_id };
}
