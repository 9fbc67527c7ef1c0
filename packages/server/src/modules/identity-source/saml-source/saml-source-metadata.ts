import {
  type SamlBinding,
  samlBindingUris,
  samlLimits,
  type samlSource,
  samlUrlProblem,
} from '@tessera/contract';
import type { z } from 'zod';
import { AppError } from '../../../lib/errors.ts';
import { certificatesOf, nameIdFormatOf, readMetadataDescriptor } from '../../saml/saml-metadata.ts';
import { certificatePem } from '../../saml/saml-signature.ts';
import { attributeOf, childElements, NS } from '../../saml/saml-xml.ts';

/**
 * An upstream identity provider's metadata, read into a SAML source's settings: its entity id,
 * single sign-on service (HTTP-Redirect preferred, else HTTP-POST), signing certificates and
 * first NameID format. Read by the same reader as the service provider metadata of SAML
 * applications (saml-metadata.ts).
 */

type Metadata = z.output<typeof samlSource.samlSourceMetadata>;

export function parseIdentityProviderMetadata(xml: string): Metadata {
  const { entityId, descriptor } = readMetadataDescriptor(
    xml,
    'IDPSSODescriptor',
    'saml_source.metadata_no_idp',
  );
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
  const signing = [...new Set(certificatesOf(descriptor, 'signing'))].slice(0, samlLimits.certificatesMax);
  return {
    idpEntityId: entityId,
    ssoUrl: sso.url,
    ssoBinding: redirect ? 'redirect' : 'post',
    sloUrl: slo ?? null,
    signingCertificates: signing.map(certificatePem),
    nameIdFormat: nameIdFormatOf(descriptor),
  };
}
