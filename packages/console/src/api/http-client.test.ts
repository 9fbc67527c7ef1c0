import { AxiosError, type AxiosResponse, type InternalAxiosRequestConfig } from 'axios';
import { describe, expect, it, vi } from 'vitest';
import { ApiError, createHttpClient, type HttpClientDeps } from './http-client.ts';

type Reply = { status: number; body: unknown; headers?: Record<string, string> } | 'network' | 'timeout';
/** What a request carried: its method, path, headers (as sent, axios' Accept left out) and body. */
interface Request {
  method: string;
  url: string;
  timeout: number;
  headers: Record<string, string>;
  body: unknown;
}

/** An axios adapter that answers from a script instead of the network. */
function harness(replies: Reply[], headers: { token: string | null; companyId: string | null }) {
  const requests: Request[] = [];
  const adapter = async (config: InternalAxiosRequestConfig): Promise<AxiosResponse> => {
    const { Accept: _accept, ...sent } = config.headers.toJSON() as Record<string, string>;
    requests.push({
      method: (config.method ?? '').toUpperCase(),
      url: config.url ?? '',
      timeout: config.timeout ?? 0,
      headers: sent,
      body: config.data,
    });
    const reply = replies.shift();
    if (!reply) throw new Error('no scripted reply left');
    if (reply === 'network') throw new AxiosError('Network Error', AxiosError.ERR_NETWORK, config);
    if (reply === 'timeout') throw new AxiosError('timeout of 10000ms exceeded', 'ECONNABORTED', config);
    const response: AxiosResponse = {
      data: typeof reply.body === 'string' ? safeJson(reply.body) : reply.body,
      status: reply.status,
      statusText: '',
      headers: reply.headers ?? {},
      config,
    };
    if (reply.status >= 400) {
      throw new AxiosError(
        `Request failed with status code ${reply.status}`,
        'ERR_BAD_RESPONSE',
        config,
        null,
        response,
      );
    }
    return response;
  };
  const deps = {
    readHeaders: () => headers,
    translate: vi.fn((key: string, values?: Record<string, string | number>) =>
      values ? `${key}:${JSON.stringify(values)}` : key,
    ),
    showError: vi.fn(),
    confirmLoginAgain: vi.fn(() => Promise.resolve()),
    onSessionInvalid: vi.fn(),
    onSend: vi.fn(),
    adapter,
  } satisfies HttpClientDeps;
  return { ...createHttpClient(deps), deps, requests };
}

/** axios parses JSON answers and keeps any other text as it is. */
const safeJson = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
};

const list = { list: [{ companyId: 'c1', name: 'Alpha', icon: null, isOwner: true }] };

describe('callApi (spec §7, §8)', () => {
  it('posts JSON to the contract path with the token and company headers and returns data', async () => {
    const h = harness([{ status: 200, body: { code: 200, msg: 'success', data: list } }], {
      token: 'tok',
      companyId: 'c1',
    });
    await expect(h.callApi('/api/v1/manage/company/my/list')).resolves.toEqual(list);
    const request = h.requests[0]!;
    expect(request.method).toBe('POST');
    expect(request.url).toBe('/api/v1/manage/company/my/list');
    expect(request.headers).toEqual({
      'Content-Type': 'application/json',
      access_token: 'tok',
      company_id: 'c1',
    });
    expect(JSON.parse(String(request.body))).toEqual({});
  });

  it('leaves the headers out when nothing is stored', async () => {
    const h = harness([{ status: 200, body: { code: 200, msg: 'success', data: list } }], {
      token: null,
      companyId: null,
    });
    await h.callApi('/api/v1/manage/company/my/list');
    expect(h.requests[0]!.headers).toEqual({ 'Content-Type': 'application/json' });
  });

  it('sends the body as JSON', async () => {
    const h = harness([{ status: 200, body: { code: 200, msg: 'success', data: {} } }], {
      token: 't',
      companyId: 'c1',
    });
    await h.callApi('/api/v1/manage/company/user', { page: 2, pageSize: 10, keyword: 'ann' });
    expect(JSON.parse(String(h.requests[0]!.body))).toEqual({ page: 2, pageSize: 10, keyword: 'ann' });
  });

  it('treats a body code other than 200 as an error and shows msg', async () => {
    const h = harness([{ status: 200, body: { code: 500, msg: 'Broken', data: null } }], {
      token: 't',
      companyId: null,
    });
    await expect(h.callApi('/api/v1/manage/company/my/list')).rejects.toMatchObject({
      code: 500,
      message: 'Broken',
    });
    expect(h.deps.showError).toHaveBeenCalledWith('Broken');
  });

  it('passes on the fields the server refused, with their messages', async () => {
    const fields = [{ field: 'email', message: 'This email is already used' }];
    const h = harness(
      [
        {
          status: 409,
          body: {
            code: 409,
            msg: 'This email is already used',
            data: { reason: 'user.email_taken', fields },
          },
        },
      ],
      { token: 't', companyId: 'c1' },
    );
    const error = await h.callApi('/api/v1/manage/company/my/list').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: 409, reason: 'user.email_taken', fields });
  });

  it('shows "Error" when an error has no msg, and keeps the reason', async () => {
    const h = harness(
      [{ status: 403, body: { code: 403, msg: '', data: { reason: 'company.create_dev_only' } } }],
      { token: 't', companyId: null },
    );
    const error = await h.callApi('/api/v1/manage/company/create', { name: 'Acme' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: 403, reason: 'company.create_dev_only', message: 'http.error' });
    expect(h.deps.showError).toHaveBeenCalledWith('http.error');
  });

  it('on 401 shows the "Login Again" alert once, then clears the session', async () => {
    const unauthorized = { status: 401, body: { code: 401, msg: 'Identity invalid', data: null } };
    const h = harness([unauthorized, unauthorized], { token: 'old', companyId: null });
    await expect(h.callApi('/api/v1/manage/company/my/list')).rejects.toMatchObject({ code: 401 });
    await expect(h.callApi('/api/v1/manage/company/my/list')).rejects.toMatchObject({ code: 401 });
    await vi.waitFor(() => expect(h.deps.onSessionInvalid).toHaveBeenCalledTimes(1));
    expect(h.deps.confirmLoginAgain).toHaveBeenCalledTimes(1);
    expect(h.deps.showError).not.toHaveBeenCalled();
  });

  it('sends a call again when its token was replaced on the way (a refresh in another tab), without "Login Again" (issue 15)', async () => {
    const unauthorized = { status: 401, body: { code: 401, msg: 'Identity invalid', data: null } };
    const ok = { status: 200, body: { code: 200, msg: 'success', data: list } };
    // Storage holds the old token until the first request has left, then the refreshed one.
    let sentSoFar = () => 0;
    const headers = {
      companyId: null,
      get token() {
        return sentSoFar() === 0 ? 'old' : 'new';
      },
    };
    const h = harness([unauthorized, ok], headers);
    sentSoFar = () => h.requests.length;
    await expect(h.callApi('/api/v1/manage/company/my/list')).resolves.toEqual(list);
    expect(h.requests.map((request) => request.headers.access_token)).toEqual(['old', 'new']);
    expect(h.deps.onSend).toHaveBeenCalledTimes(1);
    expect(h.deps.confirmLoginAgain).not.toHaveBeenCalled();
  });

  it('also recognises a 401 carried in a 200 response body', async () => {
    const h = harness([{ status: 200, body: { code: 401, msg: 'x', data: null } }], {
      token: 't',
      companyId: null,
    });
    await expect(h.callApi('/api/v1/manage/company/my/list')).rejects.toMatchObject({ code: 401 });
    expect(h.deps.confirmLoginAgain).toHaveBeenCalledTimes(1);
  });

  it('reports a transport failure as "Error: Network Error"', async () => {
    const h = harness(['network'], { token: null, companyId: null });
    await expect(h.callApi('/api/v1/sso/config', { variant: 'dev' })).rejects.toMatchObject({
      code: 0,
      message: 'http.networkError',
    });
    expect(h.deps.showError).toHaveBeenCalledWith('http.networkError');
  });

  it('gives up after 10 s and reports a time-out separately', async () => {
    const h = harness(['timeout'], { token: null, companyId: null });
    const outcome = await h.callApi('/api/v1/sso/config').catch((error: unknown) => error);
    expect(h.requests[0]!.timeout).toBe(10_000);
    expect(outcome).toMatchObject({ code: 0, message: 'http.timeout' });
    expect(h.deps.showError).toHaveBeenCalledWith('http.timeout');
  });

  it('reports an answer that is not an envelope (not even JSON) with its status', async () => {
    const h = harness([{ status: 502, body: '<html>Bad gateway</html>' }], { token: null, companyId: null });
    await expect(h.callApi('/api/v1/sso/config')).rejects.toMatchObject({ code: 502 });
    expect(h.deps.showError).toHaveBeenCalledWith('http.badResponse:{"status":502}');
  });

  it('reports a success status whose body is not an envelope as "Error"', async () => {
    const h = harness([{ status: 200, body: { list: [] } }], { token: 't', companyId: null });
    await expect(h.callApi('/api/v1/manage/company/my/list')).rejects.toMatchObject({
      code: 0,
      message: 'http.error',
    });
    expect(h.deps.showError).toHaveBeenCalledWith('http.error');
  });

  it('stays quiet for silent calls, 401 included', async () => {
    const h = harness(
      [
        { status: 400, body: { code: 400, msg: 'Bad code', data: null } },
        { status: 401, body: { code: 401, msg: 'x', data: null } },
      ],
      { token: 't', companyId: null },
    );
    const body = { code: 'c', codeVerifier: 'v'.repeat(43) };
    await expect(h.callApi('/api/v1/dev/oidc/token', body, { silent: true })).rejects.toMatchObject({
      message: 'Bad code',
    });
    await expect(h.callApi('/api/v1/dev/login/logout', undefined, { silent: true })).rejects.toMatchObject({
      code: 401,
    });
    expect(h.deps.showError).not.toHaveBeenCalled();
    expect(h.deps.confirmLoginAgain).not.toHaveBeenCalled();
  });

  it('takes only known paths, with their request types (checked by tsc)', () => {
    const h = harness([], { token: 't', companyId: 'c1' });
    const typeChecks = () => {
      // @ts-expect-error a typo in a path is not a call
      void h.callApi('/api/v1/manage/company/detial');
      // @ts-expect-error the body has the call's request type
      void h.callApi('/api/v1/manage/company/create', { title: 'Acme' });
      // @ts-expect-error a call with a required body needs it
      void h.callApi('/api/v1/manage/company/create');
    };
    expect(typeChecks).toBeTypeOf('function');
  });
});

describe('uploadFile', () => {
  it('sends the file as multipart in the contract upload field, with the session headers', async () => {
    const h = harness([{ status: 200, body: { code: 200, msg: 'success', data: { icon: '/files/f1' } } }], {
      token: 'tok',
      companyId: 'c1',
    });
    const file = new File(['<svg/>'], 'logo.svg', { type: 'image/svg+xml' });
    await expect(h.uploadFile('/api/v1/manage/company/update/icon', file)).resolves.toEqual({
      icon: '/files/f1',
    });
    const request = h.requests[0]!;
    expect(request.url).toBe('/api/v1/manage/company/update/icon');
    expect(request.body).toBeInstanceOf(FormData);
    expect((request.body as FormData).get('file')).toBeInstanceOf(File);
    // Not JSON: axios' browser adapters leave the multipart Content-Type with its boundary to the browser.
    expect(request.headers).toEqual({
      'Content-Type': 'multipart/form-data',
      access_token: 'tok',
      company_id: 'c1',
    });
  });

  it('sends text fields before the file', async () => {
    const h = harness([{ status: 200, body: { code: 200, msg: 'success', data: { icon: '/files/f2' } } }], {
      token: 't',
      companyId: 'c1',
    });
    await h.uploadFile('/api/v1/manage/company/update/icon', new Blob(['x']), { fields: { note: 'n' } });
    const form = h.requests[0]!.body as FormData;
    expect([...form.keys()]).toEqual(['note', 'file']);
  });

  it("shows the server's message for a file that is too large or of the wrong type", async () => {
    const h = harness(
      [
        {
          status: 413,
          body: { code: 413, msg: 'The file is larger than 1 MiB', data: { reason: 'upload.too_large' } },
        },
        {
          status: 415,
          body: { code: 415, msg: 'Only PNG, JPEG', data: { reason: 'upload.unsupported_type' } },
        },
      ],
      { token: 't', companyId: 'c1' },
    );
    const file = new File(['x'], 'x.png', { type: 'image/png' });
    await expect(h.uploadFile('/api/v1/manage/company/update/icon', file)).rejects.toMatchObject({
      code: 413,
      reason: 'upload.too_large',
    });
    await expect(h.uploadFile('/api/v1/manage/company/update/icon', file)).rejects.toMatchObject({
      code: 415,
    });
    expect(h.deps.showError.mock.calls).toEqual([['The file is larger than 1 MiB'], ['Only PNG, JPEG']]);
  });

  it('takes only upload calls (checked by tsc)', () => {
    const h = harness([], { token: 't', companyId: 'c1' });
    const typeChecks = () => {
      // @ts-expect-error the company list is not an upload call
      void h.uploadFile('/api/v1/manage/company/my/list', new Blob(['x']));
    };
    expect(typeChecks).toBeTypeOf('function');
  });
});

describe('downloadFile', () => {
  it('returns the file and its name, with the session headers and a longer time limit', async () => {
    const blob = new Blob(['PK'], { type: 'application/octet-stream' });
    const h = harness(
      [
        {
          status: 200,
          body: blob,
          headers: {
            'content-disposition': `attachment; filename="users.xlsx"; filename*=UTF-8''%E7%94%A8%E6%88%B7.xlsx`,
          },
        },
      ],
      { token: 'tok', companyId: 'c1' },
    );
    const file = await h.downloadFile('/api/v1/manage/user/export', {
      keyword: 'al',
      includeSubDepartments: true,
    });
    expect(file.filename).toBe('用户.xlsx');
    expect(file.blob).toBe(blob);
    const request = h.requests[0]!;
    expect(request.url).toBe('/api/v1/manage/user/export');
    expect(request.headers).toMatchObject({ access_token: 'tok', company_id: 'c1' });
    expect(request.timeout).toBe(30_000);
  });

  it('shows the message of a refused download, whose envelope arrives as a file', async () => {
    const envelope = new Blob([
      JSON.stringify({ code: 404, msg: 'User not found', data: { reason: 'user.not_found' } }),
    ]);
    const h = harness([{ status: 404, body: envelope }], { token: 't', companyId: 'c1' });
    await expect(h.downloadFile('/api/v1/manage/user/batch-task/template')).rejects.toMatchObject({
      code: 404,
      reason: 'user.not_found',
    });
    expect(h.deps.showError).toHaveBeenCalledWith('User not found');
  });
});
