import type { Language, samlSource } from '@tessera/contract';
import type { z } from 'zod';
import { AppError } from '../../../lib/errors.ts';
import { certificateInfo, generateSigningKey, parseCertificate } from '../../saml/saml-certificates.ts';
import { certificatePem } from '../../saml/saml-signature.ts';
import type { SamlSettings } from '../identity-source.repo.ts';
import { fieldError } from '../source-settings.ts';

/**
 * A SAML source's settings as stored (certificates as base64 DER, the certificate of Tessera's
 * key beside them) and Tessera's side of it: entity id, ACS and metadata addresses.
 */

type SettingsInput = Omit<z.output<typeof samlSource.samlSourceSettings>, 'name' | 'enabled'>;

/** Where the upstream sends people back to, and where it reads Tessera's metadata. */
export const SAML_SOURCE_PATH = '/saml-source';

export function serviceProviderEndpoints(publicUrl: string, sourceId: string) {
  const base = `${publicUrl}${SAML_SOURCE_PATH}/${encodeURIComponent(sourceId)}`;
  // The metadata address is the entity id (as Tessera's identity provider does): it says where to read it.
  return {
    entityId: `${base}/metadata`,
    metadataUrl: `${base}/metadata`,
    acsUrl: `${base}/acs`,
    sloUrl: `${base}/slo`,
  };
}

/** The settings to store: every certificate checked and kept as base64 DER (the same one once). */
export function storedSamlSettings(
  lang: Language,
  input: SettingsInput,
  spCertificate: string,
): SamlSettings {
  const certificates: string[] = [];
  for (const [index, text] of input.signingCertificates.entries()) {
    try {
      certificates.push(parseCertificate(text));
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      throw fieldError(lang, `signingCertificates.${index}`, error.reason);
    }
  }
  return { ...input, signingCertificates: [...new Set(certificates)], spCertificate };
}

/** A new key for a source's AuthnRequests: the private key PEM (sealed as the source's secret) and its certificate. */
export async function newServiceProviderKey(sourceId: string) {
  const key = await generateSigningKey(`CN=Tessera SAML source ${sourceId}`);
  return {
    privateKeyPem: key.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    certificate: key.certificate,
  };
}

/** The stored settings as the console shows them, and what to give the upstream. */
export function samlSourceView(publicUrl: string, sourceId: string, settings: SamlSettings) {
  const { spCertificate, ...rest } = settings;
  return {
    settings: { ...rest, signingCertificates: rest.signingCertificates.map(certificatePem) },
    serviceProvider: {
      ...serviceProviderEndpoints(publicUrl, sourceId),
      certificate: certificateInfo(spCertificate),
    },
  };
}
