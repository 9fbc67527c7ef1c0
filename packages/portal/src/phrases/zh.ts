import type { PortalPhrases } from './en.ts';

export const zh = {
  productName: 'Tessera',
  tagline: '身份认证服务平台',
  /** Names of Tessera's own clients, as shown on the sign-in page. */
  clients: {
    'tessera-console-dev': 'Tessera 控制台',
    'tessera-console-admin': 'Tessera 平台管理控制台',
  } as Record<string, string>,
  language: { switchTo: 'English', switchCode: 'en' },
  signIn: {
    title: '登录',
    subtitle: '登录以继续访问 {client}',
    identifier: '用户名、邮箱或手机号',
    password: '密码',
    submit: '登录',
    cancel: '取消',
    invalidCredentials: '账号或密码错误',
    missingFields: '请输入账号和密码',
    accountDisabled: '该账号已被禁用，请联系管理员',
    accountLocked: '失败次数过多，账号已被锁定，请于 {until} 后重试',
    throttled: '登录尝试过于频繁，请稍后再试',
    notAllowed: '该账号无权登录 {client}',
    sessionExpired: '登录页面已过期，请从应用重新开始',
  },
  error: {
    title: '出错了',
    back: '请返回应用后重试。',
  },
  logout: {
    title: '退出登录',
    question: '确定要退出 Tessera 吗？',
    confirm: '是，退出登录',
    stay: '否，保持登录',
    doneTitle: '已退出',
    done: '您已退出登录。',
    doneWithClient: '您已退出 {client}。',
  },
} as const satisfies PortalPhrases;
