/** The sign-in page's upstream sources (OpenID Connect, SAML: issue 33): buttons, home-realm discovery, failures. */

export const upstreamEn = {
  signInWith: 'Sign in with {name}',
  or: 'or continue with',
  failed: 'Signing in with {name} did not work: {detail}',
  notLinked:
    'Your {name} account is not bound to anyone in {company}. Ask your administrator to bind it, or sign in with your password',
  expired: 'This sign-in has expired or was already used. Please start again',
  /** A SAML response the ACS refused (the detail is logged, not shown). */
  refused: 'The answer from {name} could not be accepted. Please start again',
  /** The page that posts a SAML request to the upstream (HTTP-POST binding). */
  goingTitle: 'Signing in with {name}',
  goingIntro: 'Taking you to {name} to sign in.',
  homeRealm: 'People of {domains} sign in with their company account: type your address and continue',
} as const;

export const upstreamZh = {
  signInWith: '使用 {name} 登录',
  or: '或使用以下方式继续',
  failed: '使用 {name} 登录失败：{detail}',
  notLinked: '你的 {name} 账号未绑定 {company} 的任何人员。请联系管理员绑定，或使用密码登录',
  expired: '此次登录已过期或已使用，请重新开始',
  refused: '无法接受来自 {name} 的应答，请重新开始',
  goingTitle: '正在通过 {name} 登录',
  goingIntro: '正在前往 {name} 登录。',
  homeRealm: '{domains} 的人员使用企业账号登录：输入邮箱地址后继续即可',
} as const;
