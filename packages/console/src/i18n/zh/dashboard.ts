import type { dashboard as en } from '../en/dashboard.ts';

export const dashboard = {
  welcome: '欢迎，{{name}}',
  companyId: '企业 ID',
  copy: '复制',
  copied: '已复制',
  windows: { week: '近 7 天', month: '近一个月', threeDays: '近三天' },
  window: '时间范围',
  system: { version: '版本 {{version}}' },
} satisfies typeof en;
