import type { Language, LogView, SignInMark } from '@tessera/contract';

/** Column headers and values of a log export, in the language the administrator chose. */
const text = {
  en: {
    sheet: { signin: 'Sign-ins', admin: 'Administration' },
    signin: [
      'Time (UTC)',
      'Username',
      'Identifier',
      'Application',
      'Result',
      'Cause',
      'IP address',
      'Country',
      'Region',
      'City',
      'Browser',
      'Operating system',
      'Marks',
    ],
    admin: ['Time (UTC)', 'Actor', 'Action', 'Object type', 'Object', 'Before', 'After', 'IP address'],
    success: 'Success',
    failure: 'Failure',
    marks: { new_country: 'First sign-in from this country', impossible_travel: 'Impossible travel' },
  },
  zh: {
    sheet: { signin: '登录日志', admin: '管理日志' },
    signin: [
      '时间（UTC）',
      '用户名',
      '登录标识',
      '应用',
      '结果',
      '原因',
      'IP 地址',
      '国家/地区',
      '省/州',
      '城市',
      '浏览器',
      '操作系统',
      '标记',
    ],
    admin: ['时间（UTC）', '操作人', '操作', '对象类型', '对象', '修改前', '修改后', 'IP 地址'],
    success: '成功',
    failure: '失败',
    marks: { new_country: '首次从该国家/地区登录', impossible_travel: '不可能的移动' },
  },
} satisfies Record<
  Language,
  {
    sheet: Record<LogView, string>;
    signin: string[];
    admin: string[];
    success: string;
    failure: string;
    marks: Record<SignInMark, string>;
  }
>;

export const exportText = (lang: Language) => text[lang];
export const exportHeader = (lang: Language, view: LogView): readonly string[] => text[lang][view];
export const exportSheetName = (lang: Language, view: LogView) => text[lang].sheet[view];
