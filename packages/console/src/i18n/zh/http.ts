import type { http as en } from '../en/http.ts';

export const http = {
  error: '错误',
  networkError: '错误：网络异常',
  timeout: '错误：服务器响应超时',
  badResponse: '错误：服务器返回状态码 {{status}}',
} satisfies typeof en;
