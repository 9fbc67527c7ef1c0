import type { Db } from '../../db/database.ts';
import type { Account, App } from '../../db/schema.ts';
import { safeEqual, sha256 } from '../../lib/crypto.ts';
import { appAccessRefusal } from '../app/app-access.ts';
import type { MfaService } from '../mfa/mfa.service.ts';
import type { LoginFailureCause } from '../signin/login-events.repo.ts';
import type { SignInService } from '../signin/signin.service.ts';
import {
  type CompanyLdapApps,
  companyLdapApps,
  type LdapSettings,
  type View,
} from './ldap-directory.repo.ts';
import type { Named } from './ldap-names.ts';
import { resultCode } from './ldap-wire.ts';

/**
 * Who a simple bind is: an LDAP application's service account (its secret, compared by hash),
 * or a person with their password through the sign-in pipeline (budgets, lock-out, login
 * events with the application, disabled and locked refused, then the application's access rule
 * and the company's second factor).
 */

export type Bound =
  | { kind: 'app'; dn: string; view: View; app: App }
  | { kind: 'person'; dn: string; view: View; app: App; account: Account };

export type BindOutcome = { ok: true; bound: Bound } | { ok: false; code: number; message: string };

const invalid: BindOutcome = {
  ok: false,
  code: resultCode.invalidCredentials,
  message: 'invalid credentials',
};

export function createLdapBinds(deps: {
  db: Db;
  signIn: SignInService;
  mfa: Pick<MfaService, 'requirementIn' | 'boundFactors'>;
}) {
  const { db, signIn, mfa } = deps;

  async function bindApp(
    dn: string,
    named: Extract<Named, { kind: 'app' }>,
    secret: string,
  ): Promise<BindOutcome> {
    const { company, apps } = await companyLdapApps(db, named.code, named.id);
    const found = apps[0];
    const hash = found?.config?.secret_hash;
    // The same work whether or not the application exists: the hash is always computed.
    const given = sha256(secret);
    if (!company || !found || !hash || !safeEqual(given, hash) || found.app.status !== 'opened')
      return invalid;
    const view: View = {
      kind: 'app',
      companyId: company.id,
      code: company.code,
      appId: found.app.id,
      allowAll: found.app.default_access === 'allow_all',
      posix: found.config?.posix ?? false,
    };
    return { ok: true, bound: { kind: 'app', dn, view, app: found.app } };
  }

  /** Whether the company asks this person for a second factor (required, or one they bound). */
  async function secondFactorAsked(account: Account, companyId: string) {
    const requirement = await mfa.requirementIn(account, companyId);
    if (requirement.mode === 'off') return false;
    if (requirement.mode === 'required') return true;
    const kinds = [...requirement.types, ...requirement.signature, ...(requirement.fido2 ? ['fido2'] : [])];
    return (await mfa.boundFactors(account.id, kinds)).length > 0;
  }

  /**
   * The company and application a person's bind is for: the application whose service account
   * bound this connection (Apache, sssd and Jenkins bind it first to find the person); otherwise
   * the company's only opened LDAP application, or of several the first the person may use.
   */
  async function appOfPersonBind(
    code: string,
    accountHint: string,
    previous: Bound | null,
  ): Promise<{ company: CompanyLdapApps['company']; found: CompanyLdapApps['apps'][number] | undefined }> {
    const sameCompany = previous && previous.view.code === code ? previous.app.id : undefined;
    const { company, apps } = await companyLdapApps(db, code, sameCompany);
    if (sameCompany || apps.length <= 1) return { company, found: apps[0] };
    const account = await db
      .selectFrom('accounts')
      .select('id')
      .where((eb) => eb(eb.fn('lower', ['username']), '=', accountHint.toLowerCase()))
      .executeTakeFirst();
    if (account)
      for (const found of apps)
        if ((await appAccessRefusal(db, found.app, account.id)) === null) return { company, found };
    return { company, found: apps[0] };
  }

  async function bindPerson(
    dn: string,
    named: Extract<Named, { kind: 'person' }>,
    password: string,
    context: { ip: string | null; previous: Bound | null },
  ): Promise<BindOutcome> {
    const { company, found } = await appOfPersonBind(named.code, named.username, context.previous);
    const app = found?.app;
    const config: LdapSettings | undefined = found?.config;
    const result = await signIn.signInWithPassword({
      identifier: named.username,
      password,
      ip: context.ip,
      userAgent: 'LDAP bind',
      clientId: app?.client_id ?? null,
      companyId: company?.id ?? null,
      deviceId: null,
      // An application's server that bound its service account speaks for many people, as a
      // RADIUS device does: its binds spend each person's budget, not one shared address budget.
      // Binds from anywhere else spend their address's.
      budgetAddress:
        context.previous?.kind === 'app' && context.previous.app.id === app?.id
          ? `ldap:${app.id}:${named.username.toLowerCase()}`
          : context.ip,
      authorize: async (account): Promise<LoginFailureCause | null> => {
        // The DN names a username: an email or phone number that names the account is not it.
        if (account.username.toLowerCase() !== named.username.toLowerCase()) return 'unknown_account';
        if (!company || !app) return 'app_not_assigned';
        const refusal = await appAccessRefusal(db, app, account.id);
        if (refusal) return refusal;
        // An LDAP bind cannot carry a second factor: the application decides whether the
        // password alone is enough where the company asks for one.
        if (!config?.allow_password_with_mfa && (await secondFactorAsked(account, company.id)))
          return 'mfa_unavailable';
        return null;
      },
    });
    if (!result.ok || !company || !app) return invalid;
    const view: View = {
      kind: 'person',
      companyId: company.id,
      code: company.code,
      accountId: result.account.id,
      posix: config?.posix ?? false,
    };
    return { ok: true, bound: { kind: 'person', dn, view, app, account: result.account } };
  }

  return { bindApp, bindPerson };
}

export type LdapBinds = ReturnType<typeof createLdapBinds>;
