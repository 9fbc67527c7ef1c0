import fc from 'fast-check';
import { type AndFilter, type EqualityFilter, FilterParser } from 'ldapts';
import { describe, expect, it } from 'vitest';
import {
  bytesFromGuid,
  escapeDnValue,
  escapeFilterValue,
  guidFromBytes,
  uniqueIdFilter,
  userDnFromTemplate,
} from './ldap-escape.ts';

/** RFC 4515 (filters) and RFC 4514 (DNs) escaping, and Active Directory's GUID form (issue 14). */
describe('escaping of values put into filters and DNs', () => {
  it('escapes every filter special character, so that injections stay values', () => {
    expect(escapeFilterValue('*')).toBe('\\2a');
    expect(escapeFilterValue(')(uid=*')).toBe('\\29\\28uid=\\2a');
    expect(escapeFilterValue('\\')).toBe('\\5c');
    expect(escapeFilterValue('a\u0000b')).toBe('a\\00b');
    expect(escapeFilterValue('张三')).toBe('张三');
  });

  it('gives, for any string, a filter that parses to one equality on exactly that value', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (value) => {
        const filter = FilterParser.parseString(`(uid=${escapeFilterValue(value)})`) as unknown as {
          attribute: string;
          value: string | Buffer;
        };
        expect(filter.attribute).toBe('uid');
        expect(Buffer.from(filter.value as string).equals(Buffer.from(value))).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('escapes DN values so a username cannot add an RDN or leave its place', () => {
    expect(escapeDnValue('a,ou=admins')).toBe('a\\,ou=admins');
    expect(escapeDnValue('+"<>;')).toBe('\\+\\"\\<\\>\\;');
    expect(escapeDnValue(' lead')).toBe('\\ lead');
    expect(escapeDnValue('#hash')).toBe('\\#hash');
    expect(escapeDnValue('trail ')).toBe('trail\\ ');
    expect(userDnFromTemplate('uid={username},ou=people,dc=example,dc=com', 'x,dc=evil')).toBe(
      'uid=x\\,dc=evil,ou=people,dc=example,dc=com',
    );
  });

  it("reads objectGUID bytes in Active Directory's string form and back", () => {
    const bytes = Buffer.from('6b2f0c1e9a4d4c3b8e21000000000001', 'hex');
    const guid = guidFromBytes(bytes);
    expect(guid).toBe('1e0c2f6b-4d9a-3b4c-8e21-000000000001');
    expect(bytesFromGuid(guid)?.equals(bytes)).toBe(true);
    // The assertion carries the bytes themselves (0x9a, 0x8e stay one byte each on the wire).
    const [, byGuid] = (uniqueIdFilter('(objectClass=user)', 'objectGUID', guid) as AndFilter).filters;
    expect((byGuid as EqualityFilter).value).toEqual(bytes);
    expect(uniqueIdFilter('(objectClass=user)', 'objectGUID', 'not-a-guid')).toBeUndefined();
    const [, byUuid] = (uniqueIdFilter('(objectClass=person)', 'entryUUID', 'a*b') as AndFilter).filters;
    expect((byUuid as EqualityFilter).value).toBe('a*b');
  });
});
