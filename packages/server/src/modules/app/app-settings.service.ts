import type { app as contract } from '@tessera/contract';
import type { Updateable } from 'kysely';
import type { AppsTable } from '../../db/schema.ts';
import { randomToken } from '../../lib/crypto.ts';
import { AppError } from '../../lib/errors.ts';
import { refusalMessage } from '../../lib/outbound-address.ts';
import { acceptImage, fileUrl, insertFile } from '../files/files.ts';
import { CLIENT_SECRET_PURPOSE } from './app-clients.ts';
import {
  type Actor,
  type AppServiceContext,
  appOf,
  audit,
  audited,
  type Body,
  detailOf,
  readyToEnable,
} from './app-service-shared.ts';

/**
 * The settings of an application (spec §3): its name, OIDC settings, token lifetimes and default
 * access, its client secret and its logo.
 */
export function createAppSettingsService({ db, sealer, metadata, outbound }: AppServiceContext) {
  /** A back-channel logout address the server would never reach is refused when saved, not found out at the first logout. */
  async function checkLogoutAddress(uri: string | null | undefined) {
    const refusal = uri && outbound ? await outbound.refusalOf(uri) : undefined;
    if (!refusal) return;
    const { reason, params } = refusalMessage(refusal);
    throw new AppError(reason, params);
  }

  async function update(actor: Actor, companyId: string, body: Body<typeof contract.updateApp>) {
    await checkLogoutAddress(body.backchannelLogoutUri);
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
      if (body.askConsent !== undefined) set.ask_consent = body.askConsent;
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
      return detailOf(after, metadata, await readyToEnable(trx, after));
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

  return { update, resetSecret, uploadLogo };
}
