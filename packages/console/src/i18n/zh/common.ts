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
  ago: '{{time}}前',
  cancel: '取消',
  previousPage: '上一页',
  nextPage: '下一页',
  pageSize: '{{size}} 条/页',
  pagination: '分页',
  noData: '暂无数据',
  backHome: '返回首页',
} satisfies typeof en;
