import { describe, expect, it } from 'vitest';
import type { DirectoryPerson } from './snapshot.ts';
import { planSync } from './sync-plan.ts';
import { ownsSignInName, type SyncState } from './sync-state.ts';

/**
 * Directory sync and usernames with an `@` (issue 31): people sign in with a username or an
 * email alike, so an entry whose username is someone's email (or whose email is someone's
 * username), in the company, outside it or elsewhere in the directory, is a conflict.
 */

const state: SyncState = {
  rootDepartmentId: null,
  departments: new Map(),
  sourceDepartments: new Map(),
  otherSourceDepartments: new Set(),
  memberCounts: new Map(),
  links: new Map(),
};

const entry = (externalId: string, username: string, email: string | null = null): DirectoryPerson => ({
  externalId,
  username,
  name: null,
  email,
  phone: null,
  dn: null,
  departmentExternalIds: [],
  disabled: false,
});

describe('sign-in names in a directory sync plan', () => {
  it('counts a username that is an email, and an email that is a username, as taken', () => {
    const plan = planSync({
      snapshot: {
        departments: [],
        skipped: [],
        people: [
          entry('1', 'ann@corp.example'),
          entry('2', 'ben', 'BEN.USER@corp.example'),
          entry('3', 'cy@corp.example'),
          entry('4', 'dee', 'cy@corp.example'),
          entry('5', 'eve@corp.example', 'eve@corp.example'),
        ],
      },
      state,
      owners: [
        { id: 'a1', username: 'ann', email: 'ann@corp.example', phone: null, inCompany: true },
        { id: 'a2', username: 'ben.user@corp.example', email: null, phone: null, inCompany: false },
      ],
    });
    expect(plan.rows.conflict.map((row) => [row.externalId, row.note?.key])).toEqual([
      ['1', 'taken_in_company'],
      ['4', 'duplicate_in_directory'],
    ]);
    expect([...plan.elsewhere.keys()]).toEqual(['2']);
    expect(plan.people.create.map((p) => p.externalId)).toEqual(['3', '5']);
  });

  it('matches either name of an owner, whatever the case', () => {
    const owner = { username: 'Fay@corp.example', email: 'fay.mail@corp.example' };
    expect(ownsSignInName(owner, 'fay@CORP.example')).toBe(true);
    expect(ownsSignInName(owner, 'FAY.MAIL@corp.example')).toBe(true);
    expect(ownsSignInName(owner, 'fay')).toBe(false);
    expect(ownsSignInName(owner, null)).toBe(false);
  });
});
