import type { company as en } from '../en/company.ts';

export const company = {
  createTitle: '创建企业',
  createIntro: '企业用于管理您的应用、用户和设置，创建者将成为企业所有者。',
  nameLabel: '企业名称',
  namePlaceholder: '例如：示例科技有限公司',
  nameRequired: '请输入企业名称',
  nameTooLong: '企业名称最多 {{max}} 个字符',
  createSubmit: '创建企业',
  created: '企业“{{name}}”已创建',
  adminTitle: '请在开发者控制台创建企业',
  adminIntro: '平台控制台用于管理已有的企业。在开发者控制台创建企业后，它也会出现在这里。',
  openDevConsole: '打开开发者控制台',
  switcherLabel: '当前企业',
  createAnother: '创建新企业',
} satisfies typeof en;
