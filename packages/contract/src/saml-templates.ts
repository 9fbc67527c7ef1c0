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
