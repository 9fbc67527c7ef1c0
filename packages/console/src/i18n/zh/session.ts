import type { session as en } from '../en/session.ts';

export const session = {
  redirecting: '正在前往登录页…',
  signingIn: '正在登录…',
  loginAgainTitle: '重新登录',
  loginAgainContent: '身份信息失效，请重新登录！',
  loginAgainOk: '去登录',
  signInFailedTitle: '登录未完成',
  signInFailedHint: '您可以重试，或使用其他账号登录。',
  loadFailedTitle: '无法加载您的企业列表',
  loadFailedHint: '您可以重试，或退出登录。',
  tryAgain: '重试',
  switchAccount: '使用其他账号登录',
} satisfies typeof en;
