import { fullConsoleGrants } from '@tessera/contract/constants';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { CallApi } from '../api/http-client.ts';
import { loadSystemInfo } from '../app/console-context.ts';
import { createSessionService } from './session.service.ts';
import { createSessionStore } from './session.store.ts';
import { createSessionStorage } from './session-storage.ts';

const alpha = { companyId: 'c1', name: 'Alpha', icon: null, isOwner: true };
const facts = {
  version: '1.0.0',
  build: 'test',
  nodeVersion: 'v20',
  database: 'pglite',
  startedAt: '2026-11-29T00:00:00.000Z',
  mailEnabled: false,
};

/** A service whose company list answers only when `answerList` is called; the paths asked, in order. */
function service() {
  const asked: string[] = [];
  let answerList = () => {};
  const callApi = vi.fn((path: string) => {
    asked.push(path);
    if (path === '/api/v1/manage/company/my/list')
      return new Promise((resolve) => {
        answerList = () => resolve({ list: [alpha] });
      });
    if (path === '/api/v1/manage/company/my/access') return Promise.resolve({ grants: fullConsoleGrants });
    return Promise.resolve(facts);
  }) as unknown as CallApi;
  const store = createSessionStore('dev', createSessionStorage(window.localStorage));
  const session = createSessionService({ variant: 'dev', store, callApi, goTo: vi.fn(), reload: vi.fn() });
  return { session, store, callApi, asked, answerList: () => answerList() };
}

describe('session service', () => {
  beforeEach(() => window.localStorage.clear());

  it('asks for the platform facts beside the company list, before the list has answered', async () => {
    const { session, store, callApi, asked, answerList } = service();
    const loaded = session.loadCompanies();
    expect(asked).toEqual(['/api/v1/manage/company/my/list', '/api/v1/manage/system/info']);
    answerList();
    await loaded;
    expect(store.getState()).toMatchObject({ company: alpha, grants: fullConsoleGrants });
    // The screens that want the facts share that one answer.
    await expect(loadSystemInfo(callApi)).resolves.toEqual(facts);
    expect(asked.filter((path) => path === '/api/v1/manage/system/info')).toHaveLength(1);
  });

  it('asks only for the grants on a company switch', async () => {
    const { session, store, asked, answerList } = service();
    const first = session.loadCompanies();
    answerList();
    await first;
    asked.length = 0;
    store.selectCompany({ ...alpha });
    await session.loadCompanies();
    expect(asked).toEqual(['/api/v1/manage/company/my/access']);
  });
});
