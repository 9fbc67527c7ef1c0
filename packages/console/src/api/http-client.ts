import type { CallMap, CallPath, CallRequest, CallResponse, FieldError } from '@tessera/contract';
import { REQUEST_TIMEOUT_MS, UPLOAD_FILE_FIELD } from '@tessera/contract/shell-constants';
import axios, { type AxiosAdapter, isAxiosError } from 'axios';

/**
 * The console calls the API by path. The contract's call table gives each path its request and
 * response types (`import type` only: the schemas, and zod with them, stay out of the browser;
 * the server checks requests, and its own answers in development and tests).
 */
export type ApiRequest<P extends CallPath> = CallRequest<CallMap[P]>;
export type ApiResponse<P extends CallPath> = CallResponse<CallMap[P]>;
/** The paths of the upload calls (multipart instead of JSON). */
export type UploadPath = {
  [P in CallPath]: CallMap[P]['upload'] extends undefined ? never : P;
}[CallPath];
/** The paths of the download calls (the answer is a file instead of the envelope). */
export type DownloadPath = {
  [P in CallPath]: CallMap[P]['download'] extends undefined ? never : P;
}[CallPath];

/** A call that did not succeed; the person has already been told unless the call was silent. */
export class ApiError extends Error {
  constructor(
    message: string,
    /** The envelope code (it mirrors the HTTP status), or 0 when no answer arrived. */
    readonly code: number,
    /** The server's stable error reason (`data.reason`), when it sent one. */
    readonly reason?: string,
    /** The refused fields with their localised messages (`data.fields`), when the server named them. */
    readonly fields?: FieldError[],
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
  /** Told as each call leaves: the session keep-alive counts calls as activity. */
  onSend?(): void;
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

const fieldsOf = (data: unknown): FieldError[] | undefined => {
  const fields =
    typeof data === 'object' && data !== null ? (data as { fields?: unknown }).fields : undefined;
  return Array.isArray(fields)
    ? fields.filter(
        (item): item is FieldError => typeof item?.field === 'string' && typeof item?.message === 'string',
      )
    : undefined;
};

/** A file a download call answered. */
export interface DownloadedFile {
  blob: Blob;
  /** From Content-Disposition (RFC 6266, `filename*` first), or undefined. */
  filename: string | undefined;
}

/** The file name of a Content-Disposition header (RFC 6266: `filename*` first). */
export function filenameOf(disposition: string | null | undefined): string | undefined {
  if (!disposition) return undefined;
  const extended = disposition.match(/filename\*\s*=\s*UTF-8''([^;]+)/i)?.[1];
  if (extended) {
    try {
      return decodeURIComponent(extended.trim());
    } catch {
      // A broken encoding: fall through to the plain name.
    }
  }
  return disposition.match(/filename\s*=\s*"?([^";]+)"?/i)?.[1]?.trim() || undefined;
}

type Args<P extends CallPath> =
  undefined extends ApiRequest<P>
    ? [body?: ApiRequest<P>, options?: CallOptions]
    : [body: ApiRequest<P>, options?: CallOptions];

/** The one HTTP client of the console (spec §7, §8): every call goes through `callApi`. */
export function createHttpClient(deps: HttpClientDeps) {
  // The one axios instance (spec §8, §9): time limit, JSON, and the session headers on every call.
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
    new ApiError(
      body.msg || deps.translate('http.error'),
      body.code,
      reasonOf(body.data),
      fieldsOf(body.data),
    );

  /** Posts a body and returns the envelope's `data`; any other outcome throws ApiError, unannounced. */
  async function post<P extends CallPath>(
    path: P,
    body: unknown,
    headers?: Record<string, string>,
  ): Promise<ApiResponse<P>> {
    let payload: unknown;
    try {
      const response = await http.post<unknown>(path, body, { headers });
      payload = response.data;
    } catch (error) {
      throw await errorOf(error);
    }
    if (!isEnvelope(payload)) throw new ApiError(deps.translate('http.error'), 0);
    if (payload.code !== 200) throw fromEnvelope(payload);
    return payload.data as ApiResponse<P>;
  }

  /**
   * `post`, telling the person when it fails. A call refused because its token was replaced on
   * the way (refreshed, in this tab or another) is sent once more with the new token.
   */
  async function send<P extends CallPath>(
    path: P,
    body: unknown,
    options: CallOptions,
    headers?: Record<string, string>,
  ): Promise<ApiResponse<P>> {
    const sent = deps.readHeaders().token;
    deps.onSend?.();
    try {
      return await post<P>(path, body, headers);
    } catch (error) {
      const token = deps.readHeaders().token;
      if ((error as ApiError).code === 401 && token && token !== sent) {
        return post<P>(path, body, headers).catch((again: ApiError) => fail(again, options));
      }
      return fail(error as ApiError, options);
    }
  }

  /** A refused or failed request: the envelope's message when one came back, else the transport's. */
  async function errorOf(error: unknown): Promise<ApiError> {
    if (isAxiosError(error) && error.response?.data instanceof Blob) {
      // A download call refused: its envelope arrived as a Blob.
      const text = await error.response.data.text().catch(() => '');
      try {
        error.response.data = JSON.parse(text);
      } catch {
        error.response.data = text;
      }
    }
    if (isAxiosError(error) && error.response && isEnvelope(error.response.data)) {
      return fromEnvelope(error.response.data);
    }
    if (isAxiosError(error) && error.response) {
      return new ApiError(
        deps.translate('http.badResponse', { status: error.response.status }),
        error.response.status,
      );
    }
    const timedOut = isAxiosError(error) && (error.code === 'ECONNABORTED' || error.code === 'ETIMEDOUT');
    return new ApiError(deps.translate(timedOut ? 'http.timeout' : 'http.networkError'), 0);
  }

  /**
   * Sends one contract call, named by its path, and returns the envelope's `data`; any other
   * outcome throws ApiError. The body and the answer have the call's types:
   * `callApi('/api/v1/manage/company/detail')` resolves to the company detail.
   */
  function callApi<P extends CallPath>(path: P, ...[body, options = {}]: Args<P>): Promise<ApiResponse<P>> {
    return send(path, body ?? {}, options);
  }

  /**
   * Sends a file to an upload call (multipart: the text `fields`, then the file in the contract's
   * upload field). Errors come back as envelopes like any other call (413 too large, 415
   * unsupported type).
   */
  function uploadFile<P extends UploadPath>(
    path: P,
    file: Blob,
    options: CallOptions & { fields?: Record<string, string> } = {},
  ): Promise<ApiResponse<P>> {
    const form = new FormData();
    // Text fields first: the server reads them before the file.
    for (const [name, value] of Object.entries(options.fields ?? {})) form.append(name, value);
    form.append(UPLOAD_FILE_FIELD, file);
    // Not JSON: the browser writes the multipart boundary into the Content-Type itself.
    return send(path, form, options, { 'Content-Type': 'multipart/form-data' });
  }

  /**
   * Posts a download call and returns the file it answers. A refusal comes back as the usual
   * envelope and is handled like any other call's; a large export gets three times the usual
   * time limit.
   */
  async function downloadFile<P extends DownloadPath>(
    path: P,
    ...[body, options = {}]: Args<P>
  ): Promise<DownloadedFile> {
    try {
      const response = await http.post<Blob>(path, body ?? {}, {
        responseType: 'blob',
        timeout: REQUEST_TIMEOUT_MS * 3,
      });
      return { blob: response.data, filename: filenameOf(response.headers['content-disposition']) };
    } catch (error) {
      return fail(await errorOf(error), options);
    }
  }

  return { callApi, uploadFile, downloadFile };
}

export type CallApi = ReturnType<typeof createHttpClient>['callApi'];
export type UploadFile = ReturnType<typeof createHttpClient>['uploadFile'];
export type DownloadFile = ReturnType<typeof createHttpClient>['downloadFile'];
