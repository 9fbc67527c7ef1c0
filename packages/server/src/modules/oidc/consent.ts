import type { KoaContextWithOIDC } from 'oidc-provider';
import type { Db } from '../../db/database.ts';
import { appOf, type TesseraAppClient } from './clients.ts';

/**
 * Consent, as enterprise identity providers do it: the company administrator decides who may
 * use an application (modules/app/app-access.ts); the person is asked only where that decision
 * does not cover what the application reads.
 * - Tessera's own clients (console, user centre) and the applications a company adds, self-built
 *   and catalogue alike, are consented automatically: the grant records exactly what they asked
 *   for, as a consent would.
 * - An application the administrator marks as asking for consent (one run by another
 *   organisation) asks each person once for what it reads, on the consent page; the answer is
 *   remembered per person and application, so the page shows again only for something new (a
 *   scope or claim not allowed before).
 * - `prompt=consent` shows the page to anyone but Tessera's own clients, and a native app is
 *   confirmed when it reuses a single sign-on session (oidc-provider's native_client_prompt):
 *   another app could claim its redirect scheme.
 */

export interface RememberedConsent {
  scopes: string[];
  claims: string[];
}

export function createConsentStore(db: Db) {
  return {
    async find(appId: string, accountId: string): Promise<RememberedConsent | undefined> {
      const row = await db
        .selectFrom('app_consents')
        .select(['scopes', 'claims'])
        .where('app_id', '=', appId)
        .where('account_id', '=', accountId)
        .executeTakeFirst();
      return row ? { scopes: row.scopes, claims: row.claims } : undefined;
    },
    /** Adds to what the person allowed the application (never narrows it). */
    async remember(appId: string, accountId: string, consent: RememberedConsent): Promise<void> {
      await db.transaction().execute(async (trx) => {
        const before = await trx
          .selectFrom('app_consents')
          .select(['scopes', 'claims'])
          .where('app_id', '=', appId)
          .where('account_id', '=', accountId)
          .forUpdate()
          .executeTakeFirst();
        const scopes = JSON.stringify([...new Set([...(before?.scopes ?? []), ...consent.scopes])]);
        const claims = JSON.stringify([...new Set([...(before?.claims ?? []), ...consent.claims])]);
        await trx
          .insertInto('app_consents')
          .values({ app_id: appId, account_id: accountId, scopes, claims })
          .onConflict((oc) =>
            oc.columns(['app_id', 'account_id']).doUpdateSet({ scopes, claims, updated_at: new Date() }),
          )
          .execute();
      });
    },
  };
}

export type ConsentStore = ReturnType<typeof createConsentStore>;

/** Clients whose consent is given without a page (unless the request asks for the page). */
export const consentIsAutomatic = (app: TesseraAppClient | undefined) => !app?.askConsent;

type Grant = InstanceType<KoaContextWithOIDC['oidc']['provider']['Grant']>;

/** Adds scopes and claims to a grant; answers whether anything was new. */
export function extendGrant(grant: Grant, scopes: Iterable<string>, claims: Iterable<string>): boolean {
  const scopesBefore = grant.getOIDCScopeEncountered();
  const claimsBefore = grant.getOIDCClaimsEncountered().length;
  const scopeList = [...scopes];
  const claimList = [...claims];
  if (scopeList.length) grant.addOIDCScope(scopeList);
  if (claimList.length) grant.addOIDCClaims(claimList);
  return (
    grant.getOIDCScopeEncountered() !== scopesBefore ||
    grant.getOIDCClaimsEncountered().length !== claimsBefore
  );
}

/**
 * oidc-provider's `loadExistingGrant`: the grant of this session (or of the consent just given),
 * topped up with what the request asks for when consent is automatic; for a third-party app a
 * new session starts from what the person allowed it before.
 */
export function createGrantLoader(consents: ConsentStore) {
  return async function loadExistingGrant(ctx: KoaContextWithOIDC): Promise<Grant | undefined> {
    const { oidc } = ctx;
    const client = oidc.client!;
    const accountId = oidc.session?.accountId;
    const grantId = oidc.result?.consent?.grantId || oidc.session?.grantIdFor(client.clientId);
    let grant = grantId ? await oidc.provider.Grant.find(grantId) : undefined;
    // A grant of someone else (never expected) is not reused.
    if (grant && grant.accountId !== accountId) grant = undefined;
    if (!accountId) return grant;
    const app = appOf(client);
    if (consentIsAutomatic(app)) {
      const fresh = !grant;
      grant ??= new oidc.provider.Grant({ clientId: client.clientId, accountId });
      const changed = extendGrant(grant, oidc.requestParamOIDCScopes, oidc.requestParamClaims);
      if (fresh || changed) await grant.save();
      return grant;
    }
    if (!grant && app) {
      const remembered = await consents.find(app.appId, accountId);
      if (remembered) {
        grant = new oidc.provider.Grant({ clientId: client.clientId, accountId });
        extendGrant(grant, remembered.scopes, remembered.claims);
        await grant.save();
      }
    }
    return grant;
  };
}
