import { identitySourceLimits, type Language, type MemberRole } from '@tessera/contract';
import type { Db } from '../../db/database.ts';
import type { Sealer } from '../../lib/crypto.ts';
import { AppError } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { spendBudgets } from '../../lib/rate-windows.ts';
import { insertAuditEvent } from '../audit/audit.repo.ts';
import * as repo from './identity-source.repo.ts';
import { assertLdapSettings, bindTargetChanged } from './ldap/ldap-settings.ts';
import { sealOidcSecret } from './oidc/oidc-secret.ts';
import type { SamlMetadataRefresh } from './saml-source/saml-source-refresh.ts';
import { newServiceProviderKey, storedSamlSettings } from './saml-source/saml-source-settings.ts';
import { sourceDetailOf } from './source-detail.ts';
import { fieldError, type SettingsInput, secretPurpose, splitSettings } from './source-settings.ts';
import type { SyncService } from './sync/sync.service.ts';
import { findLastRuns } from './sync/sync-runs.repo.ts';
import { assertDomainsFree } from './upstream/upstream-settings.ts';

const fail = (error: Error): never => {
  throw error;
};

/**
 * Identity sources of a company: settings (secrets sealed with the master key, bound to the
 * source, never sent back), state, deletion. The LDAP tests are in ldap-tests.ts; sync in sync/.
 */

export interface SourceActor {
  accountId: string;
  ip: string;
  role: MemberRole;
}

export function createIdentitySourceService(deps: {
  db: Db;
  sealer: Sealer;
  publicUrl: string;
  /** A sync run as the contract shows it (sync.service.ts). */
  runView: SyncService['runView'];
  /** The state of SAML sources' metadata refreshes (saml-source-refresh.ts). */
  samlRefresh: Pick<SamlMetadataRefresh, 'stateOf'>;
}) {
  const { db, sealer } = deps;

  const openSecret = (source: repo.AnySource) =>
    source.secret_sealed ? sealer.open(source.secret_sealed, secretPurpose(source.id)) : null;

  /** The people each source links and the last run of each, for the list and the detail. */
  async function extrasOf(companyId: string, lang: Language) {
    const [people, last] = await Promise.all([
      repo.countLinkedPeople(db, companyId),
      findLastRuns(db, companyId),
    ]);
    return (source: repo.AnySource) => {
      const run = last.get(source.id);
      return {
        sourceId: source.id,
        name: source.name,
        enabled: source.enabled,
        createdAt: source.created_at.toISOString(),
        people: people.get(source.id) ?? 0,
        lastRun: run ? deps.runView(lang, run) : null,
      };
    };
  }

  async function list(companyId: string, lang: Language) {
    const extras = await extrasOf(companyId, lang);
    const all = await repo.findSources(db, companyId);
    return { list: all.map((source) => ({ ...extras(source), type: source.type })) };
  }

  async function summary(companyId: string, lang: Language, sourceId: string) {
    const source = await findExisting(companyId, sourceId);
    return { ...(await extrasOf(companyId, lang))(source), type: source.type };
  }

  async function detail(companyId: string, lang: Language, sourceId: string) {
    const source = await findExisting(companyId, sourceId);
    const view = sourceDetailOf(deps, source, (await extrasOf(companyId, lang))(source));
    return view.type === 'saml'
      ? { ...view, metadataRefresh: await deps.samlRefresh.stateOf(lang, source) }
      : view;
  }

  async function findExisting(companyId: string, sourceId: string) {
    const source = await repo.findSource(db, companyId, sourceId);
    if (!source) throw new AppError('identity_source.not_found');
    return source;
  }

  /** What the audit trail keeps of a source (never its secret). */
  const auditView = (source: { name: string; enabled: boolean; type: string; settings: unknown }) => ({
    type: source.type,
    name: source.name,
    enabled: source.enabled,
    settings: source.settings,
  });

  async function create(actor: SourceActor, companyId: string, lang: Language, input: SettingsInput) {
    const parts = splitSettings(input);
    const id = newId();
    let secretSealed = parts.secret ? sealer.seal(parts.secret, secretPurpose(id)) : null;
    if (parts.type === 'ldap') {
      assertLdapSettings(lang, parts.settings as repo.LdapSettings);
      if (parts.settings.bindDn && !parts.secret)
        throw fieldError(lang, 'bindPassword', 'ldap.bind_password_required');
    } else if (parts.type === 'oidc') {
      secretSealed =
        (await sealOidcSecret(sealer, secretPurpose(id), parts.settings, parts.secret)) ??
        fail(fieldError(lang, 'clientSecret', 'identity_source.secret_required'));
    } else if (parts.type === 'saml') {
      // The secret is Tessera's own signing key for the source, made here (never typed).
      const key = await newServiceProviderKey(id);
      parts.settings = storedSamlSettings(lang, parts.settings, key.certificate);
      secretSealed = sealer.seal(key.privateKeyPem, secretPurpose(id));
    } else if (!parts.secret) {
      throw fieldError(
        lang,
        parts.type === 'work_weixin' ? 'secret' : 'appSecret',
        'identity_source.secret_required',
      );
    }
    await db.transaction().execute(async (trx) => {
      if (parts.type === 'oidc' || parts.type === 'saml')
        await assertDomainsFree(trx, lang, companyId, id, parts.settings.emailDomains);
      await repo.insertSource(trx, companyId, {
        id,
        type: parts.type,
        name: parts.name,
        enabled: parts.enabled,
        settings: parts.settings,
        secretSealed,
        syncIntervalMinutes: parts.syncIntervalMinutes,
      });
      await insertAuditEvent(trx, {
        companyId,
        actorAccountId: actor.accountId,
        action: 'identity_source.create',
        targetType: 'identity_source',
        targetId: id,
        after: auditView(parts),
        ip: actor.ip,
      });
    });
    return id;
  }

  async function update(
    actor: SourceActor,
    companyId: string,
    lang: Language,
    input: SettingsInput & { sourceId: string },
  ) {
    const { sourceId, ...settingsInput } = input;
    const parts = splitSettings(settingsInput as SettingsInput);
    await db.transaction().execute(async (trx) => {
      const source = await repo.lockSource(trx, companyId, sourceId);
      if (!source) throw new AppError('identity_source.not_found');
      if (source.type !== parts.type) throw new AppError('identity_source.type_fixed');
      if (parts.type === 'ldap') {
        const settings = parts.settings as repo.LdapSettings;
        assertLdapSettings(lang, settings);
        // The stored password goes only where it went before (a changed server must be given it again).
        const retyped = Boolean(parts.secret);
        if (
          settings.bindDn &&
          !retyped &&
          (!source.secret_sealed || bindTargetChanged(source.settings as repo.LdapSettings, settings))
        )
          throw fieldError(lang, 'bindPassword', 'ldap.bind_password_required');
      } else if (parts.type === 'saml') {
        // Tessera's key for the source stays: the upstream trusts its certificate.
        const stored = source.settings as repo.SamlSettings;
        parts.settings = storedSamlSettings(lang, parts.settings, stored.spCertificate);
        await assertDomainsFree(trx, lang, companyId, source.id, parts.settings.emailDomains);
      }
      let secretSealed = parts.secret
        ? sealer.seal(parts.secret, secretPurpose(source.id))
        : parts.type === 'ldap' && !(parts.settings as repo.LdapSettings).bindDn
          ? null
          : source.secret_sealed;
      if (parts.type === 'oidc') {
        await assertDomainsFree(trx, lang, companyId, source.id, parts.settings.emailDomains);
        secretSealed =
          (await sealOidcSecret(sealer, secretPurpose(source.id), parts.settings, parts.secret, source)) ??
          fail(fieldError(lang, 'clientSecret', 'identity_source.secret_required'));
      }
      await repo.updateSource(trx, companyId, source.id, {
        name: parts.name,
        enabled: parts.enabled,
        settings: parts.settings,
        secretSealed,
        syncIntervalMinutes: parts.syncIntervalMinutes,
        scheduleChanged: parts.syncIntervalMinutes !== source.sync_interval_minutes,
      });
      await insertAuditEvent(trx, {
        companyId,
        actorAccountId: actor.accountId,
        action: 'identity_source.update',
        targetType: 'identity_source',
        targetId: source.id,
        before: auditView(source),
        after: { ...auditView(parts), secretChanged: Boolean(parts.secret) },
        ip: actor.ip,
      });
    });
  }

  async function setEnabled(actor: SourceActor, companyId: string, sourceId: string, enabled: boolean) {
    await db.transaction().execute(async (trx) => {
      const source = await repo.lockSource(trx, companyId, sourceId);
      if (!source) throw new AppError('identity_source.not_found');
      await repo.setSourceEnabled(trx, companyId, source.id, enabled);
      await insertAuditEvent(trx, {
        companyId,
        actorAccountId: actor.accountId,
        action: 'identity_source.status',
        targetType: 'identity_source',
        targetId: source.id,
        before: { name: source.name, enabled: source.enabled },
        after: { name: source.name, enabled },
        ip: actor.ip,
      });
    });
  }

  /** Deletes the source: its people stay (unlinked), its departments stay as ordinary ones. */
  async function remove(actor: SourceActor, companyId: string, sourceId: string) {
    return db.transaction().execute(async (trx) => {
      const source = await repo.lockSource(trx, companyId, sourceId);
      if (!source) throw new AppError('identity_source.not_found');
      const people = (await repo.countLinkedPeople(trx, companyId)).get(source.id) ?? 0;
      await repo.deleteSource(trx, companyId, source.id);
      await insertAuditEvent(trx, {
        companyId,
        actorAccountId: actor.accountId,
        action: 'identity_source.delete',
        targetType: 'identity_source',
        targetId: source.id,
        before: auditView(source),
        after: { peopleUnlinked: people },
        ip: actor.ip,
      });
      return { sourceId: source.id, peopleUnlinked: people };
    });
  }

  /** Spends one of the company's connection tests (each one reaches a server an administrator names). */
  async function spendTest(companyId: string) {
    const budget = {
      key: `identity-source-tests:${companyId}`,
      limit: identitySourceLimits.testsPerHour,
      minutes: 60,
    };
    if (!(await spendBudgets(db, [budget], 'reserve')))
      throw new AppError('identity_source.tests_exhausted', { max: identitySourceLimits.testsPerHour });
  }

  return {
    openSecret,
    list,
    summary,
    detail,
    findExisting,
    create,
    update,
    setEnabled,
    remove,
    spendTest,
  };
}

export type IdentitySourceService = ReturnType<typeof createIdentitySourceService>;
