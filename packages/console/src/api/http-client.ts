import { type CallDef, type CallRequest, type CallResponse, REQUEST_TIMEOUT_MS } from '@tessera/contract';
import axios, { type AxiosAdapter, isAxiosError } from 'axios';

/** A call that did not succeed; the person has already been told unless the call was silent. */
export class ApiError extends Error {
  constructor(
    message: string,
    /** The envelope code (it mirrors the HTTP status), or 0 when no answer arrived. */
    readonly code: number,
    /** The server's stable error reason (`data.reason`), when it sent one. */
    readonly reason?: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export interface CallOptions {
  /** Do not show the error message or the "login again" alert; the caller handles failure. */
  silent?: boolean;
}

type HttpPhrase = 'http.error' | 'http.networkError' | 'http.timeout' | 'http.badResponse';

export interface HttpClientDeps {
  /** The token and current company, read from storage on every call. */
  readHeaders(): { token: string | null; companyId: string | null };
  translate(key: HttpPhrase, values?: Record<string, string | number>): string;
  showError(text: string): void;
  /** Spec §8: the "Login Again" alert; resolves when the person has acknowledged it. */
  confirmLoginAgain(): Promise<void>;
  /** Clears the token and reloads the page. */
  onSessionInvalid(): void;
  /** Tests pass a fake adapter instead of the network. */
  adapter?: AxiosAdapter;
}

interface Envelope {
  code: number;
  msg: string;
  data: unknown;
}

const isEnvelope = (value: unknown): value is Envelope =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as Envelope).code === 'number' &&
  typeof ((value as Envelope).msg ?? '') === 'string';

const reasonOf = (data: unknown): string | undefined =>
  typeof data === 'object' && data !== null && typeof (data as { reason?: unknown }).reason === 'string'
    ? (data as { reason: string }).reason
    : undefined;

type Args<C extends CallDef> =
  undefined extends CallRequest<C>
    ? [body?: CallRequest<C>, options?: CallOptions]
    : [body: CallRequest<C>, options?: CallOptions];

/** The one HTTP client of the console (spec §7, §8): every call goes through `callApi`. */
export function createHttpClient(deps: HttpClientDeps) {
  const http = axios.create({
    timeout: REQUEST_TIMEOUT_MS,
    headers: { 'Content-Type': 'application/json' },
    adapter: deps.adapter,
  });
  http.interceptors.request.use((config) => {
    const { token, companyId } = deps.readHeaders();
    if (token) config.headers.set('access_token', token);
    if (companyId) config.headers.set('company_id', companyId);
    return config;
  });

  let sessionInvalidShown = false;

  function fail(error: ApiError, options: CallOptions): never {
    if (!options.silent) {
      if (error.code === 401) {
        if (!sessionInvalidShown) {
          sessionInvalidShown = true;
          void deps.confirmLoginAgain().then(deps.onSessionInvalid);
        }
      } else {
        deps.showError(error.message);
      }
    }
    throw error;
  }

  const fromEnvelope = (body: Envelope) =>
    new ApiError(body.msg || deps.translate('http.error'), body.code, reasonOf(body.data));

  /** Posts a body and returns the envelope's parsed `data`; any other outcome throws ApiError. */
  async function send<C extends CallDef>(
    call: C,
    body: unknown,
    options: CallOptions,
    headers?: Record<string, string>,
  ): Promise<CallResponse<C>> {
    let payload: unknown;
    try {
      const response = await http.post<unknown>(call.path, body, { headers });
      payload = response.data;
    } catch (error) {
      if (isAxiosError(error) && error.response && isEnvelope(error.response.data)) {
        return fail(fromEnvelope(error.response.data), options);
      }
      if (isAxiosError(error) && error.response) {
        return fail(
          new ApiError(
            deps.translate('http.badResponse', { status: error.response.status }),
            error.response.status,
          ),
          options,
        );
      }
      const timedOut = isAxiosError(error) && (error.code === 'ECONNABORTED' || error.code === 'ETIMEDOUT');
      return fail(new ApiError(deps.translate(timedOut ? 'http.timeout' : 'http.networkError'), 0), options);
    }
    if (!isEnvelope(payload)) return fail(new ApiError(deps.translate('http.error'), 0), options);
    if (payload.code !== 200) return fail(fromEnvelope(payload), options);
    const parsed = call.response.safeParse(payload.data);
    if (!parsed.success) return fail(new ApiError(deps.translate('http.error'), 0), options);
    return parsed.data as CallResponse<C>;
  }

  /** Sends one contract call and returns its parsed `data`; any other outcome throws ApiError. */
  function callApi<C extends CallDef>(call: C, ...[body, options = {}]: Args<C>): Promise<CallResponse<C>> {
    return send(call, body ?? {}, options);
  }

  /**
   * Sends a file to an upload call (multipart, in the field the contract names). Errors come
   * back as envelopes like any other call (413 too large, 415 unsupported type).
   */
  function uploadFile<C extends CallDef>(
    call: C,
    file: Blob,
    options: CallOptions = {},
  ): Promise<CallResponse<C>> {
    if (!call.upload) throw new Error(`${call.path} is not an upload call`);
    const form = new FormData();
    form.append(call.upload.field, file);
    // Not JSON: the browser writes the multipart boundary into the Content-Type itself.
    return send(call, form, options, { 'Content-Type': 'multipart/form-data' });
  }

  return { callApi, uploadFile };
}

export type CallApi = ReturnType<typeof createHttpClient>['callApi'];
export type UploadFile = ReturnType<typeof createHttpClient>['uploadFile'];
