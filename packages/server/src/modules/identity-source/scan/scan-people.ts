import { randomBytes } from 'node:crypto';
import type { Db } from '../../../db/database.ts';
import type { QuotaService } from '../../license/quota.service.ts';
import type * as repo from '../identity-source.repo.ts';
import { findLinkByExternalId, updateLinkNames } from '../identity-source.repo.ts';
import { createLinkedPeople } from '../sync/sync-apply.ts';
import { findIdentifierOwners, ownsSignInName } from '../sync/sync-state.ts';
import { usernameFromLogin } from './contacts.ts';
import type { ScanIdentity } from './providers.ts';

/**
 * Who a scan (or an upstream sign-in: OpenID Connect, SAML) is: the person linked to the
 * provider's stable id in the source, or, when none is and the source's first-sign-in setting
 * is "create", a new person of the company (fully managed, no password: they sign in there, or
 * get a password from an administrator). An upstream source's groups place the person in
 * departments at every sign-in, new person or not (upstream/upstream-groups.ts).
 */

const prefix: Record<repo.AnySource['type'], string> = {
  dingtalk: 'dingtalk',
  weixin: 'wechat',
  work_weixin: 'wecom',
  ldap: 'ldap',
  oidc: 'oidc',
  saml: 'saml',
};

/** A username nobody has: the WeCom userid when it is free, else the provider's name and a random tail. */
async function freeUsername(db: Db, companyId: string, type: repo.AnySource['type'], identity: ScanIdentity) {
  const login = identity.login ? usernameFromLogin(identity.login) : '';
  const candidates = [
    ...(login ? [login] : []),
    ...Array.from({ length: 3 }, () => `${prefix[type]}-${randomBytes(5).toString('hex')}`),
  ];
  const owners = await findIdentifierOwners(db, companyId, { usernames: candidates, emails: [], phones: [] });
  return candidates.find((candidate) => !owners.some((o) => ownsSignInName(o, candidate)));
}

export async function scanPerson(
  deps: { db: Db; quotas: Pick<QuotaService, 'takePlaces'> },
  source: Pick<repo.AnySource, 'id' | 'company_id' | 'type' | 'settings'>,
  identity: ScanIdentity,
): Promise<{ accountId: string } | 'not_linked' | 'conflict'> {
  const { db } = deps;
  const link = await findLinkByExternalId(db, source.id, identity.externalId);
  if (link) return { accountId: link.account_id };
  if ((source.settings as { firstScan: string }).firstScan !== 'create') return 'not_linked';
  const username = await freeUsername(db, source.company_id, source.type, identity);
  if (!username) return 'conflict';
  const owners = await findIdentifierOwners(db, source.company_id, {
    usernames: [],
    emails: identity.email ? [identity.email] : [],
    phones: identity.phone ? [identity.phone] : [],
  });
  try {
    await createLinkedPeople(
      { db, quotas: deps.quotas, companyId: source.company_id, sourceId: source.id },
      [
        {
          externalId: identity.externalId,
          username,
          name: identity.name,
          // Someone else's email or phone is left out rather than refusing the person.
          email: owners.some((o) => ownsSignInName(o, identity.email)) ? null : identity.email,
          phone: owners.some((o) => o.phone === identity.phone) ? null : identity.phone,
          dn: null,
          departmentExternalIds: [],
          disabled: false,
        },
      ],
      new Map(),
    );
  } catch {
    return 'conflict';
  }
  const created = await findLinkByExternalId(db, source.id, identity.externalId);
  if (!created) return 'conflict';
  // The user centre shows a scan binding by the provider's name of the person, as after binding.
  await updateLinkNames(db, source.id, created.account_id, {
    external_name: identity.name ?? identity.login,
  });
  return { accountId: created.account_id };
}
