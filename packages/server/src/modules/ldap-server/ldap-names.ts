import { type LdapDn, wire } from './ldap-wire.ts';

/**
 * The names of the directory: `dc=<company code>,<suffix>` per company, with `ou=people`
 * (`uid=<username>`), `ou=groups` (`cn=<department or role id>`) and `ou=apps` (`cn=<app id>`,
 * the service accounts of LDAP applications).
 */

export type Named =
  | { kind: 'root' }
  | { kind: 'subschema' }
  | { kind: 'suffix' }
  | { kind: 'outside' }
  | { kind: 'base'; code: string }
  | { kind: 'people' | 'groups' | 'apps'; code: string }
  | { kind: 'person'; code: string; username: string }
  | { kind: 'group'; code: string; id: string }
  | { kind: 'app'; code: string; id: string }
  | { kind: 'unknown'; code: string };

type Rdn = [name: string, value: string];

/** One RDN's attribute and value, the attribute in lower case; null for a multi-valued RDN. */
function rdnOf(dn: LdapDn, index: number): Rdn | null {
  const rdn = dn.rdnAt(index);
  if (rdn.size !== 1) return null;
  const [name] = [...rdn.keys()];
  const value = name === undefined ? undefined : rdn.getValue(name);
  return name === undefined || typeof value !== 'string' ? null : [name.toLowerCase(), value];
}

const same = (a: Rdn | null, name: string, value?: string) =>
  a !== null && a[0] === name && (value === undefined || a[1].toLowerCase() === value);

/** RFC 4514 escaping of an attribute value in a DN. */
export function escapeDnValue(value: string): string {
  return value
    .replace(/[\\,+"<>;=]/g, (c) => `\\${c}`)
    .replace(/^[ #]/, (c) => `\\${c}`)
    .replace(/ $/, '\\ ')
    .replace(/\0/g, '\\00');
}

export function createLdapNames(suffixText: string) {
  const suffixDn = wire.parseDn(suffixText);
  const suffix: Rdn[] = [];
  for (let i = 0; i < suffixDn.length; i++) {
    const rdn = rdnOf(suffixDn, i);
    if (!rdn) throw new Error(`TESSERA_LDAP_SUFFIX must be a DN of single-valued RDNs (got "${suffixText}")`);
    suffix.push([rdn[0], rdn[1].toLowerCase()]);
  }
  const suffixString = suffix.map(([n, v]) => `${n}=${escapeDnValue(v)}`).join(',');

  const base = (code: string) => `dc=${code},${suffixString}`;
  const names = {
    suffix: suffixString,
    base,
    people: (code: string) => `ou=people,${base(code)}`,
    groups: (code: string) => `ou=groups,${base(code)}`,
    apps: (code: string) => `ou=apps,${base(code)}`,
    person: (code: string, username: string) => `uid=${escapeDnValue(username)},ou=people,${base(code)}`,
    group: (code: string, id: string) => `cn=${escapeDnValue(id)},ou=groups,${base(code)}`,
    app: (code: string, id: string) => `cn=${escapeDnValue(id)},ou=apps,${base(code)}`,
  };

  /** What a DN names; a DN that does not parse is null. */
  function classifyDn(dn: LdapDn): Named {
    if (dn.length === 0) return { kind: 'root' };
    const rdns: (Rdn | null)[] = [];
    for (let i = 0; i < dn.length; i++) rdns.push(rdnOf(dn, i));
    if (rdns.length === 1 && same(rdns[0] ?? null, 'cn', 'subschema')) return { kind: 'subschema' };
    // The suffix is the DN's last RDNs (a DN lists its RDNs from the entry up).
    const offset = rdns.length - suffix.length;
    if (offset < 0) return { kind: 'outside' };
    for (let i = 0; i < suffix.length; i++) {
      const want = suffix[i] as Rdn;
      if (!same(rdns[offset + i] ?? null, want[0], want[1])) return { kind: 'outside' };
    }
    if (offset === 0) return { kind: 'suffix' };
    const company = rdns[offset - 1] ?? null;
    if (company?.[0] !== 'dc') return { kind: 'outside' };
    const code = company[1].toLowerCase();
    const below = rdns.slice(0, offset - 1);
    if (below.length === 0) return { kind: 'base', code };
    const unit = below[below.length - 1] ?? null;
    const area = (['people', 'groups', 'apps'] as const).find((ou) => same(unit, 'ou', ou));
    if (!area) return { kind: 'unknown', code };
    if (below.length === 1) return { kind: area, code };
    const leaf = below[0] ?? null;
    if (below.length !== 2 || !leaf) return { kind: 'unknown', code };
    if (area === 'people' && leaf[0] === 'uid') return { kind: 'person', code, username: leaf[1] };
    if (area === 'groups' && leaf[0] === 'cn') return { kind: 'group', code, id: leaf[1].toLowerCase() };
    if (area === 'apps' && leaf[0] === 'cn') return { kind: 'app', code, id: leaf[1].toLowerCase() };
    return { kind: 'unknown', code };
  }

  /** classifyDn of a DN string; null when it is not a DN. */
  function classify(text: string): Named | null {
    try {
      return classifyDn(wire.parseDn(text));
    } catch {
      return null;
    }
  }

  return { names, classify, classifyDn };
}

export type LdapNames = ReturnType<typeof createLdapNames>;
