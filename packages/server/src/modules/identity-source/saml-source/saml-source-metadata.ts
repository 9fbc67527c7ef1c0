import {
  type SamlBinding,
  samlBindingUris,
  samlLimits,
  samlNameIdFormats,
  samlNameIdFormatUris,
  type samlSource,
  samlUrlProblem,
} from '@tessera/contract';
import type { Element } from '@xmldom/xmldom';
import type { z } from 'zod';
import { AppError } from '../../../lib/errors.ts';
import { parseCertificate } from '../../saml/saml-certificates.ts';
import { certificatePem } from '../../saml/saml-signature.ts';
import { attributeOf, childElements, NS, parseXml, SamlInputError, textOf } from '../../saml/saml-xml.ts';

/**
 * An upstream identity provider's metadata, read into a SAML source's settings: its entity id,
 * single sign-on service (HTTP-Redirect preferred, else HTTP-POST), signing certificates and
 * first NameID format. Parsed as the service provider metadata of SAML applications is
 * (saml-xml.ts): size, element count and depth bounded before parsing, DOCTYPE refused.
 */

type Metadata = z.output<typeof samlSource.samlSourceMetadata>;

const refusal = (problem: SamlInputError['problem']) =>
  new AppError(
    problem === 'dtd'
      ? 'saml.metadata_dtd'
      : problem === 'too_large'
        ? 'saml.metadata_too_large'
        : 'saml.metadata_malformed',
  );

function signingCertificatesOf(descriptor: Element): string[] {
  const found = childElements(descriptor, NS.metadata, 'KeyDescriptor')
    .filter((key) => (attributeOf(key, 'use') ?? 'signing') === 'signing')
    .flatMap((key) => Array.from(key.getElementsByTagNameNS(NS.ds, 'X509Certificate')))
    .map((element) => parseCertificate(textOf(element)));
  return [...new Set(found)].slice(0, samlLimits.certificatesMax);
}

export function parseIdentityProviderMetadata(xml: string): Metadata {
  let doc: ReturnType<typeof parseXml>;
  try {
    doc = parseXml(xml, { maxBytes: samlLimits.metadataBytes, maxElements: 3000, maxDepth: 32 });
  } catch (error) {
    if (error instanceof SamlInputError) throw refusal(error.problem);
    throw error;
  }
  const root = doc.documentElement;
  const entities =
    root?.namespaceURI === NS.metadata && root.localName === 'EntitiesDescriptor'
      ? Array.from(root.getElementsByTagNameNS(NS.metadata, 'EntityDescriptor')).filter(
          (entity) => childElements(entity, NS.metadata, 'IDPSSODescriptor').length > 0,
        )
      : root
        ? [root]
        : [];
  if (entities.length > 1) throw new AppError('saml.metadata_many_entities', { count: entities.length });
  const entity = entities[0];
  if (entity?.namespaceURI !== NS.metadata || entity.localName !== 'EntityDescriptor')
    throw new AppError('saml_source.metadata_no_idp');
  const descriptor = childElements(entity, NS.metadata, 'IDPSSODescriptor').find((idp) =>
    (attributeOf(idp, 'protocolSupportEnumeration') ?? '').split(/\s+/).includes(NS.protocol),
  );
  const entityId = attributeOf(entity, 'entityID')?.trim();
  if (!descriptor || !entityId) throw new AppError('saml_source.metadata_no_idp');
  if (entityId.length > samlLimits.entityIdMax) throw new AppError('saml.entity_id_too_long');

  const services = childElements(descriptor, NS.metadata, 'SingleSignOnService').map((service) => ({
    binding: attributeOf(service, 'Binding'),
    url: attributeOf(service, 'Location')?.trim() ?? '',
  }));
  const usable = (binding: SamlBinding) =>
    services.find((s) => s.binding === samlBindingUris[binding] && !samlUrlProblem(s.url));
  const redirect = usable('redirect');
  const sso = redirect ?? usable('post');
  if (!sso) throw new AppError('saml_source.metadata_no_sso');

  // Single logout over HTTP-Redirect, the binding Tessera sends its LogoutRequest on.
  const slo = childElements(descriptor, NS.metadata, 'SingleLogoutService')
    .filter((service) => attributeOf(service, 'Binding') === samlBindingUris.redirect)
    .map((service) => attributeOf(service, 'Location')?.trim() ?? '')
    .find((url) => url && !samlUrlProblem(url));
  const formats = childElements(descriptor, NS.metadata, 'NameIDFormat').map((element) => textOf(element));
  return {
    idpEntityId: entityId,
    ssoUrl: sso.url,
    ssoBinding: redirect ? 'redirect' : 'post',
    sloUrl: slo ?? null,
    signingCertificates: signingCertificatesOf(descriptor).map(certificatePem),
    nameIdFormat: samlNameIdFormats.find((format) => formats[0] === samlNameIdFormatUris[format]) ?? null,
  };
}
