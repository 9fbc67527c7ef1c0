/**
 * Authentication context: which `acr` values Tessera names, how the methods of a sign-in
 * (`amr`, RFC 8176) reach them, and what a relying party asked for (`acr_values`, or the `acr`
 * member of the `claims` request parameter, OIDC Core §5.5.1.1).
 *
 * The values are the REFEDS profiles, which relying parties of many federations already know:
 * single-factor, and multi-factor (a second, different factor: an authenticator code, a
 * passkey). A multi-factor sign-in satisfies a request for either.
 */
export const ACR_SINGLE_FACTOR = 'https://refeds.org/profile/sfa';
export const ACR_MULTI_FACTOR = 'https://refeds.org/profile/mfa';
export const acrValuesSupported = [ACR_SINGLE_FACTOR, ACR_MULTI_FACTOR] as const;

/** RFC 8176: more than one factor was used. */
export const AMR_MFA = 'mfa';

/** The acr values that a sign-in with these methods satisfies, the strongest first. */
export const acrSatisfiedBy = (amr: readonly string[] | undefined): string[] =>
  amr?.includes(AMR_MFA) ? [ACR_MULTI_FACTOR, ACR_SINGLE_FACTOR] : [ACR_SINGLE_FACTOR];

/**
 * The acr to name for a sign-in with these methods: the first requested value it satisfies
 * (so an application that asked for one gets exactly that one), else its own level.
 */
export function acrFor(amr: readonly string[] | undefined, requested: readonly string[] = []): string {
  const satisfied = acrSatisfiedBy(amr);
  return requested.find((value) => satisfied.includes(value)) ?? (satisfied[0] as string);
}

/** The methods of a sign-in with one more factor: no duplicates, and `mfa` once there are two. */
export const withSecondFactor = (amr: readonly string[], factor: readonly string[]): string[] => [
  ...new Set([...amr, ...factor, AMR_MFA]),
];

interface AcrRequest {
  essential?: boolean;
  value?: unknown;
  values?: unknown;
}

export interface RequestedAcr {
  /** Every acr value the request names, voluntary or essential. */
  values: string[];
  /** The values requested as essential (the `claims` parameter); one of them must be met. */
  essential: string[];
}

const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];

/** What an authorization request asks of the authentication (its raw parameters). */
export function requestedAcr(params: { acr_values?: unknown; claims?: unknown }): RequestedAcr {
  const values = typeof params.acr_values === 'string' ? params.acr_values.split(' ').filter(Boolean) : [];
  let acr: AcrRequest | undefined;
  if (typeof params.claims === 'string') {
    try {
      acr = (JSON.parse(params.claims) as { id_token?: { acr?: AcrRequest } })?.id_token?.acr ?? undefined;
    } catch {
      acr = undefined;
    }
  }
  const named = acr ? [...(typeof acr.value === 'string' ? [acr.value] : []), ...strings(acr.values)] : [];
  return {
    values: [...new Set([...values, ...named])],
    essential: acr?.essential ? named : [],
  };
}

/** Whether the request names multi-factor authentication (then the sign-in asks for a second factor). */
export const multiFactorRequested = (requested: RequestedAcr) => requested.values.includes(ACR_MULTI_FACTOR);
