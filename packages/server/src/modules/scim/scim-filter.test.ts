import { Kysely, PostgresDialect } from 'kysely';
import { describe, expect, it } from 'vitest';
import { matches, parseFilter, parsePatchPath } from './scim-filter.ts';
import { userFilterSql } from './scim-filter-sql.ts';
import { applyPatch, readPatch } from './scim-patch.ts';

/** Issue 31: the SCIM filter and PATCH path parser, its bounds, and what runs in SQL. */

describe('filter parser', () => {
  it('reads RFC 7644 §3.4.2.2 filters with "and" binding tighter than "or"', () => {
    expect(parseFilter('userName eq "bjensen"')).toEqual({
      op: 'eq',
      path: { attr: 'userName' },
      value: 'bjensen',
    });
    expect(parseFilter('title pr or userType eq "Employee" and active eq true')).toEqual({
      op: 'or',
      left: { op: 'pr', path: { attr: 'title' } },
      right: {
        op: 'and',
        left: { op: 'eq', path: { attr: 'userType' }, value: 'Employee' },
        right: { op: 'eq', path: { attr: 'active' }, value: true },
      },
    });
    expect(parseFilter('urn:ietf:params:scim:schemas:core:2.0:User:name.familyName co "O\'Malley"')).toEqual({
      op: 'co',
      path: { schema: 'urn:ietf:params:scim:schemas:core:2.0:User', attr: 'name', sub: 'familyName' },
      value: "O'Malley",
    });
    expect(parseFilter('emails[type eq "work" and value co "@example.com"] or ims[type eq "xmpp"]').op).toBe(
      'or',
    );
    expect(parseFilter('NOT (userName EQ "x")')).toMatchObject({ op: 'not', filter: { op: 'eq' } });
    expect(parseFilter('meta.lastModified gt "2011-05-13T04:42:34Z"')).toMatchObject({
      op: 'gt',
      path: { attr: 'meta', sub: 'lastModified' },
    });
    expect(parseFilter('userName eq "quote \\" inside"')).toMatchObject({ value: 'quote " inside' });
  });

  it('refuses malformed, too long, too deep and too many terms', () => {
    for (const bad of [
      '',
      'userName',
      'userName eq',
      'userName like "x"',
      'userName eq "x',
      '(userName pr',
      'userName pr)',
      'emails[type eq "work"',
      'a.b.c eq 1',
      '1abc eq 2',
    ]) {
      expect(() => parseFilter(bad), bad).toThrow(expect.objectContaining({ reason: 'scim.invalid_filter' }));
    }
    expect(() => parseFilter(`userName eq "${'x'.repeat(3000)}"`)).toThrow(
      expect.objectContaining({ params: { why: 'too long' } }),
    );
    expect(() => parseFilter(`${'('.repeat(9)}userName pr${')'.repeat(9)}`)).toThrow(
      expect.objectContaining({ params: { why: 'nested too deeply' } }),
    );
    expect(() => parseFilter(Array.from({ length: 70 }, () => 'a pr').join(' or '))).toThrow(
      expect.objectContaining({ params: { why: 'too many terms' } }),
    );
  });

  it('matches resources case-insensitively (but ids exactly), multi-valued attributes by any value', () => {
    const user = {
      id: 'AbC',
      userName: 'BJensen',
      emails: [
        { value: 'bj@work.example', type: 'work' },
        { value: 'bj@home.example', type: 'home' },
      ],
      meta: { created: '2024-01-02T03:04:05.000Z' },
      active: false,
    };
    expect(matches(user, parseFilter('username eq "bjensen"'))).toBe(true);
    expect(matches(user, parseFilter('id eq "abc"'))).toBe(false);
    expect(matches(user, parseFilter('emails co "home.example"'))).toBe(true);
    expect(matches(user, parseFilter('emails[type eq "work"].value ew "work.example"'))).toBe(true);
    expect(matches(user, parseFilter('emails[type eq "work" and value ew "home.example"]'))).toBe(false);
    expect(matches(user, parseFilter('meta.created gt "2023-12-31T23:00:00+08:00"'))).toBe(true);
    expect(matches(user, parseFilter('meta.created lt "2024-01-02T03:04:05Z"'))).toBe(false);
    expect(matches(user, parseFilter('active eq false and not (title pr)'))).toBe(true);
  });
});

describe('filters in SQL', () => {
  const db = new Kysely<Record<string, never>>({ dialect: new PostgresDialect({ pool: {} as never }) });
  const compiled = (filter: string) => {
    const where = userFilterSql(parseFilter(filter));
    return where ? where.compile(db) : undefined;
  };

  it('compiles column attributes; userName eq is the expression of the username index', () => {
    // accounts_username_key is an index on lower(username): the lookup must say exactly that.
    expect(compiled('userName eq "Bob"')).toMatchObject({
      sql: 'lower(a.username) = $1',
      parameters: ['bob'],
    });
    expect(compiled('userName sw "a_b%" and active eq true')?.sql).toBe(
      "(lower(a.username) like $1 and (m.status = 'enabled') = $2)",
    );
    expect(compiled('userName sw "a_b%"')?.parameters).toEqual(['a\\_b\\%%']);
    expect(compiled('meta.created ge "2024-01-01T00:00:00Z"')?.parameters).toEqual([
      new Date('2024-01-01T00:00:00Z'),
    ]);
    expect(compiled('not (externalId pr)')?.sql).toBe('not coalesce(s.external_id is not null, false)');
  });

  it('leaves the rest to the evaluator (value filters, extension attributes, booleans compared by order)', () => {
    expect(compiled('emails[type eq "work"]')).toBeUndefined();
    expect(compiled('title eq "x"')).toBeUndefined();
    expect(
      compiled(
        'userName eq "x" or urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department eq "x"',
      ),
    ).toBeUndefined();
    expect(compiled('active gt true')).toBeUndefined();
  });
});

describe('PATCH', () => {
  const shape = {
    isMulti: (n: string) => ['emails', 'members'].includes(n),
    canonical: (n: string) => n,
    readOnly: new Set(['id']),
  };
  const patch = (doc: Record<string, unknown>, ...operations: unknown[]) =>
    applyPatch(
      doc,
      readPatch({ schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'], Operations: operations }),
      shape,
    );

  it('reads paths with value filters and sub-attributes', () => {
    expect(parsePatchPath('emails[type eq "work"].value')).toMatchObject({
      path: { attr: 'emails' },
      filter: { op: 'eq' },
      sub: 'value',
    });
    expect(parsePatchPath('urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:manager')).toEqual({
      path: { schema: 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User', attr: 'manager' },
    });
    expect(() => parsePatchPath('emails[type eq "work"].value.more')).toThrow();
  });

  it('adds, replaces and removes with and without paths', () => {
    const doc = { id: '1', emails: [{ value: 'a@x', type: 'work' }], name: { givenName: 'A' } };
    expect(
      patch(doc, { op: 'add', path: 'emails', value: [{ value: 'b@x', type: 'home' }] }).emails,
    ).toHaveLength(2);
    expect(patch(doc, { op: 'replace', path: 'emails', value: [{ value: 'c@x' }] }).emails).toEqual([
      { value: 'c@x' },
    ]);
    expect(patch(doc, { op: 'remove', path: 'emails[type eq "work"]' }).emails).toEqual([]);
    expect(patch(doc, { op: 'Replace', value: { 'name.familyName': 'B', nickName: 'N' } })).toMatchObject({
      name: { givenName: 'A', familyName: 'B' },
      nickName: 'N',
    });
    expect(patch(doc, { op: 'add', value: { name: { familyName: 'B' } } }).name).toEqual({
      givenName: 'A',
      familyName: 'B',
    });
    expect(() => patch(doc, { op: 'replace', path: 'id', value: '2' })).toThrow(
      expect.objectContaining({ scimType: 'mutability' }),
    );
    expect(() => patch(doc, { op: 'remove' })).toThrow(expect.objectContaining({ scimType: 'noTarget' }));
    expect(() => patch(doc, { op: 'move', path: 'x' })).toThrow(
      expect.objectContaining({ scimType: 'invalidSyntax' }),
    );
    expect(() => readPatch({ Operations: [] })).toThrow(
      expect.objectContaining({ scimType: 'invalidSyntax' }),
    );
    // The original is untouched.
    expect(doc.emails).toEqual([{ value: 'a@x', type: 'work' }]);
  });
});
