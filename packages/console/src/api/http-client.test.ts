import { company, session } from '@tessera/contract';
import { AxiosError, type AxiosResponse, type InternalAxiosRequestConfig } from 'axios';
import { describe, expect, it, vi } from 'vitest';
import { ApiError, createHttpClient, type HttpClientDeps } from './http-client.ts';

type Reply = { status: number; body: unknown } | 'network' | 'timeout';

/** An axios adapter that answers from a script instead of the network. */
function harness(replies: Reply[], headers: { token: string | null; companyId: string | null }) {
  const requests: InternalAxiosRequestConfig[] = [];
  const adapter = async (config: InternalAxiosRequestConfig): Promise<AxiosResponse> => {
    requests.push(config);
    const reply = replies.shift();
    if (!reply) throw new Error('no scripted reply left');
    if (reply === 'network') throw new AxiosError('Network Error', AxiosError.ERR_NETWORK, config);
    if (reply === 'timeout') throw new AxiosError('timeout of 10000ms exceeded', 'ECONNABORTED', config);
    const response: AxiosResponse = {
      data: reply.body,
      status: reply.status,
      statusText: '',
      headers: {},
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
    adapter,
  } satisfies HttpClientDeps;
  return { ...createHttpClient(deps), deps, requests };
}

const list = { list: [{ companyId: 'c1', name: 'Alpha', icon: null, isOwner: true }] };

describe('callApi (spec §7, §8)', () => {
  it('posts JSON to the contract path with the token and company headers and returns data', async () => {
    const h = harness([{ status: 200, body: { code: 200, msg: 'success', data: list } }], {
      token: 'tok',
      companyId: 'c1',
    });
    await expect(h.callApi(company.myCompanies)).resolves.toEqual(list);
    const request = h.requests[0]!;
    expect(request.method).toBe('post');
    expect(request.url).toBe('/api/v1/manage/company/my/list');
    expect(request.timeout).toBe(10_000);
    expect(request.headers.get('access_token')).toBe('tok');
    expect(request.headers.get('company_id')).toBe('c1');
    expect(JSON.parse(String(request.data))).toEqual({});
  });

  it('leaves the headers out when nothing is stored', async () => {
    const h = harness([{ status: 200, body: { code: 200, msg: 'success', data: list } }], {
      token: null,
      companyId: null,
    });
    await h.callApi(company.myCompanies);
    expect(h.requests[0]!.headers.has('access_token')).toBe(false);
    expect(h.requests[0]!.headers.has('company_id')).toBe(false);
  });

  it('treats a body code other than 200 as an error and shows msg', async () => {
    const h = harness([{ status: 200, body: { code: 500, msg: 'Broken', data: null } }], {
      token: 't',
      companyId: null,
    });
    await expect(h.callApi(company.myCompanies)).rejects.toMatchObject({ code: 500, message: 'Broken' });
    expect(h.deps.showError).toHaveBeenCalledWith('Broken');
  });

  it('shows "Error" when an error has no msg, and keeps the reason', async () => {
    const h = harness(
      [{ status: 403, body: { code: 403, msg: '', data: { reason: 'company.create_dev_only' } } }],
      { token: 't', companyId: null },
    );
    const error = await h.callApi(company.createCompany, { name: 'Acme' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: 403, reason: 'company.create_dev_only', message: 'http.error' });
    expect(h.deps.showError).toHaveBeenCalledWith('http.error');
  });

  it('on 401 shows the "Login Again" alert once, then clears the session', async () => {
    const unauthorized = { status: 401, body: { code: 401, msg: 'Identity invalid', data: null } };
    const h = harness([unauthorized, unauthorized], { token: 'old', companyId: null });
    await expect(h.callApi(company.myCompanies)).rejects.toMatchObject({ code: 401 });
    await expect(h.callApi(company.myCompanies)).rejects.toMatchObject({ code: 401 });
    await vi.waitFor(() => expect(h.deps.onSessionInvalid).toHaveBeenCalledTimes(1));
    expect(h.deps.confirmLoginAgain).toHaveBeenCalledTimes(1);
    expect(h.deps.showError).not.toHaveBeenCalled();
  });

  it('also recognises a 401 carried in a 200 response body', async () => {
    const h = harness([{ status: 200, body: { code: 401, msg: 'x', data: null } }], {
      token: 't',
      companyId: null,
    });
    await expect(h.callApi(company.myCompanies)).rejects.toMatchObject({ code: 401 });
    expect(h.deps.confirmLoginAgain).toHaveBeenCalledTimes(1);
  });

  it('reports a transport failure as "Error: Network Error"', async () => {
    const h = harness(['network'], { token: null, companyId: null });
    await expect(h.callApi(session.ssoConfig, { variant: 'dev' })).rejects.toMatchObject({
      code: 0,
      message: 'http.networkError',
    });
    expect(h.deps.showError).toHaveBeenCalledWith('http.networkError');
  });

  it('reports a time-out separately', async () => {
    const h = harness(['timeout'], { token: null, companyId: null });
    await expect(h.callApi(session.ssoConfig)).rejects.toMatchObject({ message: 'http.timeout' });
  });

  it('reports an answer that is not an envelope with its status', async () => {
    const h = harness([{ status: 502, body: '<html>Bad gateway</html>' }], { token: null, companyId: null });
    await expect(h.callApi(session.ssoConfig)).rejects.toMatchObject({ code: 502 });
    expect(h.deps.showError).toHaveBeenCalledWith('http.badResponse:{"status":502}');
  });

  it('rejects data that does not match the contract response', async () => {
    const h = harness([{ status: 200, body: { code: 200, msg: 'success', data: { list: 'nope' } } }], {
      token: 't',
      companyId: null,
    });
    await expect(h.callApi(company.myCompanies)).rejects.toBeInstanceOf(ApiError);
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
    const token = session.oidcToken.dev;
    const body = { code: 'c', codeVerifier: 'v'.repeat(43) };
    await expect(h.callApi(token, body, { silent: true })).rejects.toMatchObject({ message: 'Bad code' });
    await expect(h.callApi(session.logout.dev, undefined, { silent: true })).rejects.toMatchObject({
      code: 401,
    });
    expect(h.deps.showError).not.toHaveBeenCalled();
    expect(h.deps.confirmLoginAgain).not.toHaveBeenCalled();
  });
});

describe('uploadFile', () => {
  it('sends the file as multipart in the field the contract names, with the session headers', async () => {
    const h = harness([{ status: 200, body: { code: 200, msg: 'success', data: { icon: '/files/f1' } } }], {
      token: 'tok',
      companyId: 'c1',
    });
    const file = new File(['<svg/>'], 'logo.svg', { type: 'image/svg+xml' });
    await expect(h.uploadFile(company.updateCompanyIcon, file)).resolves.toEqual({ icon: '/files/f1' });
    const request = h.requests[0]!;
    expect(request.url).toBe('/api/v1/manage/company/update/icon');
    expect(request.data).toBeInstanceOf(FormData);
    expect((request.data as FormData).get('file')).toBeInstanceOf(File);
    expect(request.headers.get('access_token')).toBe('tok');
    expect(request.headers.get('company_id')).toBe('c1');
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
    await expect(h.uploadFile(company.updateCompanyIcon, file)).rejects.toMatchObject({
      code: 413,
      reason: 'upload.too_large',
    });
    await expect(h.uploadFile(company.updateCompanyIcon, file)).rejects.toMatchObject({ code: 415 });
    expect(h.deps.showError.mock.calls).toEqual([['The file is larger than 1 MiB'], ['Only PNG, JPEG']]);
  });

  it('refuses calls that are not uploads', () => {
    const h = harness([], { token: 't', companyId: 'c1' });
    expect(() => h.uploadFile(company.myCompanies, new Blob(['x']))).toThrow(/not an upload call/);
  });
});
