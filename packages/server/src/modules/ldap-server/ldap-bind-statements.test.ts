import { Client } from 'ldapts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, companyMember, ownerWithCompany, startTestApp, type TestContext } from '../../test/harness.ts';

/**
 * What an LDAP bind costs the database (issue 32's bind figure, issue 34's CPU per request). A
 * service account's bind: one statement (the company, the application and its LDAP settings
 * together). A person's bind: that statement, the sign-in pipeline's attempt, the application's
 * access rule, the company's second-factor rule (its settings and the person's role), and the
 * pipeline's outcome with the login event: six, of which one writes; the same whether or not the
 * service account bound the connection first.
 */

let ctx: TestContext;
let statements: string[] | undefined;
let url: string;
let personDn: string;
let password: string;
let app: { bindDn: string; secret: string };

beforeAll(async () => {
  ctx = await startTestApp({
    ldap: {},
    jobs: { run: false },
    queryLog: (event) => statements?.push(event.query.sql.replace(/\s+/g, ' ')),
  });
  url = `ldap://127.0.0.1:${ctx.tessera.ldap?.port}`;
  const owner = await ownerWithCompany(ctx, 'ldap-statements-owner', 'Statements Co');
  const company = { token: owner.token, companyId: owner.companyId };
  const created = await call<{ app: { appId: string } }>(
    ctx,
    '/api/v1/manage/app/create',
    { name: 'Jenkins', protocol: 'ldap' },
    company,
  );
  const { appId } = created.data.app;
  app = (await call<typeof app>(ctx, '/api/v1/manage/app/ldap/secret/rotate', { appId }, company)).data;
  await call(ctx, '/api/v1/manage/app/status', { appId, status: 'opened' }, company);
  const member = await companyMember(ctx, owner, 'statements.person');
  const code = await ctx.database.db
    .selectFrom('companies')
    .select('code')
    .where('id', '=', owner.companyId)
    .executeTakeFirstOrThrow();
  personDn = `uid=${member.username},ou=people,dc=${code.code},dc=tessera`;
  password = member.password;
});
afterAll(() => ctx?.close());

/** The statements one bind runs on a new connection (after the service account's bind when `after` is given). */
async function statementsOf(dn: string, secret: string, after?: { dn: string; secret: string }) {
  const client = new Client({ url });
  try {
    if (after) await client.bind(after.dn, after.secret);
    statements = [];
    await client.bind(dn, secret);
    return statements;
  } finally {
    statements = undefined;
    await client.unbind();
  }
}

const writes = (ran: string[]) => ran.filter((s) => /\b(insert|update|delete)\b/i.test(s));

describe('statements of an LDAP bind', () => {
  it("are one for an application's service account", async () => {
    const ran = await statementsOf(app.bindDn, app.secret);
    expect(ran).toHaveLength(1);
    expect(ran[0]).toMatch(/from "companies" as "co" left join "apps" as "a".* left join "app_ldap_configs"/);
  });

  it('are six for a person, one of them a write, with or without the service bind first', async () => {
    for (const after of [undefined, { dn: app.bindDn, secret: app.secret }, undefined]) {
      const ran = await statementsOf(personDn, password, after);
      expect(ran, ran.join('\n')).toHaveLength(6);
      expect(ran[0]).toMatch(/from "companies" as "co"/);
      expect(writes(ran)).toHaveLength(1);
      expect(writes(ran)[0]).toContain('insert into "login_events"');
    }
  });
});
