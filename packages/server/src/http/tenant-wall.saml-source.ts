import type { TestContext } from '../test/harness.ts';
import { call } from '../test/harness.ts';

/**
 * The tenant wall's probes of the SAML identity source calls (issue 33): company B's SAML
 * source (its upstream's entity id and SSO address), which A's reading of metadata must leave as
 * it was and never show.
 */
export function samlSourceWall(ctxOf: () => TestContext, bOf: () => { token: string; companyId: string }) {
  const idpEntityId = 'https://idp.beta-secret.example/saml';
  let sourceId = '';

  /** A small identity provider metadata document (the probe reads one; nothing is stored). */
  const idpMetadata = (entityId: string, certificate: string) =>
    `<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" entityID="${entityId}"><md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol"><md:KeyDescriptor use="signing"><ds:KeyInfo><ds:X509Data><ds:X509Certificate>${certificate}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor><md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="https://idp.alpha.example/sso"/></md:IDPSSODescriptor></md:EntityDescriptor>`;
  let certificate = '';

  async function setUp() {
    // Any RSA certificate will do: B's own SAML identity provider's.
    const idp = await call<{ certificates: { pem: string }[] }>(
      ctxOf(),
      '/api/v1/manage/app/saml/idp',
      {},
      bOf(),
    );
    certificate = idp.data.certificates[0]?.pem ?? '';
    const created = await call<{ sourceId: string }>(
      ctxOf(),
      '/api/v1/manage/identity-source/create',
      {
        type: 'saml',
        name: 'Beta Secret Upstream',
        idpEntityId,
        ssoUrl: 'https://idp.beta-secret.example/sso',
        signingCertificates: [certificate],
      },
      bOf(),
    );
    if (created.code !== 200) throw new Error(`B's SAML source: ${JSON.stringify(created)}`);
    sourceId = created.data.sourceId;
  }

  const stateOfB = async () =>
    JSON.stringify((await call(ctxOf(), '/api/v1/manage/identity-source/detail', { sourceId }, bOf())).data);

  const probes: Record<string, () => unknown> = {
    '/api/v1/manage/identity-source/saml/metadata/read': () => ({
      xml: idpMetadata('https://idp.alpha.example/saml', certificate.replace(/-----[A-Z ]+-----|\s+/g, '')),
    }),
    // B's source, named by A: not found (and nothing read or changed).
    '/api/v1/manage/identity-source/saml/metadata/refresh': () => ({ sourceId }),
  };

  return { setUp, stateOfB, probes, secrets: () => [idpEntityId] };
}
