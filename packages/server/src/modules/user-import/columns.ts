import type { Language } from '@tessera/contract';

/**
 * The columns of user import and export and their headers in either language. Kept apart from
 * the workbook writer (exceljs) so that the sheet reader's worker loads only what it needs.
 */

export const importColumns = [
  'username',
  'name',
  'nickname',
  'email',
  'phone',
  'departments',
  'password',
] as const;
export type ImportColumn = (typeof importColumns)[number];

export const exportColumns = [
  'username',
  'name',
  'nickname',
  'email',
  'phone',
  'departments',
  'status',
  'role',
  'managed',
  'loginCount',
  'lastLoginAt',
  'createdAt',
] as const;
export type ExportColumn = (typeof exportColumns)[number];

type Column = ImportColumn | ExportColumn;

export const labels: Record<Language, Record<Column, string>> = {
  en: {
    username: 'Username',
    name: 'Name',
    nickname: 'Nickname',
    email: 'Email',
    phone: 'Phone',
    departments: 'Departments',
    password: 'Password',
    status: 'Status',
    role: 'Role',
    managed: 'Managed by this company',
    loginCount: 'Login count',
    lastLoginAt: 'Last login',
    createdAt: 'Created at',
  },
  zh: {
    username: '用户名',
    name: '姓名',
    nickname: '昵称',
    email: '邮箱',
    phone: '手机号',
    departments: '部门',
    password: '密码',
    status: '状态',
    role: '角色',
    managed: '由本企业管理',
    loginCount: '登录次数',
    lastLoginAt: '最近登录',
    createdAt: '创建时间',
  },
};

export const columnLabel = (lang: Language, column: Column): string => labels[lang][column];

/** Headers are matched without case, spaces, a "*" (required) mark or a parenthesised note. */
const headerKey = (text: string) =>
  text
    .toLowerCase()
    .replace(/[(（].*?[)）]/g, '')
    .replace(/[\s*_\-:：]/g, '');

/** Either language's header, and a few spellings people type, name a column. */
const headerAliases = new Map<string, ImportColumn>();
for (const column of importColumns) {
  for (const text of [column, labels.en[column], labels.zh[column]])
    headerAliases.set(headerKey(text), column);
}
for (const [text, column] of [
  ['user name', 'username'],
  ['login name', 'username'],
  ['账号', 'username'],
  ['登录名', 'username'],
  ['display name', 'name'],
  ['full name', 'name'],
  ['名称', 'name'],
  ['e-mail', 'email'],
  ['mail', 'email'],
  ['电子邮箱', 'email'],
  ['mobile', 'phone'],
  ['phone number', 'phone'],
  ['手机', 'phone'],
  ['电话', 'phone'],
  ['department', 'departments'],
  ['所属部门', 'departments'],
  ['initial password', 'password'],
  ['初始密码', 'password'],
] as const) {
  headerAliases.set(headerKey(text), column);
}

/** The import column a header cell names, if any. */
export const importColumnOf = (header: string): ImportColumn | undefined =>
  headerAliases.get(headerKey(header));
