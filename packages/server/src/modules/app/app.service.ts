import { type AppTemplate, appLimits, appTemplates, type app as contract } from '@tessera/contract';
import type { Updateable } from 'kysely';
import type { z } from 'zod';
import type { Db } from '../../db/database.ts';
import type { App, AppApiAccount, AppsTable } from '../../db/schema.ts';
import { randomToken, type Sealer } from '../../lib/crypto.ts';
import { AppError, uniqueViolationAs } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { insertAuditEvent } from '../audit/audit.repo.ts';
import { acceptImage, fileUrl, insertFile } from '../files/files.ts';
import type { QuotaService } from '../license/quota.service.ts';
import { templateSettings as samlTemplateSettings } from '../saml/saml-config.service.ts';
import * as repo from './app.repo.ts';
import { API_ACCOUNT_SECRET_PURPOSE, CLIENT_SECRET_PURPOSE } from './app-clients.ts';

type Body<C> = z.output<C extends { request: infer R extends z.ZodType } ? R : never>;
type AppDetail = contract.AppDetail;

export interface Actor {
  accountId: string;
  ip: string;
}

/** Form-fill passwords (a person's own, or the shared account's) are sealed for this purpose. */
export const FORM_PASSWORD_PURPOSE = 'form-credential';

const seconds = (date: Date | null) => (date ? Math.floor(date.getTime() / 1000) : null);
const dateOf = (epoch: number | null) => (epoch === null ? null : new Date(epoch * 1000));

/**
 * Applications of a company (spec §3 Application). Every change is one transaction with its
 * audit event; the provider reads clients from the database on each request (app-clients.ts),
 * so nothing else needs to be told. Secrets are stored sealed and answered once.
 */
export function createAppService(deps: {
  db: Db;
  sealer: Sealer;
  issuer: string;
  quotas: Pick<QuotaService, 'takePlaces'>;
}) {
  const { db, sealer, issuer, quotas } = deps;

  const metadata = {
    issuer,
    discoveryUrl: `${issuer}/.well-known/openid-configuration`,
    jwksUri: `${issuer}/jwks`,
    authorizationEndpoint: `${issuer}/auth`,
    tokenEndpoint: `${issuer}/token`,
    userinfoEndpoint: `${issuer}/me`,
    endSessionEndpoint: `${issuer}/session/end`,
  };

  const summary = (app: App) => ({
    appId: app.id,
    name: app.name,
    description: app.description,
    type: app.type,
    protocol: app.protocol,
    template: app.template,
    status: app.status,
    logo: fileUrl(app.logo_file_id),
    clientId: app.client_id,
    createdAt: seconds(app.created_at) as number,
  });

  const detailOf = (app: App): AppDetail => ({
    ...summary(app),
    oidc: {
      redirectUris: app.redirect_uris,
      postLogoutRedirectUris: app.post_logout_redirect_uris,
      initiateLoginUri: app.initiate_login_uri,
      backchannelLogoutUri: app.backchannel_logout_uri,
      frontchannelLogoutUri: app.frontchannel_logout_uri,
      homeUrl: app.home_url,
      scopes: app.scopes,
      signingAlg: app.signing_alg,
      tokenAuthMethod: app.token_auth_method,
      requirePkce: app.require_pkce,
      lifetimes: {
        authorizationCode: app.authorization_code_ttl,
        idToken: app.id_token_ttl,
        accessToken: app.access_token_ttl,
        refreshToken: app.refresh_token_ttl,
      },
    },
    defaultAccess: app.default_access,
    metadata,
    updatedAt: seconds(app.updated_at) as number,
  });

  /** What the audit keeps of an application: its settings, never its secret. */
  const audited = (app: App) => {
    const { client_secret_sealed: _secret, ...rest } = app;
    return rest;
  };

  async function appOf(trx: Db, companyId: string, appId: string, lock = false) {
    const app = await (lock ? repo.findAppForUpdate : repo.findApp)(trx, companyId, appId);
    if (!app) throw new AppError('app.not_found');
    return app;
  }

  const audit = (
    trx: Db,
    actor: Actor,
    companyId: string,
    action: string,
    targetId: string,
    before?: unknown,
    after?: unknown,
  ) =>
    insertAuditEvent(trx, {
      companyId,
      actorAccountId: actor.accountId,
      action,
      targetType: 'app',
      targetId,
      before,
      after,
      ip: actor.ip,
    });

  async function list(companyId: string, query: Body<typeof contract.listApps>) {
    const { rows, total } = await repo.listApps(db, companyId, query);
    return { list: rows.map(summary), total };
  }

  async function detail(companyId: string, appId: string) {
    return detailOf(await appOf(db, companyId, appId));
  }

  /** A template's paths under the app's own address. */
  const fromTemplate = (template: AppTemplate, baseUrl: string | null | undefined) => {
    const base = baseUrl?.replace(/\/+$/, '');
    const under = (path: string | null) => (base && path !== null ? `${base}${path}` : null);
    const redirect = template.protocol === 'oidc' ? under(template.redirectPath) : null;
    const logout = under(template.logoutPath);
    return {
      protocol: template.protocol,
      redirect_uris: JSON.stringify(redirect ? [redirect] : []),
      post_logout_redirect_uris: JSON.stringify(logout ? [logout] : []),
      initiate_login_uri: under(template.initiateLoginPath),
      backchannel_logout_uri: template.protocol === 'oidc' ? under(template.backchannelLogoutPath) : null,
      frontchannel_logout_uri: template.protocol === 'oidc' ? under(template.frontchannelLogoutPath) : null,
      home_url: base ?? null,
      scopes: template.scopes.length ? JSON.stringify(template.scopes) : undefined,
      signing_alg: template.signingAlg,
      token_auth_method: template.tokenAuthMethod,
      require_pkce: template.pkce,
    };
  };

  async function create(actor: Actor, companyId: string, body: Body<typeof contract.createApp>) {
    const template = body.template ? appTemplates.find((t) => t.key === body.template) : undefined;
    const clientSecret = randomToken(32);
    const row = {
      id: newId(),
      company_id: companyId,
      name: body.name,
      description: body.description ?? null,
      type: body.type,
      template: template?.key ?? null,
      client_id: randomToken(18),
      client_secret_sealed: sealer.seal(clientSecret, CLIENT_SECRET_PURPOSE),
      protocol: body.protocol,
      home_url: body.baseUrl ?? null,
      ...(template ? fromTemplate(template, body.baseUrl) : {}),
    };
    return db.transaction().execute(async (trx) => {
      // A place in the company's quota and the licence; parallel creates wait for each other.
      await quotas.takePlaces(trx, companyId, 'app');
      const app = await trx.insertInto('apps').values(row).returningAll().executeTakeFirstOrThrow();
      // A catalogue SAML app comes with its service provider's known settings (modules/saml).
      const saml = template?.saml;
      const baseUrl = body.baseUrl;
      if (saml && baseUrl)
        await uniqueViolationAs({ app_saml_configs_entity: 'saml.entity_id_taken' }, () =>
          trx
            .insertInto('app_saml_configs')
            .values({ app_id: app.id, company_id: companyId, ...samlTemplateSettings(saml, baseUrl) })
            .execute(),
        );
      await audit(trx, actor, companyId, 'app.create', app.id, undefined, audited(app));
      return { app: detailOf(app), clientSecret };
    });
  }

  async function update(actor: Actor, companyId: string, body: Body<typeof contract.updateApp>) {
    return db.transaction().execute(async (trx) => {
      const before = await appOf(trx, companyId, body.appId, true);
      const set: Updateable<AppsTable> = {};
      if (body.name !== undefined) set.name = body.name;
      if (body.description !== undefined) set.description = body.description;
      if (body.redirectUris !== undefined) set.redirect_uris = JSON.stringify(body.redirectUris);
      if (body.postLogoutRedirectUris !== undefined)
        set.post_logout_redirect_uris = JSON.stringify(body.postLogoutRedirectUris);
      if (body.initiateLoginUri !== undefined) set.initiate_login_uri = body.initiateLoginUri;
      if (body.backchannelLogoutUri !== undefined) set.backchannel_logout_uri = body.backchannelLogoutUri;
      if (body.frontchannelLogoutUri !== undefined) set.frontchannel_logout_uri = body.frontchannelLogoutUri;
      if (body.homeUrl !== undefined) set.home_url = body.homeUrl;
      if (body.scopes !== undefined) set.scopes = JSON.stringify(body.scopes);
      if (body.signingAlg !== undefined) set.signing_alg = body.signingAlg;
      if (body.tokenAuthMethod !== undefined) set.token_auth_method = body.tokenAuthMethod;
      if (body.requirePkce !== undefined) set.require_pkce = body.requirePkce;
      if (body.defaultAccess !== undefined) set.default_access = body.defaultAccess;
      if (body.lifetimes !== undefined) {
        set.authorization_code_ttl = body.lifetimes.authorizationCode;
        set.id_token_ttl = body.lifetimes.idToken;
        set.access_token_ttl = body.lifetimes.accessToken;
        set.refresh_token_ttl = body.lifetimes.refreshToken;
      }
      // A public client (no secret) has nothing but PKCE to bind its code to it.
      if (
        (set.token_auth_method ?? before.token_auth_method) === 'none' &&
        !(set.require_pkce ?? before.require_pkce)
      )
        throw new AppError('app.public_needs_pkce');
      // An app without a callback left cannot stay open: nothing could sign in to it.
      if (body.redirectUris?.length === 0 && before.protocol === 'oidc' && before.status === 'opened')
        throw new AppError('app.not_configured');
      const after = await trx
        .updateTable('apps')
        .set({ ...set, updated_at: new Date() })
        .where('id', '=', before.id)
        .returningAll()
        .executeTakeFirstOrThrow();
      await audit(trx, actor, companyId, 'app.update', before.id, audited(before), audited(after));
      return detailOf(after);
    });
  }

  async function setStatus(actor: Actor, companyId: string, body: Body<typeof contract.setAppStatus>) {
    return db.transaction().execute(async (trx) => {
      const before = await appOf(trx, companyId, body.appId, true);
      if (body.status === 'opened') {
        const configured =
          before.protocol === 'oidc'
            ? before.redirect_uris.length > 0
            : before.protocol === 'saml'
              ? await repo.samlConfigured(trx, before.id)
              : Boolean(await repo.findFormConfig(trx, before.id));
        if (!configured) throw new AppError('app.not_configured');
      }
      const after = await trx
        .updateTable('apps')
        .set({ status: body.status, updated_at: new Date() })
        .where('id', '=', before.id)
        .returningAll()
        .executeTakeFirstOrThrow();
      await audit(
        trx,
        actor,
        companyId,
        body.status === 'opened' ? 'app.open' : 'app.disable',
        before.id,
        { status: before.status },
        { status: after.status },
      );
      return summary(after);
    });
  }

  async function remove(actor: Actor, companyId: string, appId: string) {
    return db.transaction().execute(async (trx) => {
      const app = await appOf(trx, companyId, appId, true);
      // Its access accounts go with it (cascade), which ends their tokens at once.
      await trx.deleteFrom('apps').where('id', '=', app.id).execute();
      await repo.revokeClientTokens(trx, app.client_id);
      if (app.logo_file_id) await trx.deleteFrom('files').where('id', '=', app.logo_file_id).execute();
      await audit(trx, actor, companyId, 'app.delete', app.id, audited(app));
      return { appId: app.id };
    });
  }

  async function resetSecret(actor: Actor, companyId: string, appId: string) {
    const clientSecret = randomToken(32);
    return db.transaction().execute(async (trx) => {
      const app = await appOf(trx, companyId, appId, true);
      await trx
        .updateTable('apps')
        .set({
          client_secret_sealed: sealer.seal(clientSecret, CLIENT_SECRET_PURPOSE),
          updated_at: new Date(),
        })
        .where('id', '=', app.id)
        .execute();
      await audit(trx, actor, companyId, 'app.reset_secret', app.id);
      return { clientSecret };
    });
  }

  async function uploadLogo(
    actor: Actor,
    companyId: string,
    appId: string,
    upload: Buffer,
    allowed: readonly string[],
  ) {
    const image = await acceptImage(upload, allowed);
    return db.transaction().execute(async (trx) => {
      const app = await appOf(trx, companyId, appId, true);
      const fileId = await insertFile(trx, companyId, image.contentType, image.bytes);
      await trx.updateTable('apps').set({ logo_file_id: fileId }).where('id', '=', app.id).execute();
      if (app.logo_file_id) await trx.deleteFrom('files').where('id', '=', app.logo_file_id).execute();
      await audit(
        trx,
        actor,
        companyId,
        'app.update_logo',
        app.id,
        { logo: fileUrl(app.logo_file_id) },
        { logo: fileUrl(fileId), contentType: image.contentType, bytes: image.bytes.length },
      );
      return { logo: fileUrl(fileId) as string };
    });
  }

  // ---- access

  async function assignments(companyId: string, body: Body<typeof contract.listAppAssignments>) {
    const app = await appOf(db, companyId, body.appId);
    const { rows, total } = await repo.listAssignments(db, app.id, body);
    return {
      list: rows.map((row) => ({
        userId: row.account_id,
        username: row.username,
        name: row.display_name,
        expiresAt: seconds(row.expires_at),
        expired: row.expired,
        createdAt: seconds(row.created_at) as number,
      })),
      total,
    };
  }

  async function assign(actor: Actor, companyId: string, body: Body<typeof contract.addAppAssignments>) {
    const userIds = [...new Set(body.userIds)];
    return db.transaction().execute(async (trx) => {
      const app = await appOf(trx, companyId, body.appId, true);
      const members = await repo.companyUserIds(trx, companyId, userIds);
      if (members.length !== userIds.length) throw new AppError('app.assignee_not_member');
      const expiresAt = dateOf(body.expiresAt);
      await trx
        .insertInto('app_assignments')
        .values(
          userIds.map((accountId) => ({ app_id: app.id, account_id: accountId, expires_at: expiresAt })),
        )
        .onConflict((oc) => oc.columns(['app_id', 'account_id']).doUpdateSet({ expires_at: expiresAt }))
        .execute();
      await audit(trx, actor, companyId, 'app.assign', app.id, undefined, {
        userIds,
        expiresAt: body.expiresAt,
      });
      return { assigned: userIds.length };
    });
  }

  async function unassign(actor: Actor, companyId: string, body: Body<typeof contract.removeAppAssignments>) {
    return db.transaction().execute(async (trx) => {
      const app = await appOf(trx, companyId, body.appId, true);
      const removed = await trx
        .deleteFrom('app_assignments')
        .where('app_id', '=', app.id)
        .where('account_id', 'in', body.userIds)
        .returning('account_id')
        .execute();
      const ids = removed.map((row) => row.account_id);
      // Under "allow all" an assignment changes nothing; otherwise the person's tokens end now.
      if (app.default_access === 'prohibit_all') await repo.revokeAccountTokens(trx, app.client_id, ids);
      await audit(trx, actor, companyId, 'app.unassign', app.id, { userIds: ids });
      return { removed: ids.length };
    });
  }

  // ---- programmatic access accounts

  const apiAccountOf = (row: AppApiAccount & { expired: boolean }) => ({
    accountId: row.id,
    name: row.name,
    clientId: row.client_id,
    expiresAt: seconds(row.expires_at),
    expired: row.expired,
    lastUsedAt: seconds(row.last_used_at),
    createdAt: seconds(row.created_at) as number,
  });

  async function apiAccounts(companyId: string, appId: string) {
    const app = await appOf(db, companyId, appId);
    return {
      list: (await repo.listApiAccounts(db, app.id)).map(apiAccountOf),
      tokenEndpoint: metadata.tokenEndpoint,
    };
  }

  async function createApiAccount(
    actor: Actor,
    companyId: string,
    body: Body<typeof contract.createApiAccount>,
  ) {
    const secret = randomToken(32);
    return db.transaction().execute(async (trx) => {
      const app = await appOf(trx, companyId, body.appId, true);
      const existing = await repo.listApiAccounts(trx, app.id);
      if (existing.length >= appLimits.apiAccountsPerApp)
        throw new AppError('api_account.too_many', { max: appLimits.apiAccountsPerApp });
      const row = await trx
        .insertInto('app_api_accounts')
        .values({
          id: newId(),
          app_id: app.id,
          company_id: companyId,
          name: body.name,
          client_id: `api_${randomToken(18)}`,
          secret_sealed: sealer.seal(secret, API_ACCOUNT_SECRET_PURPOSE),
          expires_at: dateOf(body.expiresAt),
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      const account = apiAccountOf({
        ...row,
        expired: row.expires_at !== null && row.expires_at <= new Date(),
      });
      await audit(trx, actor, companyId, 'app.api_account.create', app.id, undefined, account);
      return { account, secret };
    });
  }

  async function apiAccountIn(trx: Db, companyId: string, appId: string, accountId: string) {
    const app = await appOf(trx, companyId, appId, true);
    const account = await repo.findApiAccount(trx, app.id, accountId);
    if (!account) throw new AppError('api_account.not_found');
    return { app, account };
  }

  async function updateApiAccount(
    actor: Actor,
    companyId: string,
    body: Body<typeof contract.updateApiAccount>,
  ) {
    return db.transaction().execute(async (trx) => {
      const { account } = await apiAccountIn(trx, companyId, body.appId, body.accountId);
      await trx
        .updateTable('app_api_accounts')
        .set({
          ...(body.name !== undefined ? { name: body.name } : {}),
          ...(body.expiresAt !== undefined ? { expires_at: dateOf(body.expiresAt) } : {}),
        })
        .where('id', '=', account.id)
        .execute();
      // An expired account's tokens are refused by the row check on every call (api-caller.ts).
      const after = (await repo.findApiAccount(trx, body.appId, account.id))!;
      await audit(
        trx,
        actor,
        companyId,
        'app.api_account.update',
        body.appId,
        apiAccountOf(account),
        apiAccountOf(after),
      );
      return apiAccountOf(after);
    });
  }

  async function resetApiAccountSecret(
    actor: Actor,
    companyId: string,
    body: Body<typeof contract.resetApiAccountSecret>,
  ) {
    const secret = randomToken(32);
    return db.transaction().execute(async (trx) => {
      const { account } = await apiAccountIn(trx, companyId, body.appId, body.accountId);
      await trx
        .updateTable('app_api_accounts')
        .set({ secret_sealed: sealer.seal(secret, API_ACCOUNT_SECRET_PURPOSE) })
        .where('id', '=', account.id)
        .execute();
      // Tokens name the secret they were issued for: those of the old one are refused from now on.
      await audit(trx, actor, companyId, 'app.api_account.reset_secret', body.appId, {
        accountId: account.id,
      });
      return { secret };
    });
  }

  async function deleteApiAccount(
    actor: Actor,
    companyId: string,
    body: Body<typeof contract.deleteApiAccount>,
  ) {
    return db.transaction().execute(async (trx) => {
      const { account } = await apiAccountIn(trx, companyId, body.appId, body.accountId);
      // Its tokens are refused at once: every call reads the account (api-caller.ts).
      await trx.deleteFrom('app_api_accounts').where('id', '=', account.id).execute();
      await audit(trx, actor, companyId, 'app.api_account.delete', body.appId, apiAccountOf(account));
      return { accountId: account.id };
    });
  }

  // ---- form-fill

  const formConfigOf = (row: Awaited<ReturnType<typeof repo.findFormConfig>>) => ({
    loginUrl: row?.login_url ?? null,
    usernameField: row?.username_field ?? 'username',
    passwordField: row?.password_field ?? 'password',
    extraFields: row?.extra_fields ?? [],
    credentialMode: row?.credential_mode ?? ('user' as const),
    sharedUsername: row?.shared_username ?? null,
    sharedPasswordSet: Boolean(row?.shared_password_sealed),
  });

  async function formConfig(companyId: string, appId: string) {
    const app = await appOf(db, companyId, appId);
    if (app.protocol !== 'form') throw new AppError('form.not_form_app');
    return formConfigOf(await repo.findFormConfig(db, app.id));
  }

  async function updateFormConfig(
    actor: Actor,
    companyId: string,
    body: Body<typeof contract.updateAppFormConfig>,
  ) {
    return db.transaction().execute(async (trx) => {
      const app = await appOf(trx, companyId, body.appId, true);
      if (app.protocol !== 'form') throw new AppError('form.not_form_app');
      const before = await repo.findFormConfig(trx, app.id);
      const sharedPassword =
        body.sharedPassword !== undefined && body.sharedPassword !== ''
          ? sealer.seal(body.sharedPassword, FORM_PASSWORD_PURPOSE)
          : (before?.shared_password_sealed ?? null);
      const values = {
        login_url: body.loginUrl,
        username_field: body.usernameField,
        password_field: body.passwordField,
        extra_fields: JSON.stringify(body.extraFields),
        credential_mode: body.credentialMode,
        shared_username: body.sharedUsername ?? null,
        shared_password_sealed: sharedPassword,
        updated_at: new Date(),
      };
      await trx
        .insertInto('app_form_configs')
        .values({ app_id: app.id, ...values })
        .onConflict((oc) => oc.column('app_id').doUpdateSet(values))
        .execute();
      const after = await repo.findFormConfig(trx, app.id);
      await audit(
        trx,
        actor,
        companyId,
        'app.form.update',
        app.id,
        formConfigOf(before),
        formConfigOf(after),
      );
      return formConfigOf(after);
    });
  }

  return {
    list,
    detail,
    create,
    update,
    setStatus,
    remove,
    resetSecret,
    uploadLogo,
    assignments,
    assign,
    unassign,
    apiAccounts,
    createApiAccount,
    updateApiAccount,
    resetApiAccountSecret,
    deleteApiAccount,
    formConfig,
    updateFormConfig,
  };
}

export type AppService = ReturnType<typeof createAppService>;
