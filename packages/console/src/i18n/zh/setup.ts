import type { setup as en } from '../en/setup.ts';

export const setup = {
  intro:
    '本平台允许企业做什么。标有环境变量的设置在服务器环境中配置，下次启动时生效；谁可以创建企业在本页设置。',
  column: {
    setting: '设置',
    state: '状态',
    value: '当前值',
    variable: '设置方式',
  },
  state: { ok: '已设置', attention: '需检查', off: '未启用' },
  none: '未设置',
  onThisPage: '在本页设置',
  item: {
    publicUrl: {
      title: '公开地址',
      meaning:
        '用户和应用访问的地址：登录页、回调地址、邮件链接和 SAML 元数据都基于它生成。除您之外的人开始登录后，请使用 https。',
    },
    mail: {
      title: '邮件',
      meaning:
        '登录链接、账号信息和密码通知通过邮件发送。未配置时须直接告知用户密码，导入时每一行都需要密码。',
    },
    outboundNetworks: {
      title: '出站网络',
      meaning:
        '企业的 LDAP 目录、SAML 元数据、Exchange 和后端通道注销可以访问的私有网络（CIDR，或 all）。未设置时只能访问公网，位于 10.x 或 192.168.x 的目录会被拒绝。',
    },
    trustedProxies: {
      title: '可信代理',
      meaning:
        '服务器前方的代理，其 X-Forwarded-For 和 X-Forwarded-Proto 会被采信。未设置时，登录日志、锁定和 IP 规则看到的是代理的地址，而不是用户的地址。',
    },
    metrics: {
      title: '监控指标',
      meaning: '在 /metrics 提供 Prometheus 指标，供携带此令牌的采集器读取。未启用时不提供指标。',
    },
    radius: {
      title: 'RADIUS',
      meaning: '企业的 VPN、Wi-Fi 和网络设备校验密码所用的 UDP 端口。没有企业需要 RADIUS 时可设为 off。',
    },
    licence: {
      title: '许可证',
      meaning: '平台可容纳的用户数和应用数及有效期。没有许可证时适用免费额度。',
    },
    backups: {
      title: '备份',
      meaning:
        '所有数据都在数据库中：PostgreSQL 请用其自带工具备份，内置数据库请在服务器停止时备份其目录；务必同时备份主密钥（数据目录中的密钥文件或 TESSERA_MASTER_KEY），否则加密保存的密钥无法读取。',
    },
    companyCreation: {
      title: '谁可以创建企业',
      meaning: '所有人：登录开发者控制台的任何人都可以创建企业。仅平台管理员：适合只服务一家企业的部署。',
    },
  },
  creation: { everyone: '所有人', platform_admins: '仅平台管理员' },
  platformOnlyTitle: '企业由平台管理员创建',
  platformOnlyIntro: '本平台仅允许平台管理员创建企业。请联系平台管理员为您创建企业并将您加入。',
  licenceStatus: { not_active: '未导入许可证', normal: '有效', expired: '已过期' },
  openSetup: '平台设置',
  creationSaved: '谁可以创建企业：{{mode}}',
  sms: {
    title: '短信服务商',
    intro:
      '短信验证码（登录、二次验证、找回密码、RADIUS）通过此服务商的 API 发送。企业可使用在此账号下审核通过的自有签名和模板。',
    provider: '服务商',
    providers: { none: '关闭', aliyun: '阿里云短信', tencent: '腾讯云短信' },
    accessKeyId: { aliyun: 'AccessKey ID', tencent: 'SecretId' },
    accessKeySecret: { aliyun: 'AccessKey Secret', tencent: 'SecretKey' },
    secretKept: '已保存密钥（不会显示）：留空则保持不变。',
    appId: 'SDK AppID',
    region: '地域',
    regionHint: {
      aliyun: 'RegionId，例如 cn-hangzhou（默认）。',
      tencent: '例如 ap-guangzhou（默认），国际站可用 ap-singapore。',
    },
    signName: '短信签名',
    templateId: '验证码模板',
    templateHint: {
      aliyun: '验证码模板的 TemplateCode（SMS_…），变量名为 code（如有有效分钟数，变量名为 minutes）。',
      tencent: '验证码模板的 TemplateId，{1} 为验证码（如有，{2} 为有效分钟数）。',
    },
    templateMinutes: '模板含有效分钟数',
    baseUrl: 'API 地址',
    baseUrlHint: {
      aliyun: '留空：https://dysmsapi.aliyuncs.com。其他地域可填其接入地址（仅协议和主机）。',
      tencent: '留空：https://sms.tencentcloudapi.com。例如 https://sms.intl.tencentcloudapi.com。',
    },
    required: '请填写此项设置',
    save: '保存',
    saved: '短信服务商已保存',
    testTitle: '发送测试短信',
    testIntro: '使用平台的签名和模板，向此手机号发送验证码 123456。',
    testPhone: '手机号',
    testSend: '发送',
    testSent: '服务商已接受该短信（{{id}}）。',
  },
} satisfies typeof en;
