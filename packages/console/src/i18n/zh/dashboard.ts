import type { dashboard as en } from '../en/dashboard.ts';

export const dashboard = {
  welcome: '欢迎，{{name}}',
  companyId: '企业 ID',
  copy: '复制',
  copied: '已复制',
  windows: { week: '近 7 天', month: '近一个月', three_days: '近三天' },
  window: '时间范围',
  users: { title: '用户' },
  mfa: { title: 'MFA' },
  trend: { title: '登录趋势' },
  hotspot: { title: '登录热点' },
  recent: { title: '最近登录' },
  apps: { title: '应用' },
  appTrend: { title: '应用登录' },
  failures: { title: '登录失败' },
  newFailures: { title: '最新失败' },
  system: { version: '版本 {{version}}' },
} satisfies typeof en;
