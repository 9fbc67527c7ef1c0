import type { AppTemplate } from './constants.ts';
import type { SamlTemplateSettings } from './saml.ts';

/**
 * The catalogue's SAML service providers with their documented settings (each entry names the
 * page they come from). `{baseUrl}` is the application's address as the administrator enters it.
 */
export const samlAppTemplates: readonly AppTemplate[] = [
  samlTemplate(
    'aws',
    'AWS (IAM federation)',
    'https://docs.aws.amazon.com/IAM/latest/UserGuide/id_roles_providers_create_saml_assertions.html',
    {
      // The console's sign-in endpoint; AWS is opened from "My apps" (IdP-initiated).
      entityId: 'urn:amazon:webservices',
      acsUrl: 'https://signin.aws.amazon.com/saml',
      sloUrl: null,
      nameIdFormat: 'persistent',
      nameIdSource: 'persistent',
      attributes: [
        {
          name: 'https://aws.amazon.com/SAML/Attributes/RoleSessionName',
          nameFormat: 'uri',
          source: 'username',
        },
        // "role ARN,provider ARN" pairs; the administrator fills in the account's values.
        { name: 'https://aws.amazon.com/SAML/Attributes/Role', nameFormat: 'uri', source: 'fixed' },
      ],
      signResponse: true,
      signAssertion: true,
    },
  ),
  samlTemplate(
    'salesforce',
    'Salesforce',
    'https://help.salesforce.com/s/articleView?id=xcloud.sso_service_provider_configuration.htm',
    {
      // My Domain: https://<domain>.my.salesforce.com is both the entity id and the login URL.
      entityId: '{baseUrl}',
      acsUrl: '{baseUrl}',
      sloUrl: '{baseUrl}/services/auth/sp/saml2/logout',
      nameIdFormat: 'unspecified',
      nameIdSource: 'email',
      attributes: [],
      signResponse: true,
      signAssertion: true,
    },
  ),
  samlTemplate('zoom', 'Zoom', 'https://support.zoom.com/hc/en/article?id=zm_kb&sysparm_article=KB0065487', {
    // Zoom's entity id is the vanity host without a scheme (https://<vanity>.zoom.us).
    entityId: '{host}',
    acsUrl: '{baseUrl}/saml/SSO',
    sloUrl: '{baseUrl}/saml/SingleLogout',
    nameIdFormat: 'emailAddress',
    nameIdSource: 'email',
    attributes: [{ name: 'urn:oid:0.9.2342.19200300.100.1.3', nameFormat: 'uri', source: 'email' }],
    signResponse: true,
    signAssertion: true,
  }),
  samlTemplate('gitlab_saml', 'GitLab', 'https://docs.gitlab.com/integration/saml/', {
    // gitlab.rb: issuer '<url>', assertion_consumer_service_url '<url>/users/auth/saml/callback'.
    entityId: '{baseUrl}',
    acsUrl: '{baseUrl}/users/auth/saml/callback',
    sloUrl: null,
    nameIdFormat: 'persistent',
    nameIdSource: 'persistent',
    attributes: [
      { name: 'email', nameFormat: 'basic', source: 'email' },
      { name: 'name', nameFormat: 'basic', source: 'name' },
      { name: 'username', nameFormat: 'basic', source: 'username' },
    ],
    signResponse: true,
    signAssertion: true,
  }),
  samlTemplate('nextcloud_saml', 'Nextcloud', 'https://github.com/nextcloud/user_saml', {
    // The "SSO & SAML authentication" app (user_saml).
    entityId: '{baseUrl}/apps/user_saml/saml/metadata',
    acsUrl: '{baseUrl}/apps/user_saml/saml/acs',
    sloUrl: '{baseUrl}/apps/user_saml/saml/sls',
    nameIdFormat: 'unspecified',
    nameIdSource: 'username',
    attributes: [
      { name: 'username', nameFormat: 'basic', source: 'username' },
      { name: 'email', nameFormat: 'basic', source: 'email' },
      { name: 'displayName', nameFormat: 'basic', source: 'name' },
      { name: 'groups', nameFormat: 'basic', source: 'departments' },
    ],
    signResponse: true,
    signAssertion: true,
  }),
  samlTemplate(
    'atlassian_dc',
    'Jira / Confluence (Data Center)',
    'https://confluence.atlassian.com/enterprise/saml-single-sign-on-for-atlassian-data-center-applications-857050705.html',
    {
      // The built-in SSO 2.0 of Atlassian Data Center applications.
      entityId: '{baseUrl}',
      acsUrl: '{baseUrl}/plugins/servlet/samlconsumer',
      sloUrl: null,
      nameIdFormat: 'unspecified',
      nameIdSource: 'username',
      attributes: [
        { name: 'email', nameFormat: 'basic', source: 'email' },
        { name: 'displayName', nameFormat: 'basic', source: 'name' },
      ],
      signResponse: true,
      signAssertion: true,
    },
  ),
  samlTemplate(
    'feishu',
    'Feishu (Lark)',
    // Feishu's own help page on SSO was not found; this integration guide cites it and lists the values.
    'https://open.bccastle.com/en/app_integration/authentication/feishu.html',
    {
      // Feishu's admin console (Enterprise settings → SSO account login, Enterprise edition) takes
      // the IdP's SSO URL, issuer and certificate; as a service provider it is
      // https://www.feishu.cn with this ACS. The NameID is the person's email (or mobile number)
      // as registered in Feishu.
      entityId: 'https://www.feishu.cn',
      acsUrl: 'https://www.feishu.cn/suite/passport/authentication/idp/saml/call_back',
      sloUrl: null,
      nameIdFormat: 'unspecified',
      nameIdSource: 'email',
      attributes: [],
      signResponse: true,
      signAssertion: true,
    },
  ),
  samlTemplate(
    'aliyun_ram',
    'Alibaba Cloud (RAM role SSO)',
    'https://www.alibabacloud.com/help/en/ram/saml-response-for-role-based-sso',
    {
      // "Configure Alibaba Cloud as a trusted SP for role-based SSO" (SP metadata
      // https://signin.alibabacloud.com/saml-role/sp-metadata.xml). The China site's values
      // (signin.aliyun.com) were not found in the documentation: for it, import the SP metadata
      // URL the RAM console shows. Alibaba Cloud requires the whole assertion to be signed.
      entityId: 'urn:alibaba:cloudcomputing:international',
      acsUrl: 'https://signin.alibabacloud.com/saml-role/sso',
      sloUrl: null,
      nameIdFormat: 'persistent',
      nameIdSource: 'persistent',
      attributes: [
        {
          name: 'https://www.aliyun.com/SAML-Role/Attributes/RoleSessionName',
          nameFormat: 'uri',
          source: 'username',
        },
        {
          name: 'https://www.aliyun.com/SAML-Role/Attributes/Role',
          nameFormat: 'uri',
          source: 'fixed',
          valueHint: 'acs:ram::<account-id>:role/<role>,acs:ram::<account-id>:saml-provider/<provider>',
        },
      ],
      signResponse: true,
      signAssertion: true,
    },
  ),
  samlTemplate(
    'tencent_cam',
    'Tencent Cloud (CAM role SSO)',
    'https://www.tencentcloud.com/document/product/598/58322',
    {
      // Tencent Cloud's SP metadata https://cloud.tencent.com/saml.xml: audience cloud.tencent.com,
      // ACS https://cloud.tencent.com/login/saml. RoleSessionName is required, one value of at
      // most 32 characters.
      entityId: 'cloud.tencent.com',
      acsUrl: 'https://cloud.tencent.com/login/saml',
      sloUrl: null,
      nameIdFormat: 'unspecified',
      nameIdSource: 'username',
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
          valueHint:
            'qcs::cam::uin/<account-id>:roleName/<role>,qcs::cam::uin/<account-id>:saml-provider/<provider>',
        },
      ],
      signResponse: true,
      signAssertion: true,
    },
  ),
  samlTemplate(
    'huawei_iam',
    'Huawei Cloud (IAM user SSO)',
    'https://support.huaweicloud.com/intl/en-us/usermanual-iam/iam_08_0252.html',
    {
      // IAM user SSO via SAML. Huawei Cloud's entity id and ACS were not found in its
      // documentation (it offers its SP metadata for download from the IAM console): import that
      // metadata on the SAML tab. xUserId must equal the IAM user's external identity ID;
      // domain_id and idp_id are required when the sign-in starts here (My apps).
      entityId: null,
      acsUrl: null,
      sloUrl: null,
      nameIdFormat: 'unspecified',
      nameIdSource: 'username',
      attributes: [
        { name: 'IAM_SAML_Attributes_xUserId', nameFormat: 'unspecified', source: 'username' },
        {
          name: 'IAM_SAML_Attributes_domain_id',
          nameFormat: 'unspecified',
          source: 'fixed',
          valueHint: '<account-id>',
        },
        {
          name: 'IAM_SAML_Attributes_idp_id',
          nameFormat: 'unspecified',
          source: 'fixed',
          valueHint: '<identity-provider-name>',
        },
      ],
      signResponse: true,
      signAssertion: true,
    },
  ),
];

/** A catalogue entry of a SAML service provider. */
function samlTemplate(key: string, name: string, docsUrl: string, saml: SamlTemplateSettings): AppTemplate {
  return {
    key,
    name,
    protocol: 'saml',
    redirectPath: '',
    logoutPath: null,
    backchannelLogoutPath: null,
    frontchannelLogoutPath: null,
    initiateLoginPath: null,
    tokenAuthMethod: 'client_secret_basic',
    signingAlg: 'ES256',
    pkce: true,
    scopes: [],
    docsUrl,
    saml,
  };
}
