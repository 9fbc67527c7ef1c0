import { type AppTemplate, appTemplates, type app as contract } from '@tessera/contract';
import type { Db } from '../../db/database.ts';
import { randomToken, type Sealer } from '../../lib/crypto.ts';
import { AppError, uniqueViolationAs } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import type { OutboundPolicy } from '../../lib/outbound-address.ts';
import { casTemplateSettings } from '../cas/cas-config.service.ts';
import type { QuotaService } from '../license/quota.service.ts';
import { templateSettings as samlTemplateSettings } from '../saml/saml-config.service.ts';
import * as repo from './app.repo.ts';
import { createAppApiAccountsService } from './app-api-accounts.service.ts';
import { createAppAssignmentsService } from './app-assignments.service.ts';
import { CLIENT_SECRET_PURPOSE } from './app-clients.ts';
import { createAppFormService } from './app-form.service.ts';
import { createAppGroupAssignmentsService } from './app-group-assignments.service.ts';
import {
  type Actor,
  type AppServiceContext,
  appOf,
  audit,
  audited,
  type Body,
  detailOf,
  providerMetadata,
  readyToEnable,
  summary,
} from './app-service-shared.ts';
import { createAppSettingsService } from './app-settings.service.ts';

export { FORM_PASSWORD_PURPOSE } from './app-form.service.ts';
export type { Actor } from './app-service-shared.ts';

/**
 * Applications of a company (spec §3 Application). Every change is one transaction with its
 * audit event; the provider reads clients from the database on each request (app-clients.ts),
 * so nothing else needs to be told. Secrets are stored sealed and answered once.
 *
 * This file holds an application's life (list, detail, create, open or disable, delete); its
 * sub-areas are their own files: settings, client secret and logo (app-settings.service.ts),
 * assigned users (app-assignments.service.ts), assigned departments and roles
 * (app-group-assignments.service.ts), programmatic access accounts
 * (app-api-accounts.service.ts) and form-fill settings (app-form.service.ts).
 */
export function createAppService(deps: {
  db: Db;
  sealer: Sealer;
  issuer: string;
  quotas: Pick<QuotaService, 'takePlaces'>;
  /** Where back-channel logout may be delivered (TESSERA_OUTBOUND_ALLOWED_NETWORKS); checked when saved. */
  outbound?: Pick<OutboundPolicy, 'refusalOf'>;
}) {
  const { db, sealer, issuer, quotas } = deps;
  const context: AppServiceContext = {
    db,
    sealer,
    metadata: providerMetadata(issuer),
    outbound: deps.outbound,
  };
  const { metadata } = context;

  async function list(companyId: string, query: Body<typeof contract.listApps>) {
    const { rows, total } = await repo.listApps(db, companyId, query);
    return { list: rows.map(summary), total };
  }

  async function detail(companyId: string, appId: string) {
    const app = await appOf(db, companyId, appId);
    return detailOf(app, metadata, await readyToEnable(db, app));
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
      // A catalogue CAS app allows its own address as a prefix service URL pattern (modules/cas).
      if (template?.protocol === 'cas' && baseUrl)
        await trx
          .insertInto('app_cas_configs')
          .values({ app_id: app.id, company_id: companyId, ...casTemplateSettings(baseUrl) })
          .execute();
      await audit(trx, actor, companyId, 'app.create', app.id, undefined, audited(app));
      return { app: detailOf(app, metadata, await readyToEnable(trx, app)), clientSecret };
    });
  }

  async function setStatus(actor: Actor, companyId: string, body: Body<typeof contract.setAppStatus>) {
    return db.transaction().execute(async (trx) => {
      const before = await appOf(trx, companyId, body.appId, true);
      if (body.status === 'opened') {
        // A catalogue value the administrator must fill in is named (the generic refusal below says less).
        const missing = before.protocol === 'saml' ? await repo.samlMissing(trx, before.id) : null;
        if (missing?.kind === 'value')
          throw new AppError('app.saml_value_missing', { name: missing.attribute });
        if (!(await readyToEnable(trx, before))) throw new AppError('app.not_configured');
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

  return {
    list,
    detail,
    create,
    setStatus,
    remove,
    ...createAppSettingsService(context),
    ...createAppAssignmentsService(context),
    ...createAppGroupAssignmentsService(context),
    ...createAppApiAccountsService(context),
    ...createAppFormService(context),
  };
}

export type AppService = ReturnType<typeof createAppService>;
