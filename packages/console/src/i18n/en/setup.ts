/** Setup (/setting/setup, platform console only): the installation settings that shape what companies can do. */
export const setup = {
  intro:
    'What this installation lets companies do. Settings marked with a variable are set in the server’s environment and take effect at the next start; who may create companies is set here.',
  column: {
    setting: 'Setting',
    state: 'State',
    value: 'Current value',
    variable: 'Set with',
  },
  state: { ok: 'Set', attention: 'Check', off: 'Off' },
  none: 'Not set',
  onThisPage: 'On this page',
  item: {
    publicUrl: {
      title: 'Public URL',
      meaning:
        'The address people and applications use: sign-in pages, callbacks, mail links and SAML metadata are built from it. Use https once people other than you sign in.',
    },
    mail: {
      title: 'Mail',
      meaning:
        'Sign-in links, account details and password notices are sent by mail. Without it, people must be given passwords, and imports need a password on every row.',
    },
    outboundNetworks: {
      title: 'Outbound networks',
      meaning:
        'Private networks that companies’ LDAP directories, SAML metadata, Exchange and back-channel logout may reach (CIDRs, or all). Without it only the public internet is reached, so a directory at 10.x or 192.168.x is refused.',
    },
    trustedProxies: {
      title: 'Trusted proxies',
      meaning:
        'The proxies in front of the server whose X-Forwarded-For and X-Forwarded-Proto are believed. Without it, sign-in logs, lock-out and IP rules see the proxy’s address instead of the person’s.',
    },
    metrics: {
      title: 'Metrics',
      meaning:
        'Prometheus metrics at /metrics, for a scraper that sends this token. Off: no metrics are served.',
    },
    radius: {
      title: 'RADIUS',
      meaning:
        'The UDP port where VPNs, Wi-Fi and network devices of companies check passwords. Set off when no company needs RADIUS.',
    },
    licence: {
      title: 'Licence',
      meaning:
        'How many users and applications the installation may hold, and until when. Without a licence the free allowance applies.',
    },
    backups: {
      title: 'Backups',
      meaning:
        'Everything is in the database: back up PostgreSQL with its own tools, or the embedded database’s folder while the server is stopped, always with the master key (its file in the data folder, or TESSERA_MASTER_KEY): without it sealed secrets cannot be read.',
    },
    companyCreation: {
      title: 'Who may create companies',
      meaning:
        'Everyone: any person signed in to the developer console may create a company. Platform administrators only: suits an installation that serves one company.',
    },
  },
  creation: { everyone: 'Everyone', platform_admins: 'Platform administrators only' },
  platformOnlyTitle: 'Companies are created by the platform administrator',
  platformOnlyIntro:
    'On this installation only platform administrators create companies. Ask your platform administrator to create one for you and to add you to it.',
  licenceStatus: { not_active: 'No licence', normal: 'Valid', expired: 'Expired' },
  openSetup: 'Installation setup',
  creationSaved: 'Who may create companies: {{mode}}',
  sms: {
    title: 'SMS provider',
    intro:
      'One-time codes by SMS (sign-in, second factor, forgotten passwords, RADIUS) are sent through this provider’s API. Companies may use their own sign name and template, approved under this account.',
    provider: 'Provider',
    providers: { none: 'Off', aliyun: 'Alibaba Cloud SMS', tencent: 'Tencent Cloud SMS' },
    accessKeyId: { aliyun: 'AccessKey ID', tencent: 'SecretId' },
    accessKeySecret: { aliyun: 'AccessKey secret', tencent: 'SecretKey' },
    secretKept: 'A secret is stored (never shown): leave empty to keep it.',
    appId: 'SDK AppID',
    region: 'Region',
    regionHint: {
      aliyun: 'RegionId, for example cn-hangzhou (the default).',
      tencent: 'For example ap-guangzhou (the default), or ap-singapore for the international site.',
    },
    signName: 'Sign name',
    templateId: 'Code template',
    templateHint: {
      aliyun:
        'TemplateCode (SMS_…) of a verification code template whose variable is named code (and minutes, if it has one).',
      tencent:
        'TemplateId of a verification code template whose {1} is the code (and {2} the minutes, if it has one).',
    },
    templateMinutes: 'Template has minutes',
    baseUrl: 'API address',
    baseUrlHint: {
      aliyun:
        'Empty: https://dysmsapi.aliyuncs.com. Another endpoint (scheme and host only) for other regions.',
      tencent: 'Empty: https://sms.tencentcloudapi.com. For example https://sms.intl.tencentcloudapi.com.',
    },
    required: 'Please fill in this setting',
    save: 'Save',
    saved: 'SMS provider saved',
    testTitle: 'Send a test message',
    testIntro: 'Sends the code 123456 with the platform’s sign name and template to this phone.',
    testPhone: 'Phone number',
    testSend: 'Send',
    testSent: 'The provider accepted the message ({{id}}).',
  },
};
