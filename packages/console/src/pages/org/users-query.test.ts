import { describe, expect, it } from 'vitest';
import { statusActions } from './user-status.ts';
import { defaultUsersQuery, parseUsersQuery, usersQueryParams } from './users-query.ts';

describe('the user list query in the address', () => {
  it('round-trips and leaves defaults out', () => {
    const query = {
      ...defaultUsersQuery,
      page: 3,
      keyword: 'ali',
      status: 'locked' as const,
      departmentId: 'd1',
      includeSubDepartments: false,
      sortBy: 'lastLoginAt' as const,
      sortOrder: 'asc' as const,
    };
    expect(parseUsersQuery(usersQueryParams(query))).toEqual(query);
    expect(usersQueryParams(defaultUsersQuery).toString()).toBe('');
  });

  it('falls back to the defaults for broken values', () => {
    expect(
      parseUsersQuery(new URLSearchParams('page=-2&pageSize=7&status=gone&sortBy=password&sortOrder=up')),
    ).toEqual(defaultUsersQuery);
  });
});

describe('status actions', () => {
  const user = { isOwner: false, lockedUntil: null };
  it('follow the status, and an automatic lock-out counts as locked', () => {
    expect(statusActions({ ...user, status: 'enabled' }, false)).toEqual(['disable', 'lock']);
    expect(statusActions({ ...user, status: 'disabled' }, false)).toEqual(['enable']);
    expect(statusActions({ ...user, status: 'locked' }, false)).toEqual(['unlock', 'disable']);
    const now = Date.parse('2026-01-01T00:00:00Z');
    const lockedOut = { ...user, status: 'enabled' as const, lockedUntil: '2026-01-01T00:10:00Z' };
    expect(statusActions(lockedOut, false, now)).toEqual(['unlock', 'disable']);
    expect(statusActions(lockedOut, false, now + 3_600_000)).toEqual(['disable', 'lock']);
  });

  it('are none for the owner and for oneself', () => {
    expect(statusActions({ isOwner: true, lockedUntil: null, status: 'enabled' }, false)).toEqual([]);
    expect(statusActions({ ...user, status: 'enabled' }, true)).toEqual([]);
  });
});
