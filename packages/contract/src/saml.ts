/**
 * SAML 2.0 applications: the values an application's SAML settings take, their limits, and the
 * known settings of the catalogue's SAML service providers. Loaded by the console without zod.
 */

/** The bindings Tessera sends and receives SAML protocol messages on. */
export const samlBindings = ['post', 'redirect'] as const;
export type SamlBinding = (typeof samlBindings)[number];
export const samlBindingUris: Record<SamlBinding, string> = {
  post: 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST',
  redirect: 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect',
};

/** NameID formats (SAML core §8.3). */
export const samlNameIdFormats = ['unspecified', 'emailAddress', 'persistent', 'transient'] as const;
export type SamlNameIdFormat = (typeof samlNameIdFormats)[number];
export const samlNameIdFormatUris: Record<SamlNameIdFormat, string> = {
  unspecified: 'urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified',
  emailAddress: 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
  persistent: 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent',
  transient: 'urn:oasis:names:tc:SAML:2.0:nameid-format:transient',
};

/**
 * What the NameID carries: the username, the email address, or an opaque identifier that is
 * stable for one person at one application and different at every other (`persistent`).
 */
export const samlNameIdSources = ['username', 'email', 'persistent'] as const;
export type SamlNameIdSource = (typeof samlNameIdSources)[number];

/**
 * Where an attribute's values come from: the person's account, their departments in the app's
 * company as paths (`Sales/East`), their role in that company, or one fixed value for everybody
 * (an AWS role ARN, a tenant name).
 */
export const samlAttributeSources = [
  'username',
  'name',
  'email',
  'phone',
  'departments',
  'roles',
  'user_id',
  'fixed',
] as const;
export type SamlAttributeSource = (typeof samlAttributeSources)[number];

export const samlAttributeNameFormats = ['unspecified', 'uri', 'basic'] as const;
export type SamlAttributeNameFormat = (typeof samlAttributeNameFormats)[number];
export const samlAttributeNameFormatUris: Record<SamlAttributeNameFormat, string> = {
  unspecified: 'urn:oasis:names:tc:SAML:2.0:attrname-format:unspecified',
  uri: 'urn:oasis:names:tc:SAML:2.0:attrname-format:uri',
  basic: 'urn:oasis:names:tc:SAML:2.0:attrname-format:basic',
};

/** Signature algorithms of responses and assertions; SHA-1 only for service providers that know nothing else. */
export const samlSignatureAlgorithms = ['rsa-sha256', 'rsa-sha512', 'rsa-sha1'] as const;
export type SamlSignatureAlgorithm = (typeof samlSignatureAlgorithms)[number];

export const samlLimits = {
  entityIdMax: 1024,
  urlMax: 2000,
  acsMax: 10,
  acsIndexMax: 65_535,
  certificatesMax: 4,
  /** A certificate in PEM, with its header lines. */
  certificateChars: 16_384,
  attributesMax: 30,
  attributeNameMax: 256,
  fixedValueMax: 1024,
  relayStateMax: 1024,
  /** An uploaded, pasted or fetched metadata document. */
  metadataBytes: 512 * 1024,
} as const;

/** How an attribute of a catalogue application is filled. */
export interface SamlTemplateAttribute {
  name: string;
  nameFormat: SamlAttributeNameFormat;
  source: SamlAttributeSource;
  /**
   * A fixed value only the administrator knows (a cloud account's role and provider names): the
   * pattern shown in the empty field. The app cannot be enabled until the value is filled in.
   */
  valueHint?: string;
}

/**
 * The known settings of a catalogue SAML service provider. `{baseUrl}` is the application's own
 * address as the administrator enters it, `{host}` its host name.
 */
export interface SamlTemplateSettings {
  /** Null where the service provider's documentation gives none: its metadata is imported instead. */
  entityId: string | null;
  acsUrl: string | null;
  sloUrl: string | null;
  nameIdFormat: SamlNameIdFormat;
  nameIdSource: SamlNameIdSource;
  attributes: readonly SamlTemplateAttribute[];
  signResponse: boolean;
  signAssertion: boolean;
}

/** A template's address pattern filled in with the application's address. */
export function fillSamlPattern(pattern: string, baseUrl: string): string {
  const base = baseUrl.replace(/\/+$/, '');
  let host = '';
  try {
    host = new URL(base).host;
  } catch {
    host = '';
  }
  return pattern.replaceAll('{baseUrl}', base).replaceAll('{host}', host);
}

const loopbackHosts = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Why an address a SAML message is sent to (an ACS or single logout URL) is refused, or null:
 * absolute, https (http on the loopback host only), no user info, fragment or wildcard.
 */
export function samlUrlProblem(value: string): 'invalid' | null {
  if (value.includes('*') || value !== value.trim() || /\s/.test(value) || value.includes('#'))
    return 'invalid';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'invalid';
  }
  if (url.username || url.password || !url.hostname) return 'invalid';
  if (url.protocol === 'https:') return null;
  return url.protocol === 'http:' && loopbackHosts.has(url.hostname.toLowerCase()) ? null : 'invalid';
}
