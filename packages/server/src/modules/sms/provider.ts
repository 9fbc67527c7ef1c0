import type { sms } from '@tessera/contract';

type SmsProvider = sms.SmsProvider;

/** What a provider's client needs: the platform's account, with the company's sign name and template where it has them. */
export interface ProviderAccount {
  provider: SmsProvider;
  accessKeyId: string;
  accessKeySecret: string;
  region: string;
  /** Tencent's SmsSdkAppId. */
  appId: string;
  signName: string;
  templateId: string;
  /** The template's second variable is the minutes the code lives. */
  templateMinutes: boolean;
  /** The API's base address (scheme and host); the provider's documented one when null. */
  baseUrl: string | null;
}

export interface CodeMessage {
  phone: string;
  code: string;
  minutes: number;
}

/** A provider's answer: the message id, or its error code and message (never retried). */
export type ProviderResult =
  | { ok: true; messageId: string; requestId: string }
  | { ok: false; providerCode: string; providerMessage: string; requestId: string };

/** fetch, as the outbound policy gives it (tests give their own allowance for 127.0.0.1). */
export type Fetch = (url: string, init: RequestInit) => Promise<Response>;

export interface Transport {
  fetch: Fetch;
  /** How long the provider may take to answer: a person is waiting for the code. */
  timeoutMs: number;
}

type Failure = Extract<ProviderResult, { ok: false }>;
const failure = (providerCode: string, providerMessage: string): Failure => ({
  ok: false,
  providerCode,
  providerMessage,
  requestId: '',
});
const timedOut = (error: unknown) => ['TimeoutError', 'AbortError'].includes((error as Error).name);

/**
 * Sends one request and reads its JSON answer. A time-out, an unreachable host or an answer
 * that is not JSON is a failure with a code of ours (TIMEOUT, UNREACHABLE, HTTP_<status>).
 */
export async function exchange(
  transport: Transport,
  url: string,
  init: RequestInit,
): Promise<{ status: number; body: unknown } | Failure> {
  const timeout = () => failure('TIMEOUT', `no answer in ${transport.timeoutMs} ms`);
  let response: Response;
  try {
    response = await transport.fetch(url, { ...init, signal: AbortSignal.timeout(transport.timeoutMs) });
  } catch (error) {
    if (timedOut(error)) return timeout();
    const cause = (error as { cause?: { code?: string } }).cause;
    return failure('UNREACHABLE', (error as { code?: string }).code ?? cause?.code ?? 'ERROR');
  }
  try {
    const textBody = await response.text();
    return { status: response.status, body: JSON.parse(textBody) as unknown };
  } catch (error) {
    return timedOut(error) ? timeout() : failure(`HTTP_${response.status}`, 'not a JSON answer');
  }
}

/** The base address without a trailing slash. */
export const baseOf = (configured: string | null, documented: string) =>
  (configured ?? documented).replace(/\/+$/, '');
