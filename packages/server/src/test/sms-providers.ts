import { createHash, createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Stand-ins for the two SMS providers' documented endpoints, on 127.0.0.1: Alibaba Cloud's
 * dysmsapi SendSms (RPC, signature version 1.0, HMAC-SHA1) and Tencent Cloud's SendSms (API 3.0,
 * TC3-HMAC-SHA256). Each checks the request's signature as its provider documents it, computed
 * here from the documentation and not with the server's signer, and answers a bad one with the
 * provider's own error. Accepted messages are kept for the tests to read the codes they carry.
 */

export interface ReceivedSms {
  phone: string;
  signName: string;
  templateId: string;
  /** The template's variables in order (the code first). */
  params: string[];
}

export interface SmsStandIn {
  /** The base address to configure (scheme, host and port). */
  url: string;
  messages: ReceivedSms[];
  /** Requests refused for their signature or credentials, with the error code given. */
  refusals: string[];
  /** The next message is refused with this business error code. */
  refuseNext(code: string, message?: string): void;
  /** While on, requests are read and never answered. */
  hang(on: boolean): void;
  close(): Promise<void>;
}

export interface ProviderAccountFixture {
  accessKeyId: string;
  accessKeySecret: string;
  signNames: string[];
  templateIds: string[];
  /** Tencent: the SmsSdkAppId. */
  appId?: string;
}

const readBody = (request: IncomingMessage) =>
  new Promise<Buffer>((done, fail) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => done(Buffer.concat(chunks)));
    request.on('error', fail);
  });

const sameText = (a: string, b: string) =>
  a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

async function serve(
  handle: (request: IncomingMessage, body: Buffer) => { status: number; body: unknown },
  state: { hanging: boolean },
) {
  const server = createServer(async (request: IncomingMessage, response: ServerResponse) => {
    const body = await readBody(request);
    if (state.hanging) return;
    const answer = handle(request, body);
    response.writeHead(answer.status, { 'content-type': 'application/json;charset=utf-8' });
    response.end(JSON.stringify(answer.body));
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

interface StandInState {
  messages: ReceivedSms[];
  refusals: string[];
  state: { hanging: boolean; refuse: null | { code: string; message: string } };
}

const newState = (): StandInState => ({
  messages: [],
  refusals: [],
  state: { hanging: false, refuse: null },
});

function standIn(
  served: { url: string; close(): Promise<void> },
  { messages, refusals, state }: StandInState,
): SmsStandIn {
  return {
    url: served.url,
    messages,
    refusals,
    refuseNext: (code, message = 'refused') => {
      state.refuse = { code, message };
    },
    hang: (on) => {
      state.hanging = on;
    },
    close: served.close,
  };
}

/**
 * "Percent-encode" of Alibaba Cloud's RPC signature: UTF-8 bytes, the unreserved characters
 * A-Z a-z 0-9 - _ . ~ kept, every other byte as %XY in upper case (so a space is %20).
 */
function rpcEncode(value: string): string {
  let out = '';
  for (const byte of Buffer.from(value, 'utf8')) {
    const char = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-_.~]/.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** Alibaba Cloud SMS, SendSms of dysmsapi 2017-05-25. */
export async function startAliyunSms(account: ProviderAccountFixture): Promise<SmsStandIn> {
  const parts = newState();
  const { messages, refusals, state } = parts;
  const nonces = new Set<string>();
  const error = (status: number, code: string, message: string) => {
    refusals.push(code);
    return {
      status,
      body: { RequestId: randomUUID(), HostId: 'dysmsapi.aliyuncs.com', Code: code, Message: message },
    };
  };
  const served = await serve((request, raw) => {
    const url = new URL(request.url ?? '/', 'http://stand-in');
    const form = request.method === 'POST' ? new URLSearchParams(raw.toString('utf8')) : url.searchParams;
    const params = new Map<string, string>();
    for (const [key, value] of form) params.set(key, value);
    for (const name of ['AccessKeyId', 'Signature', 'SignatureNonce', 'Timestamp', 'Action', 'Version'])
      if (!params.get(name))
        return error(
          400,
          'MissingParameter',
          `The input parameter "${name}" that is mandatory for processing this request is not supplied.`,
        );
    if (params.get('SignatureMethod') !== 'HMAC-SHA1' || params.get('SignatureVersion') !== '1.0')
      return error(400, 'InvalidParameter', 'The specified signature method or version is not supported.');
    if (params.get('AccessKeyId') !== account.accessKeyId)
      return error(404, 'InvalidAccessKeyId.NotFound', 'Specified access key is not found.');
    // StringToSign = HTTPMethod + "&" + percentEncode("/") + "&" + percentEncode(CanonicalizedQueryString)
    const canonical = [...params.keys()]
      .filter((key) => key !== 'Signature')
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
      .map((key) => `${rpcEncode(key)}=${rpcEncode(params.get(key) as string)}`)
      .join('&');
    const stringToSign = `${request.method}&${rpcEncode('/')}&${rpcEncode(canonical)}`;
    const expected = createHmac('sha1', `${account.accessKeySecret}&`).update(stringToSign).digest('base64');
    if (!sameText(expected, params.get('Signature') as string))
      // As Alibaba Cloud answers it: with the string it signed, the request's parameters in it.
      return error(
        400,
        'SignatureDoesNotMatch',
        `Specified signature is not matched with our calculation. server string to sign is:${stringToSign}`,
      );
    const nonce = params.get('SignatureNonce') as string;
    if (nonces.has(nonce))
      return error(400, 'SignatureNonceUsed', 'Specified signature nonce was used already.');
    nonces.add(nonce);
    const age = Math.abs(Date.now() - Date.parse(params.get('Timestamp') as string));
    if (!(age < 15 * 60_000))
      return error(400, 'InvalidTimeStamp.Expired', 'Specified time stamp or date value is expired.');
    if (params.get('Action') !== 'SendSms' || params.get('Version') !== '2017-05-25')
      return error(
        404,
        'InvalidAction.NotFound',
        'Specified api is not found, please check your url and method.',
      );
    const business = (code: string, message: string) => ({
      status: 200,
      body: { RequestId: randomUUID(), Code: code, Message: message },
    });
    const phone = params.get('PhoneNumbers') ?? '';
    const signName = params.get('SignName') ?? '';
    const templateId = params.get('TemplateCode') ?? '';
    if (!/^\d{5,20}$/.test(phone)) return business('isv.MOBILE_NUMBER_ILLEGAL', '非法手机号');
    if (!account.signNames.includes(signName))
      return business('isv.SMS_SIGNATURE_ILLEGAL', '该账号下找不到对应签名');
    if (!account.templateIds.includes(templateId))
      return business('isv.SMS_TEMPLATE_ILLEGAL', '该账号下找不到对应模板');
    if (state.refuse) {
      const { code, message } = state.refuse;
      state.refuse = null;
      return business(code, message);
    }
    const variables = JSON.parse(params.get('TemplateParam') ?? '{}') as Record<string, string>;
    messages.push({ phone, signName, templateId, params: Object.values(variables) });
    return {
      status: 200,
      body: { Message: 'OK', RequestId: randomUUID(), Code: 'OK', BizId: `${Date.now()}^0` },
    };
  }, state);
  return standIn(served, parts);
}

const sha256Hex = (value: Buffer | string) => createHash('sha256').update(value).digest('hex');
const hmacSha256 = (key: Buffer | string, value: string) => createHmac('sha256', key).update(value).digest();

/** Tencent Cloud SMS, SendSms of sms 2021-01-11 (TencentCloud API 3.0). */
export async function startTencentSms(account: ProviderAccountFixture): Promise<SmsStandIn> {
  const parts = newState();
  const { messages, refusals, state } = parts;
  const error = (code: string, message: string) => {
    refusals.push(code);
    return {
      status: 200,
      body: { Response: { Error: { Code: code, Message: message }, RequestId: randomUUID() } },
    };
  };
  const served = await serve((request, raw) => {
    const authorization = String(request.headers.authorization ?? '');
    const parsed =
      /^TC3-HMAC-SHA256 Credential=([^/]+)\/(\d{4}-\d{2}-\d{2})\/([^/]+)\/tc3_request, SignedHeaders=([a-z0-9;-]+), Signature=([0-9a-f]{64})$/.exec(
        authorization,
      );
    if (!parsed) return error('AuthFailure.InvalidAuthorization', 'Authorization header format error.');
    const [, secretId, date, service, signedHeaders, signature] = parsed as unknown as string[];
    const timestamp = Number(request.headers['x-tc-timestamp']);
    if (!Number.isInteger(timestamp) || Math.abs(Date.now() / 1000 - timestamp) > 300)
      return error('AuthFailure.SignatureExpire', 'Signature expired.');
    if (secretId !== account.accessKeyId)
      return error('AuthFailure.SecretIdNotFound', 'The SecretId is not found.');
    const headerNames = (signedHeaders as string).split(';');
    if (!headerNames.includes('content-type') || !headerNames.includes('host'))
      return error('AuthFailure.SignatureFailure', 'The provided credentials could not be validated.');
    // CanonicalRequest = Method \n URI \n Query \n CanonicalHeaders \n SignedHeaders \n HashedRequestPayload
    const canonicalHeaders = headerNames
      .map(
        (name) =>
          `${name}:${String(request.headers[name] ?? '')
            .trim()
            .toLowerCase()}\n`,
      )
      .join('');
    const url = new URL(request.url ?? '/', 'http://stand-in');
    const canonicalRequest = [
      request.method,
      url.pathname,
      url.search.slice(1),
      canonicalHeaders,
      signedHeaders,
      sha256Hex(raw),
    ].join('\n');
    const stringToSign = [
      'TC3-HMAC-SHA256',
      String(timestamp),
      `${date}/${service}/tc3_request`,
      sha256Hex(canonicalRequest),
    ].join('\n');
    const secretDate = hmacSha256(`TC3${account.accessKeySecret}`, date as string);
    const secretService = hmacSha256(secretDate, service as string);
    const secretSigning = hmacSha256(secretService, 'tc3_request');
    const expected = createHmac('sha256', secretSigning).update(stringToSign).digest('hex');
    const dateOfTimestamp = new Date(timestamp * 1000).toISOString().slice(0, 10);
    if (service !== 'sms' || date !== dateOfTimestamp || !sameText(expected, signature as string))
      return error(
        'AuthFailure.SignatureFailure',
        'The provided credentials could not be validated. Please check your signature is correct.',
      );
    if (request.headers['x-tc-action'] !== 'SendSms' || request.headers['x-tc-version'] !== '2021-01-11')
      return error('InvalidAction', 'The requested action does not exist.');
    const input = JSON.parse(raw.toString('utf8')) as {
      PhoneNumberSet?: string[];
      SmsSdkAppId?: string;
      SignName?: string;
      TemplateId?: string;
      TemplateParamSet?: string[];
    };
    if (input.SmsSdkAppId !== account.appId)
      return error('FailedOperation.SmsSdkAppIdVerifyFail', 'SmsSdkAppId verification failed.');
    if (!account.signNames.includes(input.SignName ?? ''))
      return error(
        'FailedOperation.SignatureIncorrectOrUnapproved',
        'The signature is not approved or incorrect.',
      );
    if (!account.templateIds.includes(input.TemplateId ?? ''))
      return error(
        'FailedOperation.TemplateIncorrectOrUnapproved',
        'The template is not approved or incorrect.',
      );
    const phone = input.PhoneNumberSet?.[0] ?? '';
    const status = (code: string, message: string) => ({
      status: 200,
      body: {
        Response: {
          SendStatusSet: [
            {
              SerialNo: randomUUID(),
              PhoneNumber: phone,
              Fee: 1,
              SessionContext: '',
              Code: code,
              Message: message,
              IsoCode: 'CN',
            },
          ],
          RequestId: randomUUID(),
        },
      },
    });
    if (!/^\+\d{5,20}$/.test(phone))
      return status('InvalidParameterValue.IncorrectPhoneNumber', 'incorrect phone number');
    if (state.refuse) {
      const { code, message } = state.refuse;
      state.refuse = null;
      return status(code, message);
    }
    messages.push({
      phone,
      signName: input.SignName ?? '',
      templateId: input.TemplateId ?? '',
      params: input.TemplateParamSet ?? [],
    });
    return status('Ok', 'send success');
  }, state);
  return standIn(served, parts);
}
