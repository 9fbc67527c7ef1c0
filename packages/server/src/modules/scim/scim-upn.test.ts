import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  companyMember,
  grantLicense,
  ownerWithCompany,
  startTestApp,
  type TestContext,
} from '../../test/harness.ts';
import { dnsOf, hasLdapUtils, ldapTool } from '../../test/ldap-utils.ts';
import {
  authorization,
  claimsOf,
  go,
  openedApp,
  redeem,
  signInFresh,
  type TestApp,
} from '../../test/oidc-flow.ts';
import { usernameFromLogin } from '../identity-source/scan/contacts.ts';
import { findTakenIdentifiers } from '../user-import/import.repo.ts';
import { assertScimError, createToken, ENTERPRISE, PATCH_OP, scimClient, USER } from './scim-test-client.ts';

/**
 * Usernames with an `@` (issue 31): Microsoft Entra ID's default mapping sends the user
 * principal name as the userName and Okta's the email. Such a person signs in with it (OIDC, the
 * LDAP directory); no username may be another person's email nor the reverse, wherever people
 * are written; and a userName renamed over SCIM keeps the person, their session and their
 * directory entry.
 */

let ctx: TestContext;
let owner: Awaited<ReturnType<typeof ownerWithCompany>>;
let scim: ReturnType<typeof scimClient>;
let app: TestApp;
let code: string;
const PASSWORD = 'Sunny-Day-42';
let ldapUrl = '';
const personDn = (username: string) => `uid=${username},ou=people,dc=${code},dc=tessera`;
const whoami = (dn: string) => ldapTool('ldapwhoami', ['-x', '-H', ldapUrl, '-D', dn, '-w', PASSWORD]);

beforeAll(async () => {
  ctx = await startTestApp({ listen: true, ldap: {} });
  await grantLicense(ctx, { app: 10 });
  owner = await ownerWithCompany(ctx, 'upn-owner', 'Contoso');
  scim = scimClient(ctx, owner.companyId, (await createToken(ctx, owner, 'Entra ID')).secret);
  await call(ctx, '/api/v1/manage/company/scim/settings/update', { allowPasswords: true }, owner);
  app = await openedApp(ctx, owner);
  code = (
    await ctx.database.db
      .selectFrom('companies')
      .select('code')
      .where('id', '=', owner.companyId)
      .executeTakeFirstOrThrow()
  ).code;
});
afterAll(() => ctx.close());

const accountsCount = async () =>
  Number(
    (
      await ctx.database.db
        .selectFrom('accounts')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

/** Entra ID's documented Create User body, with its default mapping: userName is the UPN. */
const entraUser = (upn: string, mail: string | null = null) => ({
  schemas: [USER, ENTERPRISE],
  externalId: `ext-${upn}`,
  userName: upn,
  active: true,
  ...(mail ? { emails: [{ primary: true, type: 'work', value: mail }] } : {}),
  meta: { resourceType: 'User' },
  name: { formatted: 'Alice Wu', familyName: 'Wu', givenName: 'Alice' },
  roles: [],
  password: PASSWORD,
});

async function signsIn(identifier: string) {
  const { jar, auth, landing } = await signInFresh(ctx.baseUrl, app.clientId, {
    username: identifier,
    password: PASSWORD,
  });
  const tokens = landing.callback ? await redeem(ctx.baseUrl, app, auth, landing) : {};
  return { jar, tokens };
}

describe('usernames with an @', () => {
  let aliceId: string;
  let jar: Awaited<ReturnType<typeof signsIn>>['jar'];

  it('takes the user principal name Entra ID sends as the userName, and the person signs in with it', async () => {
    const answer = await scim(
      'POST',
      '/Users',
      entraUser('alice.wu@contoso.com', 'alice.wu@mail.contoso.com'),
    );
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    expect(answer.body.userName).toBe('alice.wu@contoso.com');
    aliceId = answer.body.id as string;
    const signedIn = await signsIn('Alice.Wu@contoso.com');
    expect(signedIn.tokens.id_token, 'an ID token').toBeTruthy();
    expect(claimsOf(signedIn.tokens.id_token).sub).toBeTruthy();
    jar = signedIn.jar;
  });

  it('binds and searches the LDAP directory as uid=<upn>', { skip: !hasLdapUtils }, async () => {
    const rotated = await call<{ bindDn: string; baseDn: string; secret: string }>(
      ctx,
      '/api/v1/manage/app/create',
      { name: 'Jenkins', protocol: 'ldap' },
      owner,
    );
    expect(rotated.code, rotated.msg).toBe(200);
    const appId = (rotated.data as unknown as { app: { appId: string } }).app.appId;
    const secret = await call<{ bindDn: string; baseDn: string; secret: string }>(
      ctx,
      '/api/v1/manage/app/ldap/secret/rotate',
      { appId },
      owner,
    );
    await call(ctx, '/api/v1/manage/app/status', { appId, status: 'opened' }, owner);
    ldapUrl = `ldap://127.0.0.1:${ctx.tessera.ldap?.port}`;
    const url = ldapUrl;
    const dn = personDn('alice.wu@contoso.com');
    const found = await ldapTool('ldapsearch', [
      ...['-x', '-LLL', '-H', url, '-D', secret.data.bindDn, '-w', secret.data.secret],
      ...['-b', secret.data.baseDn, '(uid=alice.wu@contoso.com)', 'uid'],
    ]);
    expect(found.status, found.stderr).toBe(0);
    expect(dnsOf(found.stdout)).toEqual([dn]);
    const me = await whoami(dn);
    expect(me.status, me.stderr).toBe(0);
    expect(me.stdout.trim()).toBe(`dn:${dn}`);
  });

  it('refuses a username that is another person’s email, and the reverse, storing nothing', async () => {
    await companyMember(ctx, owner, 'bob.local');
    const bob = await call(
      ctx,
      '/api/v1/manage/user/create',
      {
        username: 'bob.mail',
        password: PASSWORD,
        confirmPassword: PASSWORD,
        email: 'bob@contoso.com',
        mustChangePassword: false,
      },
      owner,
    );
    expect(bob.code, bob.msg).toBe(200);
    const before = await accountsCount();
    // SCIM: the UPN is Bob's email.
    const asUsername = await scim('POST', '/Users', entraUser('BOB@contoso.com'));
    assertScimError(asUsername, 409, 'uniqueness');
    expect(asUsername.body.detail).toBe(
      "This username is another person's email address: people sign in with either, so it cannot be used",
    );
    // SCIM: the email is Alice's username.
    const asEmail = await scim('POST', '/Users', entraUser('carol@contoso.com', 'alice.wu@contoso.com'));
    assertScimError(asEmail, 409, 'uniqueness');
    // The console, in Chinese and English.
    const consoleZh = await call(
      ctx,
      '/api/v1/manage/user/create',
      {
        username: 'bob@contoso.com',
        password: PASSWORD,
        confirmPassword: PASSWORD,
        mustChangePassword: false,
      },
      { ...owner, lang: 'zh-CN' },
    );
    expect(consoleZh.msg).toBe('该用户名是另一个人的邮箱：两者都可用于登录，因此不能使用');
    const consoleEn = await call(
      ctx,
      '/api/v1/manage/user/create',
      {
        username: 'dan',
        password: PASSWORD,
        confirmPassword: PASSWORD,
        email: 'ALICE.WU@contoso.com',
        mustChangePassword: false,
      },
      { ...owner, lang: 'en' },
    );
    expect(consoleEn.msg).toBe(
      "This email address is another person's username: people sign in with either, so it cannot be used",
    );
    // An edit of Bob's email to Alice's username.
    const edit = await call(
      ctx,
      '/api/v1/manage/user/update',
      { userId: bob.data.userId, email: 'alice.wu@contoso.com' },
      owner,
    );
    expect((edit.data as { reason?: string }).reason).toBe('user.email_is_username');
    // A rename over SCIM to Bob's email.
    const rename = await scim('PATCH', `/Users/${aliceId}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'Replace', path: 'userName', value: 'bob@contoso.com' }],
    });
    assertScimError(rename, 409, 'uniqueness');
    expect(await accountsCount()).toBe(before);
    const bobRow = await ctx.database.db
      .selectFrom('accounts')
      .select('email')
      .where('id', '=', bob.data.userId as string)
      .executeTakeFirstOrThrow();
    expect(bobRow.email).toBe('bob@contoso.com');
    // The import's check finds both directions; the database refuses what a check would miss.
    const taken = await findTakenIdentifiers(ctx.database.db, owner.companyId, {
      usernames: ['bob@contoso.com'],
      emails: ['alice.wu@contoso.com'],
      phones: [],
    });
    expect(taken.map((t) => [t.column, t.value, t.crossed]).sort()).toEqual([
      ['email', 'alice.wu@contoso.com', true],
      ['username', 'bob@contoso.com', true],
    ]);
    await expect(
      sql`update accounts set username = 'BOB@contoso.com' where id = ${aliceId}`.execute(ctx.database.db),
    ).rejects.toMatchObject({ code: '23505', constraint: 'accounts_username_is_email' });
    await expect(
      sql`update accounts set email = 'alice.wu@contoso.com' where id = ${bob.data.userId}`.execute(
        ctx.database.db,
      ),
    ).rejects.toMatchObject({ code: '23505', constraint: 'accounts_email_is_username' });
  });

  it('renames over SCIM: the old name no longer signs in, the new one does, the session carries on', async () => {
    const rename = await scim('PATCH', `/Users/${aliceId}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'Replace', path: 'userName', value: 'alice.chen@contoso.com' }],
    });
    expect(rename.status, JSON.stringify(rename.body)).toBe(200);
    expect(rename.body).toMatchObject({ id: aliceId, userName: 'alice.chen@contoso.com' });
    // The browser that signed in before the rename is still signed in: no sign-in page.
    const again = authorization(ctx.baseUrl, app.clientId);
    const landing = await go(jar, again.url);
    expect(landing.callback?.searchParams.get('code'), 'a code without signing in again').toBeTruthy();
    const fresh = await signsIn('alice.chen@contoso.com');
    expect(claimsOf(fresh.tokens.id_token).sub).toBeTruthy();
    const old = await signInFresh(ctx.baseUrl, app.clientId, {
      username: 'alice.wu@contoso.com',
      password: PASSWORD,
    });
    expect(old.landing.callback, 'no code for the old name').toBeUndefined();
    // The LDAP directory names the person by the new uid.
    if (hasLdapUtils && ldapUrl) {
      expect((await whoami(personDn('alice.chen@contoso.com'))).status).toBe(0);
      expect((await whoami(personDn('alice.wu@contoso.com'))).status).toBe(49);
    }
  });
});

describe('usernames derived from a login (directory sync, first sign-in through a source)', () => {
  it('keeps an address as it is and cleans anything else', () => {
    expect(usernameFromLogin('alice@contoso.com')).toBe('alice@contoso.com');
    expect(usernameFromLogin(' Bob Smith@Contoso.com ')).toBe('Bob-Smith@Contoso.com');
    expect(usernameFromLogin('a@b@contoso.com')).toBe('a-b@contoso.com');
    expect(usernameFromLogin('eve@')).toBe('eve-');
    expect(usernameFromLogin('_zhang.san')).toBe('zhang.san');
  });
});
