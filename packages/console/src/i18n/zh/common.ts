import type { common as en } from '../en/common.ts';

export const common = {
  productName: 'Tessera',
  variantName: {
    dev: '开发者控制台',
    admin: '平台控制台',
  },
  loading: '加载中…',
  language: '语言',
  languageName: {
    en: 'English',
    zh: '中文',
  },
  userMenu: '账号菜单',
  logOut: '退出登录',
  backHome: '返回首页',
} satisfies typeof en;
