import type { KoaContextWithOIDC } from 'oidc-provider';

/**
 * Whether an end-session request names the very session it would end, so the person need not
 * confirm (OpenID Connect RP-Initiated Logout 1.0 §2 and §6 leave the confirmation to the OP: it
 * protects against someone else's page logging the person out).
 *
 * Called from `logoutSource`, that is after oidc-provider validated the `id_token_hint` (its
 * signature, our issuer, the requesting client as its audience; a hint that fails any of these
 * is refused before) and only when the browser has a signed-in session. The hint's `sub` must be
 * the session's account as that client sees it, and its `sid` the session's id at that client: a
 * hint of another person, of an earlier session or of another application's session asks.
 */
export async function hintNamesSession(
  ctx: KoaContextWithOIDC,
  subjectFor: (
    client: NonNullable<KoaContextWithOIDC['oidc']['client']>,
    accountId: string,
  ) => Promise<string>,
): Promise<boolean> {
  const { client, session, entities } = ctx.oidc;
  const hint = (entities as { IdTokenHint?: { payload?: { sub?: unknown; sid?: unknown; aud?: unknown } } })
    .IdTokenHint?.payload;
  const accountId = session?.accountId;
  if (!hint || !client || !accountId || hint.aud !== client.clientId) return false;
  const sid = session.sidFor(client.clientId);
  if (typeof hint.sid !== 'string' || !sid || hint.sid !== sid) return false;
  return typeof hint.sub === 'string' && hint.sub === (await subjectFor(client, accountId));
}
