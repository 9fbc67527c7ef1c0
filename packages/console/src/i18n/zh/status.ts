import type { status as en } from '../en/status.ts';

export const status = {
  notFoundTitle: '页面不存在',
  notFoundSubtitle: '您访问的页面不存在。',
  okTitle: '操作成功',
  okSubtitle: '操作已成功完成。',
} satisfies typeof en;
