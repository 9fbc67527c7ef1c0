import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSealer } from '../../lib/crypto.ts';
import { generateSm3Otp } from '../../lib/otp/sm3-otp.ts';
import { base32Decode, generateTotp } from '../../lib/otp/totp.ts';
import { absolute, browse, csrfOf, postForm, signInToPortal } from '../../test/browser-flow.ts';
import {
  accountRow,
  call,
  companyMember,
  ownerWithCompany,
  sessionFor,
  startTestApp,
  type TestContext,
} from '../../test/harness.ts';
import { saveSafetyPart } from '../safety/safety.repo.ts';
import { createMfaService, type MfaService } from './mfa.service.ts';

let ctx: TestContext;
let owner: Awaited<ReturnType<typeof ownerWithCompany>>;
let other: Awaited<ReturnType<typeof ownerWithCompany>>;
/** The service on the app's database with a clock the test moves. */
let clock = Date.UTC(2026, 0, 1, 12, 0, 0);
let mfa: MfaService;
const lockout = { maxFailures: 5, lockMinutes: 15 };
const otpOnly = { types: ['otp', 'otp_sm3'] as ('otp' | 'otp_sm3')[], lockout };
const event = { ip: '127.0.0.1', userAgent: 'vitest', clientId: null };

beforeAll(async () => {
  ctx = await startTestApp({ listen: true });
  owner = await ownerWithCompany(ctx, 'mfa-owner', 'Factor Works');
  other = await ownerWithCompany(ctx, 'other-owner', 'Other Works');
  mfa = createMfaService({ db: ctx.database.db, sealer: createSealer(ctx.masterKey), now: () => clock });
});
afterAll(() => ctx.close());

let serial = 0;
/** A user of the owner's company, with a password. */
const member = (company = owner) => {
  serial += 1;
  return companyMember(ctx, company, `mfa-user-${serial}`);
};
const accountOf = (id: string) => accountRow(ctx, id);

/** Binds an OTP factor at the test clock; returns its seed and recovery codes. */
async function bindOtp(accountId: string, type: 'otp' | 'otp_sm3' = 'otp') {
  const account = await accountOf(accountId);
  const binding = await mfa.startBinding(account, type);
  const seed = base32Decode(binding.secret);
  const code = type === 'otp' ? generateTotp(seed, clock) : generateSm3Otp(seed, clock);
  const confirmed = await mfa.confirmBinding(account, binding.factorId, code, null);
  if (!confirmed) throw new Error('binding not confirmed');
  return { account, binding, seed, recoveryCodes: confirmed.recoveryCodes };
}

describe('binding an OTP factor', () => {
  it('seals a new seed, shows a QR code, binds with a code and issues recovery codes once', async () => {
    const user = await member();
    const account = await accountOf(user.id);
    const binding = await mfa.startBinding(account, 'otp');
    expect(binding.otpauthUri).toMatch(
      /^otpauth:\/\/totp\/Tessera:mfa-user-\d+\?secret=[A-Z2-7]+&issuer=Tessera/,
    );
    expect(binding.qrCode.startsWith('data:image/svg+xml;base64,')).toBe(true);
    expect(Buffer.from(binding.qrCode.split(',')[1]!, 'base64').toString()).toContain('<svg');
    const stored = await ctx.database.db
      .selectFrom('mfa_factors')
      .selectAll()
      .where('id', '=', binding.factorId)
      .executeTakeFirstOrThrow();
    expect(stored.status).toBe('unbound');
    expect(stored.secret_sealed).not.toContain(binding.secret);

    const seed = base32Decode(binding.secret);
    expect(await mfa.confirmBinding(account, binding.factorId, '000000', null)).toBeNull();
    const confirmed = await mfa.confirmBinding(account, binding.factorId, generateTotp(seed, clock), null);
    expect(confirmed?.recoveryCodes).toHaveLength(10);
    const list = await mfa.listOwn(user.id);
    expect(list.recoveryCodesLeft).toBe(10);
    expect(list.list).toMatchObject([{ factorId: binding.factorId, type: 'otp', status: 'bound' }]);
    expect(list.list[0]?.boundAt).not.toBeNull();
    // Stored hashed only.
    const hashes = await ctx.database.db
      .selectFrom('mfa_recovery_codes')
      .select('code_hash')
      .where('account_id', '=', user.id)
      .execute();
    for (const code of confirmed?.recoveryCodes ?? [])
      expect(hashes.map((h) => h.code_hash)).not.toContain(code);

    // A second factor (national-secret OTP) comes without new recovery codes.
    const sm3 = await bindOtp(user.id, 'otp_sm3');
    expect(sm3.recoveryCodes).toBeNull();
    expect(sm3.binding.otpauthUri).toContain('algorithm=SM3');
    expect((await mfa.listOwn(user.id)).list.map((f) => f.type).sort()).toEqual(['otp', 'otp_sm3']);
  });
});

describe('second factor at sign-in', () => {
  it('accepts a code once, within one step either side', async () => {
    const user = await member();
    const { account, binding, seed } = await bindOtp(user.id);
    clock += 300_000;
    const verify = (atMs: number) =>
      mfa.verifySecondFactor(
        account,
        { factorId: binding.factorId, code: generateTotp(seed, atMs) },
        otpOnly,
        event,
      );
    expect(await verify(clock - 30_000)).toEqual({ ok: true, via: 'otp' });
    // Replayed: the same code again, and any older one.
    expect(await verify(clock - 30_000)).toMatchObject({ ok: false, cause: 'mfa_failed' });
    expect(await verify(clock)).toEqual({ ok: true, via: 'otp' });
    expect(await verify(clock)).toMatchObject({ ok: false, cause: 'mfa_failed' });
    expect(await verify(clock + 30_000)).toEqual({ ok: true, via: 'otp' });
    clock += 300_000;
    expect(await verify(clock + 60_000)).toMatchObject({ ok: false, cause: 'mfa_failed' });
    expect(await verify(clock - 60_000)).toMatchObject({ ok: false, cause: 'mfa_failed' });
    // A good code clears the count.
    expect(await verify(clock)).toEqual({ ok: true, via: 'otp' });
    expect((await accountOf(user.id)).mfa_failed_count).toBe(0);
    const causes = await ctx.database.db
      .selectFrom('login_events')
      .select('failure_cause')
      .where('account_id', '=', user.id)
      .execute();
    expect(causes.map((c) => c.failure_cause)).toEqual([
      'mfa_failed',
      'mfa_failed',
      'mfa_failed',
      'mfa_failed',
    ]);
  });

  it('verifies national-secret OTP codes and refuses a factor kind the policy does not allow', async () => {
    const user = await member();
    const { account, binding, seed } = await bindOtp(user.id, 'otp_sm3');
    clock += 300_000;
    const code = generateSm3Otp(seed, clock);
    const otpOnlyPolicy = { types: ['otp' as const], lockout };
    expect(
      await mfa.verifySecondFactor(account, { factorId: binding.factorId, code }, otpOnlyPolicy, event),
    ).toMatchObject({
      ok: false,
    });
    expect(
      await mfa.verifySecondFactor(account, { factorId: binding.factorId, code }, otpOnly, event),
    ).toEqual({
      ok: true,
      via: 'otp',
    });
  });

  it('locks after the allowed wrong codes, then refuses even a right code', async () => {
    const user = await member();
    const { account, binding, seed } = await bindOtp(user.id);
    clock += 300_000;
    const policy = { types: otpOnly.types, lockout: { maxFailures: 3, lockMinutes: 10 } };
    const wrong = () =>
      mfa.verifySecondFactor(account, { factorId: binding.factorId, code: '000000' }, policy, event);
    expect(await wrong()).toMatchObject({ cause: 'mfa_failed' });
    expect(await wrong()).toMatchObject({ cause: 'mfa_failed' });
    const third = await wrong();
    expect(third).toMatchObject({ cause: 'mfa_locked' });
    expect(third.ok === false && third.lockedUntil && third.lockedUntil.getTime() > Date.now()).toBe(true);
    const right = await mfa.verifySecondFactor(
      account,
      { factorId: binding.factorId, code: generateTotp(seed, clock) },
      policy,
      event,
    );
    expect(right).toMatchObject({ ok: false, cause: 'mfa_locked' });
    expect((await accountOf(user.id)).mfa_failed_count).toBe(3);
  });

  it('holds the limit under 50 parallel wrong codes: locks once, never counts more', async () => {
    const user = await member();
    const { account, binding } = await bindOtp(user.id);
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        mfa.verifySecondFactor(
          account,
          { factorId: binding.factorId, code: String(100000 + i) },
          otpOnly,
          event,
        ),
      ),
    );
    const failed = results.filter((r) => !r.ok && r.cause === 'mfa_failed').length;
    const locked = results.filter((r) => !r.ok && r.cause === 'mfa_locked').length;
    expect(results.every((r) => !r.ok)).toBe(true);
    expect(failed).toBe(lockout.maxFailures - 1);
    expect(locked).toBe(50 - failed);
    const stored = await accountOf(user.id);
    expect(stored.mfa_failed_count).toBe(lockout.maxFailures);
    expect(stored.mfa_locked_until).not.toBeNull();
  });

  it('takes each recovery code once', async () => {
    const user = await member();
    const { account, recoveryCodes } = await bindOtp(user.id);
    const [first, second] = recoveryCodes ?? [];
    expect(await mfa.verifySecondFactor(account, { recoveryCode: first }, otpOnly, event)).toEqual({
      ok: true,
      via: 'recovery_code',
    });
    expect(await mfa.verifySecondFactor(account, { recoveryCode: first }, otpOnly, event)).toMatchObject({
      ok: false,
      cause: 'mfa_failed',
    });
    // As people type it: upper case, without the hyphen.
    expect(
      await mfa.verifySecondFactor(
        account,
        { recoveryCode: second!.replace('-', '').toUpperCase() },
        otpOnly,
        event,
      ),
    ).toMatchObject({ ok: true });
    expect((await mfa.listOwn(user.id)).recoveryCodesLeft).toBe(8);
  });
});

describe('admin calls', () => {
  it("lists a user's factors and unbinds them, ending the user's sessions", async () => {
    const user = await member();
    await bindOtp(user.id);
    const second = await bindOtp(user.id, 'otp_sm3');
    const userToken = await sessionFor(ctx, user.id);
    const selfCheck = () => call(ctx, '/api/v1/manage/company/my/list', {}, { token: userToken });
    expect((await selfCheck()).code).toBe(200);

    const listed = await call<{ list: { factorId: string; type: string }[]; recoveryCodesLeft: number }>(
      ctx,
      '/api/v1/manage/mfa/admin/user',
      { userId: user.id },
      { token: owner.token, companyId: owner.companyId },
    );
    expect(listed.code).toBe(200);
    expect(listed.data.list.map((f) => f.type)).toEqual(['otp', 'otp_sm3']);
    expect(listed.data.recoveryCodesLeft).toBe(10);

    const unknown = await call(
      ctx,
      '/api/v1/manage/mfa/admin/user/del',
      { userId: user.id, factorId: 'no-such-factor' },
      { token: owner.token, companyId: owner.companyId },
    );
    expect(unknown).toMatchObject({ code: 404, data: { reason: 'mfa.factor_not_found' } });
    expect((await selfCheck()).code).toBe(200);

    const one = await call(
      ctx,
      '/api/v1/manage/mfa/admin/user/del',
      { userId: user.id, factorId: second.binding.factorId },
      { token: owner.token, companyId: owner.companyId },
    );
    expect(one).toMatchObject({ code: 200, data: { removed: 1 } });
    expect((await selfCheck()).code).toBe(401);
    expect((await mfa.listOwn(user.id)).recoveryCodesLeft).toBe(10);

    const all = await call(
      ctx,
      '/api/v1/manage/mfa/admin/user/del',
      { userId: user.id },
      { token: owner.token, companyId: owner.companyId },
    );
    expect(all).toMatchObject({ code: 200, data: { removed: 1 } });
    expect(await mfa.listOwn(user.id)).toEqual({ list: [], recoveryCodesLeft: 0 });
    const audit = await ctx.database.db
      .selectFrom('audit_events')
      .select(['action', 'company_id'])
      .where('target_id', '=', user.id)
      .where('action', '=', 'mfa.unbind')
      .execute();
    expect(audit).toEqual([
      { action: 'mfa.unbind', company_id: owner.companyId },
      { action: 'mfa.unbind', company_id: owner.companyId },
    ]);
  });

  it("answers not found for a user of another company and leaves the user's factors", async () => {
    const user = await member();
    const { binding } = await bindOtp(user.id);
    for (const path of ['/api/v1/manage/mfa/admin/user', '/api/v1/manage/mfa/admin/user/del']) {
      const answer = await call(
        ctx,
        path,
        { userId: user.id },
        { token: other.token, companyId: other.companyId },
      );
      expect(answer).toMatchObject({ code: 404, data: { reason: 'user.not_found' } });
    }
    expect((await mfa.listOwn(user.id)).list.map((f) => f.factorId)).toEqual([binding.factorId]);
  });
});

describe('sign-in with MFA required', () => {
  it('binds a factor at the first sign-in and asks for a code at the next', async () => {
    const policyOwner = await ownerWithCompany(ctx, 'strict-owner', 'Strict Works');
    await saveSafetyPart(ctx.database.db, policyOwner.companyId, 'mfa', {
      mode: 'required',
      types: ['otp', 'otp_sm3'],
      lockout: { maxFailures: 5, lockMinutes: 15 },
    });
    const user = await member(policyOwner);

    // First sign-in: the binding page, with the QR code and the key.
    const first = await signInToPortal(ctx.baseUrl, user.username, user.password);
    expect(first.page.html).toContain('Set up two-step verification');
    expect(first.page.html).toContain('src="data:image/svg+xml;base64,');
    const secret = /data-secret="([A-Z2-7]+)"/.exec(first.page.html)![1]!;
    const factorId = /name="factorId" value="([^"]+)"/.exec(first.page.html)![1]!;
    const csrf = csrfOf(first.page.html);
    const action = `${first.interactionUrl}/step/bind_factor`;

    // Going around the step does not finish the sign-in.
    const around = await browse(first.jar, first.interactionUrl);
    expect(around.html).toContain('Set up two-step verification');
    // The reloaded page shows the same key.
    expect(around.html).toContain(`data-secret="${secret}"`);

    const wrong = await postForm(first.jar, action, { csrf, factorId, code: '000000' });
    expect(wrong.response.status).toBe(400);
    expect(wrong.html).toContain('incorrect');
    const seed = base32Decode(secret);
    const bound = await postForm(first.jar, action, { csrf, factorId, code: generateTotp(seed, Date.now()) });
    expect(bound.response.status).toBe(200);
    expect(bound.html).toContain('Save your recovery codes');
    const codes = [...bound.html.matchAll(/<li><code>([a-z0-9-]+)<\/code><\/li>/g)].map((m) => m[1]);
    expect(codes).toHaveLength(10);
    const continueHref = /href="([^"]+)">I have saved them/.exec(bound.html)![1]!;
    const landed = await browse(first.jar, absolute(first.interactionUrl, continueHref));
    expect(landed.url).toBe(`${ctx.baseUrl}/portal/account`);

    // Next sign-in: the code page; a wrong code is refused, a new one lets the person in.
    // Resuming the authorization without the code does not reach the application.
    const sneaky = await signInToPortal(ctx.baseUrl, user.username, user.password);
    expect(sneaky.page.html).toContain('Two-step verification');
    const uid = /\/interaction\/([^/?]+)/.exec(sneaky.interactionUrl)![1]!;
    const resumed = await browse(sneaky.jar, `${ctx.baseUrl}/oidc/auth/${uid}`);
    expect(resumed.url).not.toContain('/portal/callback');
    expect(resumed.html).not.toContain('My account');

    const next = await signInToPortal(ctx.baseUrl, user.username, user.password);
    expect(next.page.html).toContain('Two-step verification');
    const nextCsrf = csrfOf(next.page.html);
    const nextAction = `${next.interactionUrl}/step/second_factor`;
    const refused = await postForm(next.jar, nextAction, { csrf: nextCsrf, factorId, code: '000000' });
    expect(refused.response.status).toBe(400);
    expect(refused.html).toContain('incorrect');
    const passed = await postForm(next.jar, nextAction, {
      csrf: nextCsrf,
      factorId,
      code: generateTotp(seed, Date.now() + 30_000),
    });
    expect(passed.url).toBe(`${ctx.baseUrl}/portal/account`);

    // A recovery code works once as well.
    const third = await signInToPortal(ctx.baseUrl, user.username, user.password);
    const withRecovery = await postForm(third.jar, `${third.interactionUrl}/step/second_factor`, {
      csrf: csrfOf(third.page.html),
      recoveryCode: codes[0]!,
    });
    expect(withRecovery.url).toBe(`${ctx.baseUrl}/portal/account`);
  });

  it('does not ask when MFA is off, and asks a person who bound a factor when it is optional', async () => {
    const user = await member();
    const plain = await signInToPortal(ctx.baseUrl, user.username, user.password);
    expect(plain.page.url).toBe(`${ctx.baseUrl}/portal/account`);
    await bindOtp(user.id);
    await saveSafetyPart(ctx.database.db, owner.companyId, 'mfa', {
      mode: 'optional',
      types: ['otp'],
      lockout,
    });
    const asked = await signInToPortal(ctx.baseUrl, user.username, user.password);
    expect(asked.page.html).toContain('Two-step verification');
    const bare = await member();
    expect((await signInToPortal(ctx.baseUrl, bare.username, bare.password)).page.url).toBe(
      `${ctx.baseUrl}/portal/account`,
    );
  });

  it('with mode admins, takes an administrator through binding and lets a member in', async () => {
    const adminsOwner = await ownerWithCompany(ctx, 'admins-owner', 'Admins Works');
    await saveSafetyPart(ctx.database.db, adminsOwner.companyId, 'mfa', {
      mode: 'admins',
      types: ['otp'],
      lockout,
    });
    const plain = await member(adminsOwner);
    expect((await signInToPortal(ctx.baseUrl, plain.username, plain.password)).page.url).toBe(
      `${ctx.baseUrl}/portal/account`,
    );
    const admin = await member(adminsOwner);
    await ctx.database.db
      .updateTable('company_members')
      .set({ role: 'admin' })
      .where('account_id', '=', admin.id)
      .execute();
    expect((await signInToPortal(ctx.baseUrl, admin.username, admin.password)).page.html).toContain(
      'Set up two-step verification',
    );
  });
});

describe('user centre', () => {
  it('binds and unbinds my own authenticator', async () => {
    const user = await member(other);
    const { jar, page } = await signInToPortal(ctx.baseUrl, user.username, user.password);
    expect(page.url).toBe(`${ctx.baseUrl}/portal/account`);
    const sectionOf = (html: string) => /<section id="mfa">[\s\S]*?<\/section>/.exec(html)?.[0] ?? '';
    expect(sectionOf(page.html)).toContain('No authenticator is bound.');
    const csrf = csrfOf(sectionOf(page.html));

    const forged = await postForm(jar, `${ctx.baseUrl}/portal/account/mfa/bind`, {
      csrf: 'forged',
      type: 'otp',
    });
    expect(forged.response.status).toBe(403);

    const bindPage = await postForm(jar, `${ctx.baseUrl}/portal/account/mfa/bind`, { csrf, type: 'otp' });
    expect(bindPage.html).toContain('src="data:image/svg+xml;base64,');
    const secret = /data-secret="([A-Z2-7]+)"/.exec(bindPage.html)![1]!;
    const factorId = /name="factorId" value="([^"]+)"/.exec(bindPage.html)![1]!;
    const wrong = await postForm(jar, `${ctx.baseUrl}/portal/account/mfa/confirm`, {
      csrf,
      factorId,
      code: '000000',
    });
    expect(wrong.response.status).toBe(400);
    expect(wrong.html).toContain(`data-secret="${secret}"`);
    const done = await postForm(jar, `${ctx.baseUrl}/portal/account/mfa/confirm`, {
      csrf,
      factorId,
      code: generateTotp(base32Decode(secret), Date.now()),
    });
    expect(done.html).toContain('Save your recovery codes');
    const account = await browse(jar, `${ctx.baseUrl}/portal/account`);
    expect(sectionOf(account.html)).toContain('Authenticator app (OTP)');
    expect(sectionOf(account.html)).toContain('Recovery codes left: 10');

    const unbound = await postForm(jar, `${ctx.baseUrl}/portal/account/mfa/unbind`, { csrf, factorId });
    expect(unbound.url).toBe(`${ctx.baseUrl}/portal/account`);
    expect(sectionOf(unbound.html)).toContain('No authenticator is bound.');
    expect(await mfa.listOwn(user.id)).toEqual({ list: [], recoveryCodesLeft: 0 });
  });
});
