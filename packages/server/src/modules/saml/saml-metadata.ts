import {
  type SamlNameIdFormat,
  samlBindingUris,
  samlLimits,
  samlNameIdFormats,
  samlNameIdFormatUris,
  samlUrlProblem,
} from '@tessera/contract';
import type { Element } from '@xmldom/xmldom';
import type { SamlAcsEndpoint } from '../../db/schema-saml.ts';
import { AppError } from '../../lib/errors.ts';
import { parseCertificate } from './saml-certificates.ts';
import { attributeOf, childElements, NS, parseXml, SamlInputError, textOf, xmlText } from './saml-xml.ts';

/** The addresses of a company's identity provider. */
export interface IdpEndpoints {
  entityId: string;
  metadataUrl: string;
  ssoUrl: string;
  sloUrl: string;
}

export const SAML_MOUNT = '/saml';

export const idpEndpoints = (publicUrl: string, companyId: string): IdpEndpoints => {
  const base = `${publicUrl}${SAML_MOUNT}/${encodeURIComponent(companyId)}`;
  return { entityId: base, metadataUrl: `${base}/metadata`, ssoUrl: `${base}/sso`, sloUrl: `${base}/slo` };
};

/** The identity provider's metadata: its endpoints for both bindings and its published certificates. */
export function idpMetadataXml(endpoints: IdpEndpoints, certificates: readonly string[]): string {
  const keys = certificates
    .map(
      (cert) =>
        `<md:KeyDescriptor use="signing"><ds:KeyInfo><ds:X509Data><ds:X509Certificate>${cert}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>`,
    )
    .join('\n    ');
  const services = (element: string, location: string) =>
    (['redirect', 'post'] as const)
      .map(
        (binding) => `<md:${element} Binding="${samlBindingUris[binding]}" Location="${xmlText(location)}"/>`,
      )
      .join('\n    ');
  return `<?xml version="1.0" encoding="UTF-8"?>
<md:EntityDescriptor xmlns:md="${NS.metadata}" xmlns:ds="${NS.ds}" entityID="${xmlText(endpoints.entityId)}">
  <md:IDPSSODescriptor WantAuthnRequestsSigned="false" protocolSupportEnumeration="${NS.protocol}">
    ${keys}
    ${services('SingleLogoutService', endpoints.sloUrl)}
    ${samlNameIdFormats.map((format) => `<md:NameIDFormat>${samlNameIdFormatUris[format]}</md:NameIDFormat>`).join('\n    ')}
    ${services('SingleSignOnService', endpoints.ssoUrl)}
  </md:IDPSSODescriptor>
</md:EntityDescriptor>
`;
}

/** What a service provider's metadata says of it, in the shape of the app's settings. */
export interface ServiceProviderMetadata {
  entityId: string;
  acs: SamlAcsEndpoint[];
  sloUrl: string | null;
  sloBinding: 'post' | 'redirect';
  sloResponseUrl: string | null;
  signingCertificates: string[];
  encryptionCertificate: string | null;
  nameIdFormat: SamlNameIdFormat | null;
  /** AuthnRequestsSigned="true": the service provider signs its requests. */
  requestsSigned: boolean;
  /** WantAssertionsSigned="true". */
  wantsAssertionsSigned: boolean;
}

const metadataError = (problem: SamlInputError['problem']) =>
  new AppError(
    problem === 'dtd'
      ? 'saml.metadata_dtd'
      : problem === 'too_large'
        ? 'saml.metadata_too_large'
        : 'saml.metadata_malformed',
  );

/** A metadata document's certificates for one use (a KeyDescriptor without `use` serves both). */
export const certificatesOf = (descriptor: Element, use: 'signing' | 'encryption') =>
  childElements(descriptor, NS.metadata, 'KeyDescriptor')
    .filter((key) => {
      const declared = attributeOf(key, 'use');
      return declared === undefined || declared === use;
    })
    .flatMap((key) => Array.from(key.getElementsByTagNameNS(NS.ds, 'X509Certificate')))
    .map((element) => parseCertificate(textOf(element)));

/** The first NameID format a descriptor lists, if it is one Tessera knows. */
export function nameIdFormatOf(descriptor: Element): SamlNameIdFormat | null {
  const formats = childElements(descriptor, NS.metadata, 'NameIDFormat').map((element) => textOf(element));
  return samlNameIdFormats.find((format) => formats[0] === samlNameIdFormatUris[format]) ?? null;
}

/**
 * Reads a metadata document (uploaded, pasted or fetched) down to the one entity with a SAML 2.0
 * descriptor of the role asked for: a service provider's (SAML applications) or an identity
 * provider's (SAML sources). Size, element count and depth are bounded before parsing; DOCTYPE
 * is refused; an EntitiesDescriptor must hold exactly one such entity.
 */
export function readMetadataDescriptor(
  xml: string,
  role: 'SPSSODescriptor' | 'IDPSSODescriptor',
  missing: 'saml.metadata_no_sp' | 'saml_source.metadata_no_idp',
) {
  let doc: ReturnType<typeof parseXml>;
  try {
    doc = parseXml(xml, { maxBytes: samlLimits.metadataBytes, maxElements: 3000, maxDepth: 32 });
  } catch (error) {
    if (error instanceof SamlInputError) throw metadataError(error.problem);
    throw error;
  }
  const root = doc.documentElement;
  if (!root) throw new AppError('saml.metadata_malformed');
  const entities =
    root.namespaceURI === NS.metadata && root.localName === 'EntitiesDescriptor'
      ? Array.from(root.getElementsByTagNameNS(NS.metadata, 'EntityDescriptor')).filter(
          (entity) => childElements(entity, NS.metadata, role).length > 0,
        )
      : [root];
  if (entities.length > 1) throw new AppError('saml.metadata_many_entities', { count: entities.length });
  const entity = entities[0];
  if (entity?.namespaceURI !== NS.metadata || entity.localName !== 'EntityDescriptor')
    throw new AppError(missing);
  const descriptor = childElements(entity, NS.metadata, role).find((found) =>
    (attributeOf(found, 'protocolSupportEnumeration') ?? '').split(/\s+/).includes(NS.protocol),
  );
  const entityId = attributeOf(entity, 'entityID')?.trim();
  if (!descriptor || !entityId) throw new AppError(missing);
  if (entityId.length > samlLimits.entityIdMax) throw new AppError('saml.entity_id_too_long');
  return { entityId, descriptor };
}

/** Reads a service provider's metadata document (uploaded, pasted or fetched). */
export function parseServiceProviderMetadata(xml: string): ServiceProviderMetadata {
  const { entityId, descriptor } = readMetadataDescriptor(xml, 'SPSSODescriptor', 'saml.metadata_no_sp');

  const acs = childElements(descriptor, NS.metadata, 'AssertionConsumerService')
    .filter((service) => attributeOf(service, 'Binding') === samlBindingUris.post)
    .map((service, position) => ({
      url: attributeOf(service, 'Location')?.trim() ?? '',
      index: Number(attributeOf(service, 'index') ?? position),
      isDefault: attributeOf(service, 'isDefault') === 'true',
    }))
    .filter((service) => !samlUrlProblem(service.url) && Number.isInteger(service.index))
    .slice(0, samlLimits.acsMax);
  if (!acs.length) throw new AppError('saml.metadata_no_acs');

  const logoutServices = childElements(descriptor, NS.metadata, 'SingleLogoutService');
  const logout =
    logoutServices.find((s) => attributeOf(s, 'Binding') === samlBindingUris.redirect) ??
    logoutServices.find((s) => attributeOf(s, 'Binding') === samlBindingUris.post);
  const sloUrl = logout ? (attributeOf(logout, 'Location')?.trim() ?? null) : null;
  const sloResponseUrl = logout ? (attributeOf(logout, 'ResponseLocation')?.trim() ?? null) : null;

  const nameIdFormat = nameIdFormatOf(descriptor);
  const signing = certificatesOf(descriptor, 'signing');
  return {
    entityId,
    acs,
    sloUrl: sloUrl && !samlUrlProblem(sloUrl) ? sloUrl : null,
    sloBinding: logout && attributeOf(logout, 'Binding') === samlBindingUris.post ? 'post' : 'redirect',
    sloResponseUrl: sloResponseUrl && !samlUrlProblem(sloResponseUrl) ? sloResponseUrl : null,
    signingCertificates: [...new Set(signing)].slice(0, samlLimits.certificatesMax),
    encryptionCertificate: certificatesOf(descriptor, 'encryption')[0] ?? null,
    nameIdFormat,
    requestsSigned: attributeOf(descriptor, 'AuthnRequestsSigned') === 'true',
    wantsAssertionsSigned: attributeOf(descriptor, 'WantAssertionsSigned') === 'true',
  };
}
