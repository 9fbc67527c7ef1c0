import { createHmac, randomUUID } from 'node:crypto';
import {
  baseOf,
  type CodeMessage,
  exchange,
  type ProviderAccount,
  type ProviderResult,
  type Transport,
} from './provider.ts';

/**
 * Alibaba Cloud SMS (dysmsapi 2017-05-25, SendSms) through its RPC API, signed with the RPC
 * signature (SignatureVersion 1.0, HMAC-SHA1): the parameters sorted by name, each name and
 * value percent-encoded as RFC 3986 says (space %20, `*` %2A, `~` kept), joined into the
 * canonicalised query; the string to sign is `POST&%2F&` + that query percent-encoded; the
 * signature is Base64(HMAC-SHA1(AccessKeySecret + "&", string to sign)). The parameters go in
 * a form body, so that the phone number and the code stay out of URLs that proxies log.
 */

export const ALIYUN_SMS_URL = 'https://dysmsapi.aliyuncs.com';
export const ALIYUN_SMS_VERSION = '2017-05-25';

/** Percent-encoding as the RPC signature wants it (RFC 3986 unreserved characters kept). */
export const percentEncode = (value: string) =>
  encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

export function rpcSignature(method: string, params: Record<string, string>, secret: string): string {
  const canonical = Object.keys(params)
    .sort()
    .map((key) => `${percentEncode(key)}=${percentEncode(params[key] as string)}`)
    .join('&');
  const stringToSign = `${method}&${percentEncode('/')}&${percentEncode(canonical)}`;
  return createHmac('sha1', `${secret}&`).update(stringToSign, 'utf8').digest('base64');
}

/** Mainland numbers go without a prefix; others with their country code and no `+`. */
export const aliyunPhone = (phone: string) => {
  const compact = phone.replace(/[\s-]/g, '');
  return compact.startsWith('+86') ? compact.slice(3) : compact.replace(/^\+/, '');
};

interface AliyunAnswer {
  Code?: string;
  Message?: string;
  RequestId?: string;
  BizId?: string;
}

export async function sendAliyun(
  account: ProviderAccount,
  message: CodeMessage,
  transport: Transport,
): Promise<ProviderResult> {
  const templateParam: Record<string, string> = { code: message.code };
  if (account.templateMinutes) templateParam.minutes = String(message.minutes);
  const params: Record<string, string> = {
    AccessKeyId: account.accessKeyId,
    Action: 'SendSms',
    Format: 'JSON',
    PhoneNumbers: aliyunPhone(message.phone),
    RegionId: account.region || 'cn-hangzhou',
    SignName: account.signName,
    SignatureMethod: 'HMAC-SHA1',
    SignatureNonce: randomUUID(),
    SignatureVersion: '1.0',
    TemplateCode: account.templateId,
    TemplateParam: JSON.stringify(templateParam),
    Timestamp: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
    Version: ALIYUN_SMS_VERSION,
  };
  params.Signature = rpcSignature('POST', params, account.accessKeySecret);
  const body = Object.entries(params)
    .map(([key, value]) => `${percentEncode(key)}=${percentEncode(value)}`)
    .join('&');
  const answer = await exchange(transport, `${baseOf(account.baseUrl, ALIYUN_SMS_URL)}/`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded; charset=utf-8',
      accept: 'application/json',
    },
    body,
  });
  if ('ok' in answer) return answer;
  const result = (answer.body ?? {}) as AliyunAnswer;
  const requestId = result.RequestId ?? '';
  if (answer.status === 200 && result.Code === 'OK')
    return { ok: true, messageId: result.BizId ?? '', requestId };
  return {
    ok: false,
    providerCode: result.Code ?? `HTTP_${answer.status}`,
    providerMessage: result.Message ?? '',
    requestId,
  };
}
