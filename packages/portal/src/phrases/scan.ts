/** Scan sign-in with DingTalk, WeChat and WeCom: the QR page, binding, failures. */

export const scanEn = {
  providers: { dingtalk: 'DingTalk', weixin: 'WeChat', work_weixin: 'WeCom' } as Record<string, string>,
  or: 'or sign in with',
  failed: 'Signing in with {provider} did not work: {detail}',
  notLinked:
    'This {provider} account is not bound to anyone in {company}. Sign in with your password, then bind it under My account',
  expired: 'The scan has expired or was already used. Please start again',
  sectionTitle: 'Third-party accounts',
  sectionIntro: 'Bind an account to sign in by scanning its QR code instead of typing your password.',
  none: 'Your companies have no scan sign-in set up.',
  bound: 'Bound: {name}',
  boundNoName: 'Bound',
  bind: 'Bind',
  unbind: 'Unbind',
  notBound: 'Not bound',
  boundOk: 'The account is now bound: you can sign in by scanning.',
  unboundOk: 'The account is no longer bound.',
  takenByOther: 'This {provider} account is already bound to another person of {company}.',
  sourceOf: '{source} · {company}',
} as const;

export const scanZh = {
  providers: { dingtalk: '钉钉', weixin: '微信', work_weixin: '企业微信' } as Record<string, string>,
  or: '或使用以下方式登录',
  failed: '{provider}登录失败：{detail}',
  notLinked: '该{provider}账号未绑定{company}中的任何人员。请先用密码登录，然后在“我的账号”中绑定',
  expired: '扫码已过期或已被使用，请重新开始',
  sectionTitle: '第三方账号',
  sectionIntro: '绑定后即可扫码登录，无需输入密码。',
  none: '您所在的企业尚未设置扫码登录。',
  bound: '已绑定：{name}',
  boundNoName: '已绑定',
  bind: '绑定',
  unbind: '解绑',
  notBound: '未绑定',
  boundOk: '账号已绑定，可以扫码登录了。',
  unboundOk: '账号已解绑。',
  takenByOther: '该{provider}账号已绑定{company}中的另一位人员。',
  sourceOf: '{source} · {company}',
} as const;
