import type { TestContext } from '../test/harness.ts';
import { call } from '../test/harness.ts';

/**
 * The tenant wall's probes of the RADIUS and certificate authority calls (issue 17): company B's
 * RADIUS client, its CA and a certificate it issued to B's person, named in A's probes. B's
 * clients, CAs and certificates must come out as they were, and neither the client's secret nor
 * the CA's or certificate's names and fingerprints may appear in any answer to A.
 */
export function pkiWall(
  ctxOf: () => TestContext,
  bOf: () => { token: string; companyId: string },
  bMemberIdOf: () => string,
) {
  let clientId = '';
  let secret = '';
  let caId = '';
  let caFingerprint = '';
  let certificateId = '';
  let certificateFingerprint = '';
  const asB = () => ({ token: bOf().token, companyId: bOf().companyId });

  async function setUp() {
    const ctx = ctxOf();
    const client = await call<{ client: { clientId: string }; secret: string }>(
      ctx,
      '/api/v1/manage/radius/client/create',
      { name: 'Beta Secret VPN', source: '10.66.0.0/16' },
      asB(),
    );
    clientId = client.data.client.clientId;
    secret = client.data.secret;
    const ca = await call<{ caId: string; fingerprint: string }>(
      ctx,
      '/api/v1/manage/ca/create',
      { name: 'Beta Secret CA', algorithm: 'ecc', strength: 'P-256' },
      asB(),
    );
    caId = ca.data.caId;
    caFingerprint = ca.data.fingerprint;
    const issued = await call<{ certificate: { certificateId: string; fingerprint: string } }>(
      ctx,
      '/api/v1/manage/ca/certificate/issue',
      { caId, userId: bMemberIdOf(), keyAlgorithm: 'ecc', keyStrength: 'P-256' },
      asB(),
    );
    certificateId = issued.data.certificate.certificateId;
    certificateFingerprint = issued.data.certificate.fingerprint;
  }

  async function stateOfB() {
    const { db } = ctxOf().database;
    const companyId = bOf().companyId;
    const clients = await db
      .selectFrom('radius_clients')
      .selectAll()
      .where('company_id', '=', companyId)
      .execute();
    const cas = await db
      .selectFrom('certificate_authorities')
      .select(['id', 'name', 'fingerprint', 'crl_number', 'private_key_sealed'])
      .where('company_id', '=', companyId)
      .execute();
    const certificates = await db
      .selectFrom('issued_certificates')
      .select(['id', 'account_id', 'fingerprint', 'revoked_at', 'revocation_reason'])
      .where('company_id', '=', companyId)
      .execute();
    return JSON.stringify([clients, cas, certificates]);
  }

  const probes: Record<string, () => unknown> = {
    '/api/v1/manage/radius/client/list': () => ({ companyId: bOf().companyId }),
    '/api/v1/manage/radius/client/create': () => ({ name: 'Planted by A', source: '10.66.1.0/24' }),
    '/api/v1/manage/radius/client/update': () => ({ clientId, name: 'Renamed by A', enabled: false }),
    '/api/v1/manage/radius/client/secret/reset': () => ({ clientId }),
    '/api/v1/manage/radius/client/del': () => ({ clientId }),
    '/api/v1/manage/ca/list': () => ({ companyId: bOf().companyId }),
    '/api/v1/manage/ca/create': () => ({ name: 'Planted by A', algorithm: 'ecc', strength: 'P-256' }),
    '/api/v1/manage/ca/import': () => ({ name: 'Planted by A' }),
    '/api/v1/manage/ca/detail': () => ({ caId }),
    '/api/v1/manage/ca/del': () => ({ caId }),
    '/api/v1/manage/ca/certificate/list': () => ({ caId, userId: bMemberIdOf() }),
    '/api/v1/manage/ca/certificate/issue': () => ({
      caId,
      userId: bMemberIdOf(),
      keyAlgorithm: 'ecc',
      keyStrength: 'P-256',
    }),
    '/api/v1/manage/ca/certificate/detail': () => ({ certificateId }),
    '/api/v1/manage/ca/certificate/revoke': () => ({ certificateId, reason: 'keyCompromise' }),
  };

  return {
    setUp,
    stateOfB,
    probes,
    secrets: () => [
      secret,
      'Beta Secret VPN',
      '10.66.0.0/16',
      'Beta Secret CA',
      caFingerprint,
      certificateFingerprint,
    ],
  };
}
