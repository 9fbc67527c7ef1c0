import { storageKeys } from '@tessera/contract';
import { describe, expect, it } from 'vitest';
import { createSessionStore } from './session.store.ts';
import { createSessionStorage, TOKEN_VARIANT_KEY } from './session-storage.ts';

const alpha = { companyId: 'c1', name: 'Alpha', icon: '/api/v1/files/x', isOwner: true };
const beta = { companyId: 'c2', name: 'Beta', icon: null, isOwner: false };
const answer = (token: string, username = 'alice') => ({
  token,
  username,
  expiresIn: 7200,
  sessionExpiresIn: 43_200,
});

describe('session store and storage (spec §3)', () => {
  it('stores the token and name under the spec keys, with the expiries the server answered', () => {
    const store = createSessionStore('dev', createSessionStorage(window.localStorage));
    const before = Date.now();
    store.signedIn(answer('tok'));
    expect(window.localStorage.getItem(storageKeys.token)).toBe('tok');
    expect(window.localStorage.getItem(storageKeys.name)).toBe('alice');
    expect(store.getState()).toMatchObject({ token: 'tok', username: 'alice', companies: undefined });
    const expiry = JSON.parse(window.localStorage.getItem(storageKeys.tokenExpiry) ?? '{}');
    expect(expiry.at).toBeGreaterThanOrEqual(before);
    expect(expiry.idleAt - expiry.at).toBe(7_200_000);
    expect(expiry.absoluteAt - expiry.at).toBe(43_200_000);
  });

  it('takes a replaced token without forgetting the companies', () => {
    const storage = createSessionStorage(window.localStorage);
    const store = createSessionStore('dev', storage);
    store.signedIn(answer('tok'));
    store.companiesLoaded([alpha]);
    store.tokenChanged(answer('tok-2'));
    expect(window.localStorage.getItem(storageKeys.token)).toBe('tok-2');
    expect(store.getState()).toMatchObject({ token: 'tok-2', company: alpha });
    // Another tab wrote the next one: taken from storage.
    storage.writeToken(answer('tok-3'), 'dev');
    store.tokenChanged();
    expect(store.getState()).toMatchObject({ token: 'tok-3', company: alpha });
  });

  it('does not take a token of the other console for its own', () => {
    createSessionStorage(window.localStorage).writeToken(answer('dev-token'), 'dev');
    expect(
      createSessionStore('admin', createSessionStorage(window.localStorage)).getState().token,
    ).toBeNull();
    expect(createSessionStore('dev', createSessionStorage(window.localStorage)).getState().token).toBe(
      'dev-token',
    );
    window.localStorage.removeItem(TOKEN_VARIANT_KEY);
    expect(createSessionStore('admin', createSessionStorage(window.localStorage)).getState().token).toBe(
      'dev-token',
    );
  });

  it('selects and stores a company when the list loads, and null means no company', () => {
    const store = createSessionStore('dev', createSessionStorage(window.localStorage));
    store.companiesLoaded([alpha, beta]);
    expect(store.getState().company).toEqual(alpha);
    expect(window.localStorage.getItem(storageKeys.companyId)).toBe('c1');
    expect(window.localStorage.getItem(storageKeys.companyName)).toBe('Alpha');
    expect(window.localStorage.getItem(storageKeys.companyOwner)).toBe('1');
    expect(window.localStorage.getItem(storageKeys.companyIcon)).toBe('/api/v1/files/x');

    store.selectCompany(beta);
    expect(window.localStorage.getItem(storageKeys.companyIcon)).toBeNull();
    store.companiesLoaded([alpha, beta]);
    expect(store.getState().company).toEqual(beta);
    store.companiesLoaded([alpha, beta], 'c1');
    expect(store.getState().company).toEqual(alpha);

    store.companiesLoaded(null);
    expect(store.getState()).toMatchObject({ companies: null, company: undefined });
  });

  it('follows a renamed company in the list, the selection and storage', () => {
    const store = createSessionStore('dev', createSessionStorage(window.localStorage));
    store.companiesLoaded([alpha, beta]);
    store.companyChanged('c1', { name: 'Alpha Renamed' });
    expect(store.getState().company).toEqual({ ...alpha, name: 'Alpha Renamed' });
    expect(store.getState().companies?.map((item) => item.name)).toEqual(['Alpha Renamed', 'Beta']);
    expect(window.localStorage.getItem(storageKeys.companyName)).toBe('Alpha Renamed');

    store.companyChanged('c2', { icon: '/api/v1/files/y' });
    expect(store.getState().companies?.[1]?.icon).toBe('/api/v1/files/y');
    expect(store.getState().company?.companyId).toBe('c1');
    expect(window.localStorage.getItem(storageKeys.companyIcon)).toBe('/api/v1/files/x');
  });

  it('forgets the session on leave and nothing else', () => {
    window.localStorage.setItem('unrelated', 'kept');
    const store = createSessionStore('dev', createSessionStorage(window.localStorage));
    store.signedIn(answer('tok'));
    store.companiesLoaded([alpha]);
    store.leave();
    expect(Object.keys(window.localStorage)).toEqual(['unrelated']);
    expect(store.getState()).toMatchObject({ token: null, leaving: true });
  });
});
