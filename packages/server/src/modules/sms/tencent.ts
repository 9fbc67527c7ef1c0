import { createHash, createHmac } from 'node:crypto';
import {
  baseOf,
  type CodeMessage,
  exchange,
  type ProviderAccount,
  type ProviderResult,
  type Transport,
} from './provider.ts';

/**
 * Tencent Cloud SMS (sms 2021-01-11, SendSms) through TencentCloud API 3.0, signed with
 * TC3-HMAC-SHA256: the canonical request (method, `/`, empty query, the content-type, host and
 * x-tc-action headers, the SHA-256 of the JSON body) is hashed into the string to sign with the
 * timestamp and the credential scope `<UTC date>/sms/tc3_request`; the signing key is derived
 * from "TC3" + SecretKey by HMAC-SHA256 over the date, the service and "tc3_request".
 */

export const TENCENT_SMS_URL = 'https://sms.tencentcloudapi.com';
export const TENCENT_SMS_VERSION = '2021-01-11';
const SERVICE = 'sms';
const CONTENT_TYPE = 'application/json; charset=utf-8';

const sha256Hex = (value: string) => createHash('sha256').update(value, 'utf8').digest('hex');
const hmac = (key: Buffer | string, value: string) =>
  createHmac('sha256', key).update(value, 'utf8').digest();

export function tc3Authorization(input: {
  secretId: string;
  secretKey: string;
  host: string;
  action: string;
  timestamp: number;
  payload: string;
}): string {
  const date = new Date(input.timestamp * 1000).toISOString().slice(0, 10);
  const signedHeaders = 'content-type;host;x-tc-action';
  const canonicalHeaders = `content-type:${CONTENT_TYPE}\nhost:${input.host}\nx-tc-action:${input.action.toLowerCase()}\n`;
  const canonicalRequest = ['POST', '/', '', canonicalHeaders, signedHeaders, sha256Hex(input.payload)].join(
    '\n',
  );
  const scope = `${date}/${SERVICE}/tc3_request`;
  const stringToSign = ['TC3-HMAC-SHA256', String(input.timestamp), scope, sha256Hex(canonicalRequest)].join(
    '\n',
  );
  const signingKey = hmac(hmac(hmac(`TC3${input.secretKey}`, date), SERVICE), 'tc3_request');
  const signature = createHmac('sha256', signingKey).update(stringToSign, 'utf8').digest('hex');
  return `TC3-HMAC-SHA256 Credential=${input.secretId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
}

/** E.164: a mainland number without a prefix gains +86. */
export const tencentPhone = (phone: string) => {
  const compact = phone.replace(/[\s-]/g, '');
  if (compact.startsWith('+')) return compact;
  return /^1\d{10}$/.test(compact) ? `+86${compact}` : `+${compact}`;
};

interface TencentAnswer {
  Response?: {
    Error?: { Code?: string; Message?: string };
    SendStatusSet?: { Code?: string; Message?: string; SerialNo?: string }[];
    RequestId?: string;
  };
}

export async function sendTencent(
  account: ProviderAccount,
  message: CodeMessage,
  transport: Transport,
): Promise<ProviderResult> {
  const url = new URL(`${baseOf(account.baseUrl, TENCENT_SMS_URL)}/`);
  const payload = JSON.stringify({
    PhoneNumberSet: [tencentPhone(message.phone)],
    SmsSdkAppId: account.appId,
    SignName: account.signName,
    TemplateId: account.templateId,
    TemplateParamSet: account.templateMinutes ? [message.code, String(message.minutes)] : [message.code],
  });
  const timestamp = Math.floor(Date.now() / 1000);
  const action = 'SendSms';
  const answer = await exchange(transport, url.href, {
    method: 'POST',
    headers: {
      authorization: tc3Authorization({
        secretId: account.accessKeyId,
        secretKey: account.accessKeySecret,
        host: url.host,
        action,
        timestamp,
        payload,
      }),
      'content-type': CONTENT_TYPE,
      'x-tc-action': action,
      'x-tc-timestamp': String(timestamp),
      'x-tc-version': TENCENT_SMS_VERSION,
      'x-tc-region': account.region || 'ap-guangzhou',
    },
    body: payload,
  });
  if ('ok' in answer) return answer;
  const response = ((answer.body ?? {}) as TencentAnswer).Response ?? {};
  const requestId = response.RequestId ?? '';
  if (response.Error)
    return {
      ok: false,
      providerCode: response.Error.Code ?? 'Error',
      providerMessage: response.Error.Message ?? '',
      requestId,
    };
  const status = response.SendStatusSet?.[0];
  if (answer.status === 200 && status?.Code === 'Ok')
    return { ok: true, messageId: status.SerialNo ?? '', requestId };
  return {
    ok: false,
    providerCode: status?.Code ?? `HTTP_${answer.status}`,
    providerMessage: status?.Message ?? '',
    requestId,
  };
}
