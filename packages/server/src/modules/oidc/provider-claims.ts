/**
 * Claims released per scope; the values come from the account in findAccount (provider.ts). The
 * ID token always says how and when the person signed in (`acr`, `amr`, `auth_time`); `sid` names
 * the session for logout (requested on every authorization, see `authorization.accepted` in
 * provider.ts).
 */
const scopeClaims = {
  profile: ['name', 'preferred_username', 'updated_at'],
  email: ['email', 'email_verified'],
  phone: ['phone_number', 'phone_number_verified'],
  // An application's people: their departments in the application's company (see findAccount).
  groups: ['groups'],
  // What the person may do in the application (modules/permission).
  permissions: ['permissions'],
} as const;
export const claims = {
  acr: null,
  amr: null,
  auth_time: null,
  sid: null,
  iss: null,
  openid: ['sub', 'acr', 'amr', 'auth_time'],
  ...scopeClaims,
};

/** The claims a client may read: those of the scopes it is allowed (all for Tessera's own). */
export function allowedClaims(client: { scope?: string } | undefined): Set<string> | undefined {
  if (!client?.scope) return undefined;
  const allowed = new Set(client.scope.split(' '));
  return new Set(
    Object.entries(scopeClaims)
      .filter(([scope]) => allowed.has(scope))
      .flatMap(([, names]) => names),
  );
}
