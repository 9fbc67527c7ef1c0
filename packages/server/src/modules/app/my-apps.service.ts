import { appLimits, isProtectedWebUrl } from '@tessera/contract';
import type { Db } from '../../db/database.ts';
import type { App, AppFormConfig } from '../../db/schema.ts';
import type { Sealer } from '../../lib/crypto.ts';
import { insertAuditEvent } from '../audit/audit.repo.ts';
import { casLaunchUrl } from '../cas/cas.repo.ts';
import { findFormConfig, samlConfigured } from './app.repo.ts';
import { FORM_PASSWORD_PURPOSE } from './app.service.ts';
import { type AppAccessRefusal, appAccessRefusal, appsOpenTo, logAppSignIn } from './app-access.ts';
import {
  companyNames,
  deleteFormCredential,
  findFormCredential,
  findMemberApp,
  formModes,
  upsertFormCredential,
} from './my-apps.repo.ts';

/** An http(s) address, or undefined. */
const webUrl = (value: string | null | undefined): URL | undefined => {
  if (!value) return undefined;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url : undefined;
  } catch {
    return undefined;
  }
};

/**
 * Where the portal sends the browser to open an OIDC app: its initiate-login address with `iss`
 * and `target_link_uri` (OIDC Core §4, third-party initiated login); else its home page; else the
 * origin of its first callback address. Null: the app has none of these.
 */
export function oidcLaunchUrl(
  app: Pick<App, 'initiate_login_uri' | 'home_url' | 'redirect_uris'>,
  issuer: string,
): string | null {
  const initiate = webUrl(app.initiate_login_uri);
  const home = webUrl(app.home_url);
  if (initiate) {
    initiate.searchParams.set('iss', issuer);
    if (home) initiate.searchParams.set('target_link_uri', home.toString());
    return initiate.toString();
  }
  if (home) return home.toString();
  const callback = webUrl(app.redirect_uris[0]);
  return callback ? `${callback.origin}/` : null;
}

type Found = { app: App; companyName: string };

/** What opening an app comes to, before any secret is read. */
export type LaunchTarget =
  | { kind: 'not_found' }
  | ({ kind: 'refused'; cause: AppAccessRefusal } & Found)
  | ({ kind: 'not_configured' } & Found)
  | ({ kind: 'insecure' } & Found)
  | ({ kind: 'redirect'; url: string } & Found)
  | ({ kind: 'form'; config: AppFormConfig } & Found);

/** The sign-in form a form-fill launch posts, or why it cannot be posted yet. */
export type FormLaunch =
  | { kind: 'needs_credentials' }
  | { kind: 'not_configured' }
  | { kind: 'insecure' }
  | { kind: 'post'; action: string; fields: { name: string; value: string }[] };

/** The credentials page of an app, or why there is none. */
export type CredentialsTarget =
  | { kind: 'not_found' }
  | ({ kind: 'refused'; cause: AppAccessRefusal } & Found)
  | ({ kind: 'not_configured' } & Found)
  | ({ kind: 'shared' } & Found)
  | ({ kind: 'user'; username: string | null; passwordSaved: boolean } & Found);

export interface CredentialsInput {
  username?: unknown;
  password?: unknown;
}
export type CredentialProblems = { username?: 'required' | 'too_long'; password?: 'required' | 'too_long' };

/**
 * The user centre's applications: the apps a person may open, opening one (OIDC redirect or
 * form-fill post) and the person's own form-fill credentials, sealed at rest. Access is checked
 * again on every launch and every credentials page.
 */
export function createMyAppsService(deps: { db: Db; sealer: Sealer; issuer: string }) {
  const { db, sealer, issuer } = deps;

  /** The apps the person may open now, with their company and form-fill mode. */
  async function list(accountId: string) {
    const apps = await appsOpenTo(db, accountId);
    const [names, modes] = await Promise.all([
      companyNames(db, [...new Set(apps.map((a) => a.company_id))]),
      formModes(
        db,
        apps.filter((a) => a.protocol === 'form').map((a) => a.id),
      ),
    ]);
    return apps.map((app) => ({
      app,
      companyName: names.get(app.company_id) ?? '',
      credentialMode: modes.get(app.id) ?? null,
    }));
  }

  async function launchTarget(accountId: string, appId: string): Promise<LaunchTarget> {
    const found = await findMemberApp(db, accountId, appId);
    if (!found) return { kind: 'not_found' };
    const cause = await appAccessRefusal(db, found.app, accountId);
    if (cause) return { kind: 'refused', cause, ...found };
    if (found.app.protocol === 'oidc') {
      const url = oidcLaunchUrl(found.app, issuer);
      return url ? { kind: 'redirect', url, ...found } : { kind: 'not_configured', ...found };
    }
    if (found.app.protocol === 'saml') {
      // IdP-initiated SAML sign-in (modules/saml): the provider checks access again on the way.
      return (await samlConfigured(db, found.app.id))
        ? { kind: 'redirect', url: `/saml/apps/${encodeURIComponent(found.app.id)}/start`, ...found }
        : { kind: 'not_configured', ...found };
    }
    if (found.app.protocol === 'cas') {
      // The application's own address: it sends the person to its CAS server (modules/cas).
      const url = await casLaunchUrl(db, found.app);
      return url ? { kind: 'redirect', url, ...found } : { kind: 'not_configured', ...found };
    }
    if (found.app.protocol === 'ldap') {
      // An LDAP directory client signs people in itself: My apps opens its address.
      const url = webUrl(found.app.home_url);
      return url ? { kind: 'redirect', url: url.href, ...found } : { kind: 'not_configured', ...found };
    }
    const config = await findFormConfig(db, found.app.id);
    const url = webUrl(config?.login_url);
    if (!config || !url) return { kind: 'not_configured', ...found };
    // An address saved before the rule: the password is never posted in clear (formLoginUrlProblem).
    if (!isProtectedWebUrl(url)) return { kind: 'insecure', ...found };
    return { kind: 'form', config, ...found };
  }

  /** Opens the stored credentials (the only place they are): the fields of the app's login form. */
  async function formLaunch(accountId: string, app: App, config: AppFormConfig): Promise<FormLaunch> {
    const url = webUrl(config.login_url);
    if (!url) return { kind: 'not_configured' };
    if (!isProtectedWebUrl(url)) return { kind: 'insecure' };
    let username: string;
    let password: string;
    if (config.credential_mode === 'shared') {
      if (!config.shared_username || !config.shared_password_sealed) return { kind: 'not_configured' };
      username = config.shared_username;
      try {
        password = sealer.open(config.shared_password_sealed, FORM_PASSWORD_PURPOSE);
      } catch {
        return { kind: 'not_configured' };
      }
    } else {
      const stored = await findFormCredential(db, app.id, accountId);
      if (!stored) return { kind: 'needs_credentials' };
      username = stored.username;
      try {
        password = sealer.open(stored.password_sealed, FORM_PASSWORD_PURPOSE);
      } catch {
        // Sealed under another master key: the person saves them again.
        return { kind: 'needs_credentials' };
      }
    }
    return {
      kind: 'post',
      action: url.toString(),
      fields: [
        { name: config.username_field, value: username },
        { name: config.password_field, value: password },
        ...config.extra_fields.filter(
          (f) => f.name !== config.username_field && f.name !== config.password_field,
        ),
      ],
    };
  }

  async function credentialsTarget(accountId: string, appId: string): Promise<CredentialsTarget> {
    const found = await findMemberApp(db, accountId, appId);
    if (found?.app.protocol !== 'form') return { kind: 'not_found' };
    const cause = await appAccessRefusal(db, found.app, accountId);
    if (cause) return { kind: 'refused', cause, ...found };
    const config = await findFormConfig(db, found.app.id);
    if (!config) return { kind: 'not_configured', ...found };
    if (config.credential_mode === 'shared') return { kind: 'shared', ...found };
    const stored = await findFormCredential(db, found.app.id, accountId);
    return { kind: 'user', username: stored?.username ?? null, passwordSaved: Boolean(stored), ...found };
  }

  /** Checks what the person typed; the password may stay empty when one is saved already. */
  function checkCredentials(
    input: CredentialsInput,
    passwordSaved: boolean,
  ):
    | { ok: true; value: { username: string; password: string | null } }
    | { ok: false; problems: CredentialProblems } {
    const username = typeof input.username === 'string' ? input.username.trim() : '';
    const password = typeof input.password === 'string' ? input.password : '';
    const problems: CredentialProblems = {};
    if (!username) problems.username = 'required';
    else if (username.length > appLimits.credentialMax) problems.username = 'too_long';
    if (!password && !passwordSaved) problems.password = 'required';
    else if (password.length > appLimits.credentialMax) problems.password = 'too_long';
    if (problems.username || problems.password) return { ok: false, problems };
    return { ok: true, value: { username, password: password || null } };
  }

  /** Saves the person's credentials for an app (the password sealed), with an audit event. */
  async function saveCredentials(
    actor: { accountId: string; ip: string | null },
    app: App,
    value: { username: string; password: string | null },
  ): Promise<void> {
    await db.transaction().execute(async (trx) => {
      const before = await findFormCredential(trx, app.id, actor.accountId);
      const passwordSealed =
        value.password !== null
          ? sealer.seal(value.password, FORM_PASSWORD_PURPOSE)
          : before?.password_sealed;
      if (!passwordSealed) throw new Error('a password is needed');
      await upsertFormCredential(trx, {
        appId: app.id,
        accountId: actor.accountId,
        username: value.username,
        passwordSealed,
      });
      await insertAuditEvent(trx, {
        companyId: app.company_id,
        actorAccountId: actor.accountId,
        action: 'app.form.credential.save',
        targetType: 'app',
        targetId: app.id,
        before: before ? { username: before.username } : undefined,
        after: { username: value.username, passwordChanged: value.password !== null },
        ip: actor.ip,
      });
    });
  }

  async function deleteCredentials(actor: { accountId: string; ip: string | null }, app: App) {
    return db.transaction().execute(async (trx) => {
      const before = await findFormCredential(trx, app.id, actor.accountId);
      if (!before) return false;
      await deleteFormCredential(trx, app.id, actor.accountId);
      await insertAuditEvent(trx, {
        companyId: app.company_id,
        actorAccountId: actor.accountId,
        action: 'app.form.credential.delete',
        targetType: 'app',
        targetId: app.id,
        before: { username: before.username },
        ip: actor.ip,
      });
      return true;
    });
  }

  /**
   * A launch in the sign-in log of the app's company: a refusal with its cause, or a form-fill
   * sign-in posted for the person (an OIDC app logs its own sign-in at the provider).
   */
  const recordLaunch = (event: {
    app: App;
    account: { id: string; username: string };
    ip: string | null;
    userAgent: string | null;
    cause: AppAccessRefusal | null;
  }) =>
    logAppSignIn(db, {
      companyId: event.app.company_id,
      clientId: event.app.client_id,
      accountId: event.account.id,
      username: event.account.username,
      cause: event.cause,
      ip: event.ip,
      userAgent: event.userAgent,
    });

  return {
    list,
    recordLaunch,
    launchTarget,
    formLaunch,
    credentialsTarget,
    checkCredentials,
    saveCredentials,
    deleteCredentials,
  };
}

export type MyAppsService = ReturnType<typeof createMyAppsService>;
