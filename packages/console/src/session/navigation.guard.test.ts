import { describe, expect, it } from 'vitest';
import { decideNavigation, type GuardInput, returnAddress } from './navigation.guard.ts';

const companies = [{ companyId: 'c1', name: 'Alpha', icon: null, isOwner: true }];
const input = (patch: Partial<GuardInput>): GuardInput => ({
  token: 'token',
  companies,
  grantsLoaded: true,
  permitted: () => true,
  path: '/dashboard',
  search: '',
  ...patch,
});

describe('decideNavigation (spec §4 navigation guard)', () => {
  it('1. proceeds with a token and a loaded company list', () => {
    expect(decideNavigation(input({}))).toEqual({ kind: 'proceed' });
  });

  it('2. loads the company list when there is a token but no list yet', () => {
    expect(decideNavigation(input({ companies: undefined }))).toEqual({ kind: 'load-companies' });
  });

  it("2. loads the person's permission groups in the selected company before any screen", () => {
    expect(decideNavigation(input({ grantsLoaded: false }))).toEqual({ kind: 'load-companies' });
  });

  it('2. sends a screen outside the permission groups to /404', () => {
    const permitted = (path: string) => path !== '/permission/index';
    expect(decideNavigation(input({ permitted, path: '/permission/index' }))).toEqual({
      kind: 'redirect',
      to: '/404',
    });
    expect(decideNavigation(input({ permitted, path: '/org/user' }))).toEqual({ kind: 'proceed' });
  });

  it('2. sends a person without a company to /create-company', () => {
    expect(decideNavigation(input({ companies: null }))).toEqual({ kind: 'redirect', to: '/create-company' });
    expect(decideNavigation(input({ companies: [], path: '/' }))).toEqual({
      kind: 'redirect',
      to: '/create-company',
    });
  });

  it('2. lets a person without a company open /create-company and the static pages', () => {
    for (const path of ['/create-company', '/create-company/', '/404', '/200']) {
      expect(decideNavigation(input({ companies: null, path }))).toEqual({ kind: 'proceed' });
    }
  });

  it('3. exchanges the authorization code found in the query when there is no token', () => {
    expect(decideNavigation(input({ token: null, path: '/', search: '?code=abc&state=xyz' }))).toEqual({
      kind: 'exchange-code',
      code: 'abc',
      state: 'xyz',
    });
  });

  it('3. goes to single sign-on without a token and without a code, remembering the target', () => {
    expect(decideNavigation(input({ token: null, path: '/org/user', search: '?page=2' }))).toEqual({
      kind: 'sign-in',
      returnTo: '/org/user?page=2',
    });
  });

  it('3. reports an error answer from the sign-on service instead of looping', () => {
    expect(
      decideNavigation(
        input({ token: null, path: '/', search: '?error=access_denied&error_description=Denied&state=s' }),
      ),
    ).toEqual({ kind: 'sso-error', error: 'access_denied', description: 'Denied' });
  });

  it('ignores a code in the address once a token exists', () => {
    expect(decideNavigation(input({ search: '?code=old' }))).toEqual({ kind: 'proceed' });
  });
});

describe('returnAddress', () => {
  it('drops the parameters of the authorization response and keeps the rest', () => {
    expect(returnAddress('/dashboard', '?code=a&state=b&iss=x&tab=2')).toBe('/dashboard?tab=2');
    expect(returnAddress('/', '?code=a&state=b')).toBe('/');
  });
});
