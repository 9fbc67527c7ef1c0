import type { dashboard as en } from '../en/dashboard.ts';

export const dashboard = {
  welcome: '欢迎，{{name}}',
  intro: '您正在管理此企业。',
  companyName: '企业名称',
  companyId: '企业 ID',
  owner: '所有者',
  createdAt: '创建时间',
  defaultLanguage: '默认语言',
  yourRole: '您的角色',
  roleOwner: '所有者',
  roleAdministrator: '管理员',
  copy: '复制',
  copied: '已复制',
} satisfies typeof en;
