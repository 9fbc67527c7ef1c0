import { SAML, ValidateInResponseTo } from '@node-saml/node-saml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request, signInToPortal } from '../../test/browser-flow.ts';
import { call, companyMember, ownerWithCompany, startTestApp, type TestContext } from '../../test/harness.ts';
import { autoPostForm, manage, travel } from '../../test/saml-flow.ts';

/**
 * The catalogue's applications of Chinese companies (issue 35): each is created with the
 * addresses its documentation gives; a cloud console's role is left for the administrator to
 * fill in and keeps the app from being enabled until then; and the response a real service
 * provider (@node-saml/node-saml, set up as Alibaba Cloud's role SSO) receives carries the roles.
 */
let ctx: TestContext;
let owner: Awaited<ReturnType<typeof ownerWithCompany>>;
let dora: { id: string; username: string; password: string };

const asOwner = () => ({ token: owner.token, companyId: owner.companyId });

beforeAll(async () => {
  ctx = await startTestApp({ listen: true });
  owner = await ownerWithCompany(ctx, 'cn-owner', 'Catalogue Co');
  dora = await companyMember(ctx, owner, 'cn-dora');
});
afterAll(async () => {
  await ctx?.close();
});

async function fromCatalogue(template: string, protocol: string, baseUrl: string) {
  const created = await manage<{ app: { appId: string } }>(ctx, owner, '/api/v1/manage/app/create', {
    name: template,
    type: 'third_party',
    protocol,
    template,
    baseUrl,
  });
  return created.app.appId;
}

const samlOf = (appId: string) =>
  manage<{
    entityId: string | null;
    acs: { url: string }[];
    nameIdFormat: string;
    nameIdSource: string;
    attributes: { name: string; nameFormat: string; source: string; value: string | null }[];
  }>(ctx, owner, '/api/v1/manage/app/saml/detail', { appId });

describe('catalogue applications of Chinese companies', () => {
  it('Feishu: SAML to https://www.feishu.cn with its ACS, the NameID its registered email', async () => {
    const settings = await samlOf(await fromCatalogue('feishu', 'saml', 'https://www.feishu.cn'));
    expect(settings).toMatchObject({
      entityId: 'https://www.feishu.cn',
      acs: [{ url: 'https://www.feishu.cn/suite/passport/authentication/idp/saml/call_back' }],
      nameIdSource: 'email',
    });
  });

  it('JumpServer: OIDC with the callback under core/auth/openid/ and its login start', async () => {
    const appId = await fromCatalogue('jumpserver', 'oidc', 'https://jms.example.com/');
    const detail = await manage<{ oidc: unknown }>(ctx, owner, '/api/v1/manage/app/detail', { appId });
    expect(detail.oidc).toMatchObject({
      redirectUris: ['https://jms.example.com/core/auth/openid/callback/'],
      initiateLoginUri: 'https://jms.example.com/core/auth/openid/login/',
      tokenAuthMethod: 'client_secret_basic',
      scopes: ['openid', 'profile', 'email'],
    });
  });

  it('ZenTao: a form-fill app, to be configured', async () => {
    const appId = await fromCatalogue('zentao', 'form', 'https://zentao.example.com');
    const detail = await manage(ctx, owner, '/api/v1/manage/app/detail', { appId });
    expect(detail).toMatchObject({ protocol: 'form', template: 'zentao', status: 'to_be_configured' });
  });

  it('Tencent Cloud: audience cloud.tencent.com, ACS /login/saml, RoleSessionName and a Role to fill in', async () => {
    const settings = await samlOf(
      await fromCatalogue('tencent_cam', 'saml', 'https://console.cloud.tencent.com'),
    );
    expect(settings).toMatchObject({
      entityId: 'cloud.tencent.com',
      acs: [{ url: 'https://cloud.tencent.com/login/saml' }],
      attributes: [
        {
          name: 'https://cloud.tencent.com/SAML/Attributes/RoleSessionName',
          nameFormat: 'uri',
          source: 'username',
        },
        {
          name: 'https://cloud.tencent.com/SAML/Attributes/Role',
          nameFormat: 'uri',
          source: 'fixed',
          value: null,
        },
      ],
    });
  });

  it('Huawei Cloud: the IAM attributes, and no addresses until its metadata is imported', async () => {
    const appId = await fromCatalogue('huawei_iam', 'saml', 'https://console.huaweicloud.com');
    const settings = await samlOf(appId);
    expect(settings.entityId).toBeNull();
    expect(settings.acs).toEqual([]);
    expect(settings.attributes.map((a) => [a.name, a.source])).toEqual([
      ['IAM_SAML_Attributes_xUserId', 'username'],
      ['IAM_SAML_Attributes_domain_id', 'fixed'],
      ['IAM_SAML_Attributes_idp_id', 'fixed'],
    ]);
    const refused = await call(ctx, '/api/v1/manage/app/status', { appId, status: 'opened' }, asOwner());
    expect(refused).toMatchObject({ code: 409, data: { reason: 'app.not_configured' } });
  });
});

describe('Alibaba Cloud RAM role SSO', () => {
  let appId: string;

  beforeAll(async () => {
    appId = await fromCatalogue('aliyun_ram', 'saml', 'https://signin.alibabacloud.com');
    await manage(ctx, owner, '/api/v1/manage/app/update', { appId, defaultAccess: 'allow_all' });
  });

  it('comes with the documented SP and attributes, its Role left to fill', async () => {
    expect(await samlOf(appId)).toMatchObject({
      entityId: 'urn:alibaba:cloudcomputing:international',
      acs: [{ url: 'https://signin.alibabacloud.com/saml-role/sso' }],
      attributes: [
        { name: 'https://www.aliyun.com/SAML-Role/Attributes/RoleSessionName', source: 'username' },
        { name: 'https://www.aliyun.com/SAML-Role/Attributes/Role', source: 'fixed', value: null },
      ],
    });
  });

  it('cannot be enabled until the Role is filled in, in either language, and nothing changes', async () => {
    for (const [lang, phrase] of [
      ['en', 'fill in the value of the SAML attribute https://www.aliyun.com/SAML-Role/Attributes/Role'],
      ['zh', '请先在 SAML 标签页填写属性 https://www.aliyun.com/SAML-Role/Attributes/Role 的值'],
    ] as const) {
      const refused = await call(
        ctx,
        '/api/v1/manage/app/status',
        { appId, status: 'opened' },
        {
          ...asOwner(),
          lang,
        },
      );
      expect(refused).toMatchObject({ code: 409, data: { reason: 'app.saml_value_missing' } });
      expect(refused.msg).toContain(phrase);
    }
    const detail = await manage(ctx, owner, '/api/v1/manage/app/detail', { appId });
    expect(detail).toMatchObject({ status: 'to_be_configured' });
  });

  it('once filled, sends the service provider a response with the role pair and the session name', async () => {
    const role = 'acs:ram::1234567890:role/developer,acs:ram::1234567890:saml-provider/tessera';
    const current = await samlOf(appId);
    await manage(ctx, owner, '/api/v1/manage/app/saml/update', {
      appId,
      attributes: current.attributes.map((a) => ({ ...a, value: a.source === 'fixed' ? role : a.value })),
    });
    await manage(ctx, owner, '/api/v1/manage/app/status', { appId, status: 'opened' });

    const idp = await manage<{ entityId: string; ssoUrl: string; certificates: { pem: string }[] }>(
      ctx,
      owner,
      '/api/v1/manage/app/saml/idp',
      {},
    );
    // Alibaba Cloud as a service provider: its audience and ACS, our certificate, signed assertions.
    const alibaba = new SAML({
      issuer: 'urn:alibaba:cloudcomputing:international',
      audience: 'urn:alibaba:cloudcomputing:international',
      callbackUrl: 'https://signin.alibabacloud.com/saml-role/sso',
      idpIssuer: idp.entityId,
      idpCert: idp.certificates.map((c) => c.pem.replace(/-----[A-Z ]+-----|\s+/g, '')),
      wantAssertionsSigned: true,
      wantAuthnResponseSigned: true,
      validateInResponseTo: ValidateInResponseTo.never,
    });

    // Alibaba Cloud is opened from My apps: the sign-in starts here and posts to its ACS.
    const { jar } = await signInToPortal(ctx.baseUrl, dora.username, dora.password);
    const launch = `${ctx.baseUrl}/portal/apps/${appId}/launch`;
    const page = await travel(jar, await request(jar, launch), launch);
    const form = autoPostForm(page.html);
    expect(form.action).toBe('https://signin.alibabacloud.com/saml-role/sso');

    const { profile } = await alibaba.validatePostResponseAsync({
      SAMLResponse: form.fields.SAMLResponse ?? '',
    });
    expect(profile?.['https://www.aliyun.com/SAML-Role/Attributes/Role']).toBe(role);
    expect(profile?.['https://www.aliyun.com/SAML-Role/Attributes/RoleSessionName']).toBe(dora.username);
  });
});
