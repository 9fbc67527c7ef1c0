import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSealer } from '../../lib/crypto.ts';
import { base32Decode, generateTotp } from '../../lib/otp/totp.ts';
import { newKey, openKeyFile } from '../../lib/pki/signing-helper.ts';
import { absolute, csrfOf, decodeEntities } from '../../test/browser-flow.ts';
import { accountRow, companyMember, ownerWithCompany, type TestContext } from '../../test/harness.ts';
import {
  authorization,
  CookieJar,
  claimsOf,
  go,
  openedApp,
  redeem,
  signInOnPage,
  startWithCompany,
  type TestApp,
} from '../../test/oidc-flow.ts';
import { passkeyFormOf, SoftAuthenticator } from '../../test/soft-authenticator.ts';
import { ACR_MULTI_FACTOR } from '../oidc/authentication-context.ts';
import { saveSafetyPart } from '../safety/safety.repo.ts';
import { createFido2Service } from './fido2.service.ts';
import { bindTypesOf } from './mfa.portal.routes.ts';
import { createMfaService } from './mfa.service.ts';
import { requirementOfPolicies } from './mfa-requirement.ts';

/**
 * A company whose MFA policy is required and allows passkeys or keys only (UKEY, soft lock): a
 * person without a factor binds one of those at sign-in, with proof of possession, instead of an
 * authenticator app the company did not allow; that proof is the second factor of the sign-in.
 */

let ctx: TestContext;
let owner: Awaited<ReturnType<typeof ownerWithCompany>>;
let app: TestApp;
const lockout = { maxFailures: 5, lockMinutes: 15 };

beforeAll(async () => {
  ({ ctx, owner } = await startWithCompany('keybind-owner', 'Bound Keys'));
  app = await openedApp(ctx, owner);
  await saveSafetyPart(ctx.database.db, owner.companyId, 'mfa', {
    mode: 'required',
    types: ['ukey_pubkey'],
    lockout,
  });
});
afterAll(() => ctx.close());

let serial = 0;
const member = (company = owner) => {
  serial += 1;
  return companyMember(ctx, company, `keybind-user-${serial}`);
};

type Page = { url: string; status: number; html: string };
const challengeOf = (html: string) =>
  decodeEntities(/name="challenge" value="([^"]+)"/.exec(html)?.[1] ?? '');

/**
 * A fresh browser (in `lang`, when given) signs in to `to` with the password (the authorization
 * request with `params` besides its own): the page after it.
 */
async function signIn(
  user: { username: string; password: string },
  lang?: string,
  to = app,
  params: Record<string, string> = {},
) {
  const jar = new CookieJar();
  if (lang) jar.cookies.set('lang', lang);
  const auth = authorization(ctx.baseUrl, to.clientId, params);
  const first = await go(jar, auth.url);
  expect(first.page?.html).toContain('name="identifier"');
  const landing = await signInOnPage(jar, first.page as Page, user);
  expect(landing.page, String(landing.callback)).toBeDefined();
  return { jar, auth, page: landing.page as Page };
}

/** Posts the key binding form of `page` with `fields` and follows. */
const postKey = (jar: CookieJar, page: Page, fields: Record<string, string>, step = 'bind_factor') =>
  go(jar, `${page.url.split('?')[0]?.replace(/\/step\/.*$/, '')}/step/${step}`, undefined, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ csrf: csrfOf(page.html), ...fields }).toString(),
  });

/** Posts the key binding form of `page` with the challenge it shows, signed by `signer`. */
const postSigned = (
  jar: CookieJar,
  page: Page,
  signer: { sign(text: string): string },
  fields: Record<string, string>,
) => {
  const challenge = challengeOf(page.html);
  return postKey(jar, page, { ...fields, challenge, signature: signer.sign(challenge) });
};

/** Follows "I have saved them" on the recovery codes page. */
const continueAfterCodes = (jar: CookieJar, page: Page) => {
  const href = /href="([^"]+)">I have saved them/.exec(page.html)?.[1] ?? '';
  return go(jar, absolute(page.url, href));
};

const factorsOf = (accountId: string) =>
  ctx.database.db
    .selectFrom('mfa_factors')
    .select(['type', 'status', 'key_algorithm', 'name'])
    .where('account_id', '=', accountId)
    .execute();

const recoveryCodesOf = async (accountId: string) =>
  (
    await ctx.database.db
      .selectFrom('mfa_recovery_codes')
      .select('code_hash')
      .where('account_id', '=', accountId)
      .execute()
  ).length;

describe('binding a key at sign-in when the policy allows keys only', () => {
  it('shows the key binding page, refuses a wrong signature storing nothing, binds the key, shows recovery codes and completes the authorization with hwk', async () => {
    const user = await member();
    const made = await newKey('ecc', 'P-256');
    const key = await openKeyFile(Buffer.from(made.privateKeyPem));
    const stranger = await openKeyFile(Buffer.from((await newKey('ecc', 'P-256')).privateKeyPem));
    const { jar, auth, page } = await signIn(user);

    // The key binding page, not an authenticator's QR code.
    expect(page.html).toContain('Bind a key');
    expect(page.html).toContain(`Your organisation asks ${user.username} for a key`);
    expect(page.html).toContain('UKEY (public key)');
    expect(page.html).toContain('name="publicKey"');
    expect(page.html).not.toContain('Set up two-step verification');
    expect(page.html).not.toContain('data:image/svg');
    expect(page.html).toContain('/abort');
    const challenge = challengeOf(page.html);
    expect(challenge).toMatch(/^tessera-ukey:v1:[A-Za-z0-9_-]{43}$/);

    // Without the CSRF token: refused, nothing stored.
    const forged = await go(jar, `${page.url.split('?')[0]}/step/bind_factor`, undefined, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        type: 'ukey_pubkey',
        publicKey: made.publicKeyPem,
        challenge,
        signature: key.sign(challenge),
      }).toString(),
    });
    expect(forged.page?.status).toBe(403);
    expect(await factorsOf(user.id)).toEqual([]);

    // Another key's signature: refused with the reason, the public key kept, nothing stored.
    const wrong = await postKey(jar, page, {
      type: 'ukey_pubkey',
      publicKey: made.publicKeyPem,
      challenge,
      signature: stranger.sign(challenge),
    });
    expect(wrong.page?.status).toBe(400);
    expect(wrong.page?.html).toContain('The signature was not accepted');
    expect(wrong.page?.html).toContain('-----BEGIN PUBLIC KEY-----');
    expect(await factorsOf(user.id)).toEqual([]);

    // The right key over the spent challenge (a replay): refused.
    const replayed = await postKey(jar, wrong.page as Page, {
      type: 'ukey_pubkey',
      publicKey: made.publicKeyPem,
      challenge,
      signature: key.sign(challenge),
    });
    expect(replayed.page?.status).toBe(400);
    expect(replayed.page?.html).toContain('The signature was not accepted');

    // No public key, and a kind the policy does not allow: refused, nothing stored.
    const missing = await postSigned(jar, replayed.page as Page, key, {
      type: 'ukey_pubkey',
    });
    expect(missing.page?.html).toContain('Please paste the public key (PEM)');
    const disallowed = await postSigned(jar, missing.page as Page, key, {
      type: 'soft_lock',
      keyId: made.containerId,
      publicKey: made.publicKeyPem,
    });
    expect(disallowed.page?.status).toBe(400);
    expect(await factorsOf(user.id)).toEqual([]);
    expect(await recoveryCodesOf(user.id)).toBe(0);

    // The key and its signature of the challenge shown: bound, with the recovery codes once.
    const current = disallowed.page as Page;
    const bound = await postSigned(jar, current, key, {
      type: 'ukey_pubkey',
      name: 'Desk key',
      publicKey: made.publicKeyPem,
    });
    expect(bound.page?.html).toContain('Save your recovery codes');
    expect(bound.page?.html.match(/<li><code>/g)).toHaveLength(10);
    expect(await factorsOf(user.id)).toEqual([
      { type: 'ukey_pubkey', status: 'bound', key_algorithm: 'ecc', name: 'Desk key' },
    ]);
    expect(await recoveryCodesOf(user.id)).toBe(10);

    // Continue: no second-factor page (the signature proved the key), a code at the redirect URI.
    const landed = await continueAfterCodes(jar, bound.page as Page);
    expect(landed.callback?.searchParams.get('code'), landed.page?.html.slice(0, 300)).toBeTruthy();
    const tokens = await redeem(ctx.baseUrl, app, auth, landed);
    const claims = claimsOf(tokens.id_token);
    expect(claims.amr).toEqual(expect.arrayContaining(['pwd', 'hwk', 'mfa']));
    expect(claims.amr).not.toContain('otp');

    // The next sign-in asks for the key, and no authenticator was ever created.
    const again = await signIn(user);
    expect(again.page.html).toContain('Sign in with a key');
    expect(again.page.html).not.toContain('Bind a key');
    expect((await factorsOf(user.id)).map((f) => f.type)).toEqual(['ukey_pubkey']);
  });

  it('speaks Chinese: the page and its refusals', async () => {
    const user = await member();
    const made = await newKey('sm2');
    const key = await openKeyFile(Buffer.from(made.privateKeyPem));
    const stranger = await openKeyFile(Buffer.from((await newKey('sm2')).privateKeyPem));
    const { jar, page } = await signIn(user, 'zh');
    expect(page.html).toContain('绑定密钥');
    expect(page.html).toContain(`您的组织要求 ${user.username} 使用密钥作为第二因素`);
    expect(page.html).toContain('UKEY（公钥）');
    const wrong = await postSigned(jar, page, stranger, {
      type: 'ukey_pubkey',
      publicKey: made.publicKeyPem,
    });
    expect(wrong.page?.status).toBe(400);
    expect(wrong.page?.html).toContain('签名未通过');
    const invalid = await postSigned(jar, wrong.page as Page, key, {
      type: 'ukey_pubkey',
      publicKey: 'not a key',
    });
    expect(invalid.page?.html).toContain('公钥必须是 PEM 格式');
    expect(await factorsOf(user.id)).toEqual([]);
  });
});

describe('a factor bound before the company chose keys only', () => {
  it('a passkey keeps proving the person: asked for at sign-in, no key binding with the password alone', async () => {
    const user = await member();
    const mfa = createMfaService({ db: ctx.database.db, sealer: createSealer(ctx.masterKey) });
    const fido2 = createFido2Service({ db: ctx.database.db, mfa, publicUrl: ctx.baseUrl });
    const origin = new URL(ctx.baseUrl).origin;
    const account = await accountRow(ctx, user.id);
    const authenticator = new SoftAuthenticator();
    const options = await fido2.registrationOptions(account, `portal:${user.id}`);
    expect(
      await fido2.finishRegistration(
        account,
        `portal:${user.id}`,
        authenticator.create(options, origin),
        null,
      ),
    ).toBeTruthy();

    const { jar, auth, page } = await signIn(user);
    expect(page.html).not.toContain('Bind a key');
    const form = passkeyFormOf(page.html);
    expect(form.mode).toBe('get');
    expect(form.action).toMatch(/\/step\/second_factor$/);
    const landed = await postKey(
      jar,
      page,
      { csrf: form.csrf, credential: JSON.stringify(authenticator.get(form.options, origin)) },
      'second_factor',
    );
    expect(landed.callback?.searchParams.get('code'), landed.page?.html.slice(0, 300)).toBeTruthy();
    const claims = claimsOf((await redeem(ctx.baseUrl, app, auth, landed)).id_token);
    expect(claims.amr).toEqual(expect.arrayContaining(['pwd', 'hwk', 'mfa']));
    expect((await factorsOf(user.id)).map((f) => f.type)).toEqual(['fido2']);
  });
});

describe('binding a passkey at sign-in when the policy allows passkeys only', () => {
  let passkeyApp: TestApp;
  let company: Awaited<ReturnType<typeof ownerWithCompany>>;
  const origin = () => new URL(ctx.baseUrl).origin;
  beforeAll(async () => {
    company = await ownerWithCompany(ctx, 'passkey-bind-owner', 'Passkeys Only');
    await saveSafetyPart(ctx.database.db, company.companyId, 'mfa', {
      mode: 'required',
      types: ['fido2'],
      lockout,
    });
    passkeyApp = await openedApp(ctx, company);
  });
  /** Posts the passkey form of `page` with the browser's answer `credential`, and follows. */
  const postPasskey = (
    jar: CookieJar,
    page: Page,
    credential: unknown,
    csrf = passkeyFormOf(page.html).csrf,
  ) => postKey(jar, page, { csrf, credential: JSON.stringify(credential) });

  it('creates a passkey for the challenge of the interaction, refuses other answers storing nothing, and completes with hwk', async () => {
    const user = await member(company);
    const { jar, auth, page } = await signIn(user, undefined, passkeyApp);
    // The passkey page of the sign-in, not an authenticator's QR code.
    expect(page.html).toContain('Add a passkey');
    expect(page.html).toContain(`Your organisation asks ${user.username} for a passkey`);
    expect(page.html).not.toContain('data:image/svg');
    expect(page.html).not.toContain('Set up two-step verification');
    expect(page.html).toContain('/abort');
    expect(page.html).not.toContain('<nav class="tabs"');
    const form = passkeyFormOf(page.html);
    expect(form.mode).toBe('create');
    expect(form.action).toMatch(/\/step\/bind_factor$/);
    expect(form.options.user.name).toBe(user.username);
    const authenticator = new SoftAuthenticator();

    // Without the CSRF token: refused, nothing stored.
    const forged = await postPasskey(jar, page, authenticator.create(form.options, origin()), 'forged');
    expect(forged.page?.status).toBe(403);
    // Made for another origin: refused with the reason, nothing stored; the challenge is spent.
    const elsewhere = await postPasskey(
      jar,
      page,
      authenticator.create(form.options, 'https://evil.example'),
    );
    expect(elsewhere.page?.status).toBe(400);
    expect(elsewhere.page?.html).toContain('The passkey was not accepted');
    const replay = await postPasskey(
      jar,
      elsewhere.page as Page,
      authenticator.create(form.options, origin()),
    );
    expect(replay.page?.status).toBe(400);
    // A challenge of the user centre (another subject) does not bind here.
    const portalOptions = await createFido2Service({
      db: ctx.database.db,
      mfa: createMfaService({ db: ctx.database.db, sealer: createSealer(ctx.masterKey) }),
      publicUrl: ctx.baseUrl,
    }).registrationOptions({ id: user.id, username: user.username, display_name: null }, 'portal:other');
    const crossed = await postPasskey(
      jar,
      replay.page as Page,
      authenticator.create(portalOptions, origin()),
    );
    expect(crossed.page?.status).toBe(400);
    // Not JSON at all.
    const garbage = await postKey(jar, crossed.page as Page, {
      csrf: passkeyFormOf((crossed.page as Page).html).csrf,
      credential: '{not json',
    });
    expect(garbage.page?.status).toBe(400);
    expect(await factorsOf(user.id)).toEqual([]);
    expect(await recoveryCodesOf(user.id)).toBe(0);

    // The answer to the page's own challenge: bound, with the recovery codes once.
    const current = garbage.page as Page;
    const bound = await postPasskey(
      jar,
      current,
      authenticator.create(passkeyFormOf(current.html).options, origin()),
    );
    expect(bound.page?.html).toContain('Save your recovery codes');
    expect(await factorsOf(user.id)).toEqual([
      { type: 'fido2', status: 'bound', key_algorithm: null, name: 'Passkey' },
    ]);
    expect(await recoveryCodesOf(user.id)).toBe(10);
    const landed = await continueAfterCodes(jar, bound.page as Page);
    expect(landed.callback?.searchParams.get('code'), landed.page?.html.slice(0, 300)).toBeTruthy();
    const claims = claimsOf((await redeem(ctx.baseUrl, passkeyApp, auth, landed)).id_token);
    expect(claims.amr).toEqual(expect.arrayContaining(['pwd', 'hwk', 'mfa']));
    expect(claims.amr).not.toContain('otp');

    // The next sign-in asks for that passkey, and no authenticator was ever created.
    const again = await signIn(user, undefined, passkeyApp);
    expect(again.page.html).toContain('Two-step verification');
    expect(passkeyFormOf(again.page.html).mode).toBe('get');
    expect((await factorsOf(user.id)).map((f) => f.type)).toEqual(['fido2']);
  });

  it('keeps asking for an authenticator app bound before the policy changed; the user centre offers passkeys only', async () => {
    const user = await member(company);
    const mfa = createMfaService({ db: ctx.database.db, sealer: createSealer(ctx.masterKey) });
    const account = await accountRow(ctx, user.id);
    // The user centre offers no authenticator app for a company that allows passkeys only.
    expect(await bindTypesOf(mfa, account)).toEqual(['fido2']);
    // One bound before (under another policy) still proves the person: the password alone does
    // not let anyone add a passkey to an account that has a factor.
    const binding = await mfa.startBinding(account, 'otp');
    const code = generateTotp(base32Decode(binding.secret), Date.now());
    expect(await mfa.confirmBinding(account, binding.factorId, code, null)).toBeTruthy();
    const { page } = await signIn(user, undefined, passkeyApp);
    expect(page.html).toContain('Two-step verification');
    expect(page.html).toContain('name="code"');
    expect(page.html).not.toContain('Add a passkey');
  });

  it('speaks Chinese', async () => {
    const { page } = await signIn(await member(company), 'zh', passkeyApp);
    expect(page.html).toContain('添加通行密钥');
    expect(page.html).toContain('使用通行密钥作为第二因素');
    expect(page.html).toContain('创建通行密钥');
  });
});

describe('the kinds of the policy', () => {
  it('offers each allowed kind, a passkey first; a soft lock is bound with its id and signs in with swk', async () => {
    const company = await ownerWithCompany(ctx, 'keybind-soft', 'Soft Locks');
    await saveSafetyPart(ctx.database.db, company.companyId, 'mfa', {
      mode: 'required',
      types: ['fido2', 'ukey_keyid', 'soft_lock'],
      lockout,
    });
    const user = await member(company);
    const made = await newKey('rsa', '2048');
    const key = await openKeyFile(Buffer.from(made.privateKeyPem));
    const softApp = await openedApp(ctx, company);
    const { jar, auth, page } = await signIn(user, undefined, softApp);
    // The passkey first, and a link to each key kind.
    expect(page.html).toContain('Add a passkey');
    expect(passkeyFormOf(page.html).mode).toBe('create');
    expect(page.html).toMatch(/href="[^"]+\?kind=ukey_keyid"/);
    const softHref = /href="([^"]+\?kind=soft_lock)"/.exec(page.html)?.[1] ?? '';
    expect(softHref).toContain('?kind=soft_lock');
    const soft = await go(jar, absolute(page.url, decodeEntities(softHref)));
    const softPage = soft.page as Page;
    expect(softPage.html).toContain('Soft lock ID');
    expect(softPage.html).toContain('name="type" value="soft_lock"');
    const bound = await postSigned(jar, softPage, key, {
      type: 'soft_lock',
      keyId: made.containerId,
      publicKey: made.publicKeyPem,
    });
    expect(bound.page?.html).toContain('Save your recovery codes');
    const landed = await continueAfterCodes(jar, bound.page as Page);
    const claims = claimsOf((await redeem(ctx.baseUrl, softApp, auth, landed)).id_token);
    expect(claims.amr).toEqual(expect.arrayContaining(['pwd', 'swk', 'mfa']));
    expect((await factorsOf(user.id)).map((f) => f.type)).toEqual(['soft_lock']);
  });

  it('binds a key when the policy is optional, allows keys only, and the application asks for MFA', async () => {
    const company = await ownerWithCompany(ctx, 'keybind-optional', 'Optional Keys');
    await saveSafetyPart(ctx.database.db, company.companyId, 'mfa', {
      mode: 'optional',
      types: ['ukey_pubkey'],
      lockout,
    });
    const user = await member(company);
    const optionalApp = await openedApp(ctx, company);
    // Without acr_values: optional, no step, straight to the application.
    const plainJar = new CookieJar();
    const first = await go(plainJar, authorization(ctx.baseUrl, optionalApp.clientId).url);
    const plain = await signInOnPage(plainJar, first.page as Page, user);
    expect(plain.callback?.searchParams.get('code')).toBeTruthy();
    const made = await newKey('ecc', 'P-256');
    const key = await openKeyFile(Buffer.from(made.privateKeyPem));
    const { jar, auth, page } = await signIn(user, undefined, optionalApp, { acr_values: ACR_MULTI_FACTOR });
    expect(page.html).toContain('Bind a key');
    expect(page.html).not.toContain('data:image/svg');
    const bound = await postSigned(jar, page, key, {
      type: 'ukey_pubkey',
      publicKey: made.publicKeyPem,
    });
    const landed = await continueAfterCodes(jar, bound.page as Page);
    const claims = claimsOf((await redeem(ctx.baseUrl, optionalApp, auth, landed)).id_token);
    expect(claims.amr).toEqual(expect.arrayContaining(['pwd', 'hwk', 'mfa']));
    expect(claims.acr).toBe(ACR_MULTI_FACTOR);
    expect((await factorsOf(user.id)).map((f) => f.type)).toEqual(['ukey_pubkey']);
  });

  it('keeps the authenticator binding when the policy allows a code kind too', async () => {
    for (const types of [
      ['otp', 'ukey_pubkey'],
      ['otp_sm3', 'fido2'],
    ] as const) {
      const company = await ownerWithCompany(ctx, `keybind-${types.join('-')}`, `Codes ${types.join(' ')}`);
      await saveSafetyPart(ctx.database.db, company.companyId, 'mfa', {
        mode: 'required',
        types: [...types],
        lockout,
      });
      const { page } = await signIn(await member(company), undefined, await openedApp(ctx, company));
      expect(page.html, types.join()).toContain('Set up two-step verification');
      expect(page.html, types.join()).toContain('data:image/svg');
      expect(page.html, types.join()).not.toContain('Bind a key');
      expect(page.html, types.join()).not.toContain('Add a passkey');
    }
  });

  it('names OTP standing in only when no requiring company allows a code kind', () => {
    const policy = (types: string[], mode = 'required') =>
      ({ role: 'member', mfa: { mode, types, lockout } }) as Parameters<typeof requirementOfPolicies>[0][0];
    expect(requirementOfPolicies([policy(['ukey_cert'])])).toMatchObject({
      types: ['otp', 'otp_sm3'],
      signature: ['ukey_cert'],
      otpStandsIn: true,
    });
    expect(requirementOfPolicies([policy(['ukey_cert']), policy(['otp_sm3'])])).not.toHaveProperty(
      'otpStandsIn',
    );
    expect(requirementOfPolicies([policy(['otp', 'soft_lock'])])).not.toHaveProperty('otpStandsIn');
  });
});
