import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSealer } from '../../lib/crypto.ts';
import { newKey, openKeyFile } from '../../lib/pki/signing-helper.ts';
import {
  browse,
  type CookieJar,
  csrfOf,
  decodeEntities,
  postForm,
  signInToPortal,
} from '../../test/browser-flow.ts';
import {
  accountRow,
  call,
  companyMember,
  ownerWithCompany,
  sessionFor,
  startTestApp,
  type TestContext,
} from '../../test/harness.ts';
import { hasOpenssl, opensslWorkspace } from '../../test/openssl.ts';
import { saveSafetyPart } from '../safety/safety.repo.ts';
import { createMfaService } from './mfa.service.ts';
import { createSignatureFactors } from './signature-factors.service.ts';

/**
 * Issue 17, UKEY and soft-lock factors: keys of every algorithm of spec §5 bind in the user
 * centre (proof of possession) or by an administrator, and sign the single-use challenge of the
 * second-factor page; replayed, expired, foreign and forged signatures are refused, and so is a
 * certificate that is revoked or expired. openssl checks that the helper signs as the protocol says.
 */

let ctx: TestContext;
let owner: Awaited<ReturnType<typeof ownerWithCompany>>;
let other: Awaited<ReturnType<typeof ownerWithCompany>>;
const lockout = { maxFailures: 5, lockMinutes: 15 };
const allKeys = ['ukey_keyid', 'ukey_pubkey', 'ukey_cert', 'soft_lock'] as const;

beforeAll(async () => {
  ctx = await startTestApp({ listen: true });
  owner = await ownerWithCompany(ctx, 'ukey-owner', 'Key Works');
  other = await ownerWithCompany(ctx, 'ukey-other', 'Other Keys');
  // Optional: people without a factor come in with their password; whoever bound a key is asked for it.
  await saveSafetyPart(ctx.database.db, owner.companyId, 'mfa', {
    mode: 'optional',
    types: [...allKeys],
    lockout,
  });
});
afterAll(() => ctx.close());

let serial = 0;
const member = (company = owner) => {
  serial += 1;
  return companyMember(ctx, company, `ukey-user-${serial}`);
};
const admin = <T = Record<string, unknown>>(path: string, body: unknown, lang?: string, as = owner) =>
  call<T>(ctx, path, body, { token: as.token, companyId: as.companyId, lang });

type Page = Awaited<ReturnType<typeof browse>>;
const challengeOf = (html: string) =>
  decodeEntities(/name="challenge" value="([^"]+)"/.exec(html)?.[1] ?? '');
const factorIdOf = (html: string) => /name="signatureFactorId" value="([^"]+)"/.exec(html)?.[1];

/** Binds a key in the user centre: the kind chosen on the account page, then key and signature. */
async function bindInUserCentre(
  jar: CookieJar,
  account: Page,
  type: string,
  key: { publicKeyPem: string; sign(challenge: string): string; certificatePem?: string | null },
  keyId?: string,
) {
  const chosen = await postForm(jar, `${ctx.baseUrl}/portal/account/mfa/bind`, {
    csrf: csrfOf(account.html),
    type,
  });
  expect(chosen.url).toBe(`${ctx.baseUrl}/portal/account/mfa/key?type=${type}`);
  const challenge = challengeOf(chosen.html);
  expect(challenge).toMatch(/^tessera-ukey:v1:[A-Za-z0-9_-]{43}$/);
  return postForm(jar, `${ctx.baseUrl}/portal/account/mfa/key`, {
    csrf: csrfOf(chosen.html),
    type,
    name: `${type} key`,
    ...(keyId ? { keyId } : {}),
    ...(type === 'ukey_cert' ? { certificate: key.certificatePem ?? '' } : { publicKey: key.publicKeyPem }),
    challenge,
    signature: key.sign(challenge),
  });
}

/** Signs in to the user centre with a password, then answers the second-factor page with `sign`. */
async function signInWithKey(
  user: { username: string; password: string },
  sign: (challenge: string) => string,
) {
  const started = await signInToPortal(ctx.baseUrl, user.username, user.password);
  expect(started.page.html).toContain('Sign in with a key');
  const challenge = challengeOf(started.page.html);
  const form = {
    csrf: csrfOf(started.page.html),
    signatureFactorId: factorIdOf(started.page.html) ?? '',
    challenge,
    signature: sign(challenge),
  };
  const answered = await postForm(started.jar, `${started.interactionUrl}/step/second_factor`, form);
  return { ...started, answered, form };
}

describe.skipIf(!hasOpenssl)('the signing helper', () => {
  it('signs as the protocol says: openssl verifies RSA-PSS, ECDSA and SM2 (SM3, default id) signatures', async () => {
    const ws = await opensslWorkspace();
    try {
      const challenge = 'tessera-ukey:v1:openssl-check';
      await ws.file('challenge.txt', challenge);
      for (const [algorithm, strength] of [
        ['rsa', '2048'],
        ['ecc', 'P-384'],
        ['sm2', 'SMP256'],
      ] as const) {
        const made = await newKey(algorithm, strength);
        const key = await openKeyFile(Buffer.from(made.privateKeyPem));
        await ws.file(`${algorithm}.pub`, made.publicKeyPem);
        await ws.file(`${algorithm}.sig`, Buffer.from(key.sign(challenge), 'base64'));
        const options =
          algorithm === 'rsa'
            ? ['-digest', 'sha256', '-pkeyopt', 'rsa_padding_mode:pss', '-pkeyopt', 'rsa_pss_saltlen:32']
            : algorithm === 'ecc'
              ? ['-digest', 'sha384']
              : ['-digest', 'sm3', '-pkeyopt', 'distid:1234567812345678'];
        const verified = await ws.openssl(
          'pkeyutl',
          '-verify',
          '-pubin',
          '-inkey',
          `${algorithm}.pub`,
          '-rawin',
          '-in',
          'challenge.txt',
          '-sigfile',
          `${algorithm}.sig`,
          ...options,
        );
        expect(verified.output, algorithm).toContain('Signature Verified Successfully');
      }
    } finally {
      await ws.close();
    }
  });
});

describe('keys of every algorithm and strength of spec §5', () => {
  const strengths = [
    ['rsa', '2048'],
    ['rsa', '3072'],
    ['rsa', '4096'],
    ['ecc', 'P-256'],
    ['ecc', 'P-384'],
    ['ecc', 'P-521'],
    ['sm2', 'SMP256'],
  ] as const;

  /** Binds `input` with proof of possession, then answers a second-factor challenge once (and not twice). */
  async function bindAndAnswer(
    userId: string,
    input: { type: (typeof allKeys)[number]; keyId?: string; publicKey?: string; certificate?: string },
    key: { sign(challenge: string): string },
    label: string,
  ) {
    const signatures = createSignatureFactors({
      db: ctx.database.db,
      mfa: createMfaService({ db: ctx.database.db, sealer: createSealer(ctx.masterKey) }),
    });
    const account = await accountRow(ctx, userId);
    const bindChallenge = (await signatures.newChallenge(userId, 'bind', 'portal:matrix')).challenge;
    const bound = await signatures.bindOwn(
      account,
      { ...input, challenge: bindChallenge, signature: key.sign(bindChallenge) },
      'portal:matrix',
      null,
    );
    expect(bound, label).not.toBeNull();
    const challenge = (await signatures.newChallenge(userId, 'second_factor', 'interaction:matrix'))
      .challenge;
    const answer = { factorId: bound?.factorId, challenge, signature: key.sign(challenge) };
    expect(await signatures.check(account, answer, 'interaction:matrix', [input.type]), label).toEqual({
      ok: true,
      type: input.type,
    });
    // The same signature again: the challenge is spent.
    expect(await signatures.check(account, answer, 'interaction:matrix', [input.type]), label).toMatchObject({
      ok: false,
    });
    return bound?.factorId ?? '';
  }

  it('a UKEY by KeyId, a UKEY public key and a soft lock, each with a key of every strength', async () => {
    const user = await member();
    const keys = await Promise.all(strengths.map(([a, s]) => newKey(a, s)));
    for (const [index, made] of keys.entries()) {
      const key = await openKeyFile(Buffer.from(made.privateKeyPem));
      for (const type of ['ukey_keyid', 'ukey_pubkey', 'soft_lock'] as const) {
        const label = `${type} ${strengths[index]?.join(' ')}`;
        const keyId =
          type === 'ukey_pubkey' ? undefined : `${type === 'soft_lock' ? made.containerId : 'SN'}-${index}`;
        const factorId = await bindAndAnswer(
          user.id,
          { type, keyId, publicKey: made.publicKeyPem },
          key,
          label,
        );
        const stored = await ctx.database.db
          .selectFrom('mfa_factors')
          .select(['key_algorithm', 'key_strength', 'key_id'])
          .where('id', '=', factorId)
          .executeTakeFirstOrThrow();
        expect([stored.key_algorithm, stored.key_strength, stored.key_id], label).toEqual([
          ...(strengths[index] ?? []),
          keyId ?? null,
        ]);
      }
    }
  });

  it('a UKEY certificate of a CA of each algorithm, its key from the PKCS#12 the CA handed out', async () => {
    const user = await member();
    for (const algorithm of ['rsa', 'ecc', 'sm2'] as const) {
      const ca = await admin<{ caId: string }>('/api/v1/manage/ca/create', {
        name: `Matrix ${algorithm}`,
        algorithm,
        organization: 'Key Works',
      });
      expect(ca.code, ca.msg).toBe(200);
      const issued = await admin<{ pkcs12: string; pkcs12Password: string }>(
        '/api/v1/manage/ca/certificate/issue',
        { caId: ca.data.caId, userId: user.id },
      );
      expect(issued.code, issued.msg).toBe(200);
      const key = await openKeyFile(Buffer.from(issued.data.pkcs12, 'base64'), issued.data.pkcs12Password);
      expect(key.info.algorithm).toBe(algorithm);
      await bindAndAnswer(
        user.id,
        { type: 'ukey_cert', certificate: key.certificatePem ?? '' },
        key,
        algorithm,
      );
    }
  });
});

describe('the user centre and the sign-in page', () => {
  it('binds a UKEY by KeyId and public key (ECC), then signs in with it; a replay, another key and another interaction are refused', async () => {
    const user = await member();
    const made = await newKey('ecc', 'P-256');
    const key = await openKeyFile(Buffer.from(made.privateKeyPem));
    const { jar } = await signInToPortal(ctx.baseUrl, user.username, user.password);
    const account = await browse(jar, `${ctx.baseUrl}/portal/account`);
    expect(account.html).toContain('UKEY (KeyId)');

    // No KeyId: refused with the reason, nothing stored.
    const missing = await bindInUserCentre(jar, account, 'ukey_keyid', key);
    expect(missing.response.status).toBe(400);
    expect(missing.html).toContain('Please enter the KeyId of the key');
    // A signature of another key: refused.
    const stranger = await openKeyFile(Buffer.from((await newKey('ecc', 'P-256')).privateKeyPem));
    const forged = await bindInUserCentre(
      jar,
      account,
      'ukey_keyid',
      { ...key, sign: stranger.sign },
      'SN-0001',
    );
    expect(forged.response.status).toBe(400);
    expect(forged.html).toContain('The signature was not accepted');
    expect(await boundCount(user.id)).toBe(0);

    const bound = await bindInUserCentre(jar, account, 'ukey_keyid', key, 'SN-0001');
    expect(bound.html).toContain('Save your recovery codes');
    expect(await boundCount(user.id)).toBe(1);
    // The same key twice: refused.
    const again = await bindInUserCentre(
      jar,
      await browse(jar, `${ctx.baseUrl}/portal/account`),
      'ukey_keyid',
      key,
      'SN-0001',
    );
    expect(again.html).toContain('This key is already bound to this person');

    const signedIn = await signInWithKey(user, key.sign);
    expect(signedIn.answered.url).toBe(`${ctx.baseUrl}/portal/account`);
    // The same answer on a new sign-in: the challenge was spent.
    const replay = await signInToPortal(ctx.baseUrl, user.username, user.password);
    const replayed = await postForm(replay.jar, `${replay.interactionUrl}/step/second_factor`, {
      ...signedIn.form,
      csrf: csrfOf(replay.page.html),
    });
    expect(replayed.response.status).toBe(400);
    expect(replayed.html).toContain('The signature was not accepted');
    // Another key's signature of the right challenge: refused.
    const wrongKey = await signInWithKey(user, stranger.sign);
    expect(wrongKey.answered.response.status).toBe(400);
    // The challenge of one sign-in does not serve another.
    const first = await signInToPortal(ctx.baseUrl, user.username, user.password);
    const second = await signInToPortal(ctx.baseUrl, user.username, user.password);
    const crossed = await postForm(second.jar, `${second.interactionUrl}/step/second_factor`, {
      csrf: csrfOf(second.page.html),
      signatureFactorId: factorIdOf(second.page.html) ?? '',
      challenge: challengeOf(first.page.html),
      signature: key.sign(challengeOf(first.page.html)),
    });
    expect(crossed.response.status).toBe(400);
  });

  it('refuses an expired challenge', async () => {
    const user = await member();
    const made = await newKey('sm2');
    const key = await openKeyFile(Buffer.from(made.privateKeyPem));
    const bound = await admin('/api/v1/manage/mfa/admin/user/bind', {
      userId: user.id,
      type: 'soft_lock',
      keyId: made.containerId,
      publicKey: made.publicKeyPem,
    });
    expect(bound.code, bound.msg).toBe(200);
    const started = await signInToPortal(ctx.baseUrl, user.username, user.password);
    const challenge = challengeOf(started.page.html);
    await ctx.database.db
      .updateTable('signature_challenges')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('account_id', '=', user.id)
      .execute();
    const late = await postForm(started.jar, `${started.interactionUrl}/step/second_factor`, {
      csrf: csrfOf(started.page.html),
      signatureFactorId: factorIdOf(started.page.html) ?? '',
      challenge,
      signature: key.sign(challenge),
    });
    expect(late.response.status).toBe(400);
    expect(late.html).toContain('The signature was not accepted');
    const passed = await signInWithKey(user, key.sign);
    expect(passed.answered.url).toBe(`${ctx.baseUrl}/portal/account`);
  });

  it.skipIf(!hasOpenssl)(
    'binds a certificate of the company CA (PKCS#12 from the CA), signs in with it, and refuses it once revoked or expired; the CRL lists it',
    async () => {
      const user = await member();
      const ca = await admin<{ caId: string; crlUrl: string }>('/api/v1/manage/ca/create', {
        name: 'Key CA',
        algorithm: 'sm2',
        organization: 'Key Works',
      });
      expect(ca.code, ca.msg).toBe(200);
      const issued = await admin<{
        pkcs12: string;
        pkcs12Password: string;
        certificate: { certificateId: string; serialNumber: string };
      }>('/api/v1/manage/ca/certificate/issue', { caId: ca.data.caId, userId: user.id });
      expect(issued.code, issued.msg).toBe(200);
      const key = await openKeyFile(Buffer.from(issued.data.pkcs12, 'base64'), issued.data.pkcs12Password);
      expect(key.certificatePem).toContain('BEGIN CERTIFICATE');

      const { jar } = await signInToPortal(ctx.baseUrl, user.username, user.password);
      const bound = await bindInUserCentre(
        jar,
        await browse(jar, `${ctx.baseUrl}/portal/account`),
        'ukey_cert',
        key,
      );
      expect(bound.html).toContain('Save your recovery codes');
      expect((await signInWithKey(user, key.sign)).answered.url).toBe(`${ctx.baseUrl}/portal/account`);

      // Expired (its validity in the past): refused with the certificate's reason.
      const { certificateId } = issued.data.certificate;
      const validity = await ctx.database.db
        .selectFrom('issued_certificates')
        .select(['not_after'])
        .where('id', '=', certificateId)
        .executeTakeFirstOrThrow();
      await ctx.database.db
        .updateTable('issued_certificates')
        .set({ not_after: new Date(Date.now() - 1000) })
        .where('id', '=', certificateId)
        .execute();
      const expired = await signInWithKey(user, key.sign);
      expect(expired.answered.response.status).toBe(400);
      expect(expired.answered.html).toContain('Your certificate is revoked, expired or no longer trusted');
      await ctx.database.db
        .updateTable('issued_certificates')
        .set({ not_after: validity.not_after })
        .where('id', '=', certificateId)
        .execute();

      const revoked = await admin('/api/v1/manage/ca/certificate/revoke', {
        certificateId,
        reason: 'keyCompromise',
      });
      expect(revoked.code, revoked.msg).toBe(200);
      const refused = await signInWithKey(user, key.sign);
      expect(refused.answered.response.status).toBe(400);
      expect(refused.answered.html).toContain('Your certificate is revoked, expired or no longer trusted');

      const ws = await opensslWorkspace();
      try {
        const crl = await ws.file('key.crl', Buffer.from(await (await fetch(ca.data.crlUrl)).arrayBuffer()));
        const text = (await ws.openssl('crl', '-in', crl, '-inform', 'DER', '-noout', '-text')).output;
        expect(text.replace(/:/g, '').toUpperCase()).toContain(
          issued.data.certificate.serialNumber.toUpperCase(),
        );
      } finally {
        await ws.close();
      }
    },
  );
});

describe('a policy that requires a key', () => {
  it('asks a person with a key bound by an administrator for the key, not to set up a code first', async () => {
    const strict = await ownerWithCompany(ctx, 'ukey-strict', 'Strict Keys');
    await saveSafetyPart(ctx.database.db, strict.companyId, 'mfa', {
      mode: 'required',
      types: ['ukey_pubkey'],
      lockout,
    });
    const user = await member(strict);
    const made = await newKey('ecc', 'P-384');
    const bound = await admin(
      '/api/v1/manage/mfa/admin/user/bind',
      { userId: user.id, type: 'ukey_pubkey', publicKey: made.publicKeyPem },
      'en',
      strict,
    );
    expect(bound.code, bound.msg).toBe(200);
    const key = await openKeyFile(Buffer.from(made.privateKeyPem));
    const signedIn = await signInWithKey(user, key.sign);
    expect(signedIn.page.html).not.toContain('Set up two-step verification');
    expect(signedIn.answered.url).toBe(`${ctx.baseUrl}/portal/account`);
  });
});

describe('an administrator binds a key', () => {
  it('checks the input in English and Chinese, storing nothing; a user of another company is not found; a member reaches no console', async () => {
    const user = await member();
    const made = await newKey('rsa', '2048');
    const cases: [Record<string, unknown>, string, string][] = [
      [{ type: 'ukey_usb' }, 'mfa.type_invalid', '请选择密钥类型'],
      [{ type: 'ukey_pubkey' }, 'mfa.public_key_required', '请粘贴公钥'],
      [{ type: 'ukey_pubkey', publicKey: 'not a key' }, 'mfa.public_key_invalid', '公钥必须是 PEM 格式'],
      [{ type: 'ukey_keyid', publicKey: made.publicKeyPem }, 'mfa.key_id_required', '请输入密钥的 KeyId'],
      [{ type: 'soft_lock', keyId: 'bad id!', publicKey: made.publicKeyPem }, 'mfa.key_id_invalid', 'KeyId'],
      [{ type: 'ukey_cert', certificate: made.publicKeyPem }, 'mfa.certificate_invalid', '证书不是有效的'],
      [
        { type: 'ukey_pubkey', name: 'x'.repeat(51), publicKey: made.publicKeyPem },
        'mfa.name_too_long',
        '名称最多 50 个字符',
      ],
    ];
    for (const [input, reason, zh] of cases) {
      const answer = await admin('/api/v1/manage/mfa/admin/user/bind', { userId: user.id, ...input }, 'zh');
      expect(answer, reason).toMatchObject({ code: 400 });
      expect(JSON.stringify(answer), reason).toContain(reason);
      expect(answer.msg, reason).toContain(zh);
      const english = await admin('/api/v1/manage/mfa/admin/user/bind', { userId: user.id, ...input }, 'en');
      expect(english.msg, reason).not.toMatch(/[\u4e00-\u9fff]/);
    }
    expect(await boundCount(user.id)).toBe(0);

    // Another company's administrator: not found, nothing stored.
    const foreign = await admin(
      '/api/v1/manage/mfa/admin/user/bind',
      { userId: user.id, type: 'ukey_pubkey', publicKey: made.publicKeyPem },
      'en',
      other,
    );
    expect(foreign).toMatchObject({ code: 404 });
    // A member of the company reaches no console call.
    const plain = await member();
    const memberToken = await sessionFor(ctx, plain.id);
    const refused = await call(
      ctx,
      '/api/v1/manage/mfa/admin/user/bind',
      { userId: user.id, type: 'ukey_pubkey', publicKey: made.publicKeyPem },
      { token: memberToken, companyId: owner.companyId },
    );
    // A member reaches no company's console: the company is not found for them.
    expect(refused.code).toBe(404);
    expect(await boundCount(user.id)).toBe(0);

    const bound = await admin('/api/v1/manage/mfa/admin/user/bind', {
      userId: user.id,
      type: 'ukey_pubkey',
      name: 'Desk key',
      publicKey: made.publicKeyPem,
    });
    expect(bound).toMatchObject({
      code: 200,
      data: { type: 'ukey_pubkey', name: 'Desk key', status: 'bound' },
    });
    const listed = await admin<{ list: { type: string }[] }>('/api/v1/manage/mfa/admin/user', {
      userId: user.id,
    });
    expect(listed.data.list.map((f) => f.type)).toEqual(['ukey_pubkey']);
    const audit = await ctx.database.db
      .selectFrom('audit_events')
      .select(['action', 'company_id'])
      .where('target_id', '=', user.id)
      .where('action', '=', 'mfa.admin_bind')
      .execute();
    expect(audit).toEqual([{ action: 'mfa.admin_bind', company_id: owner.companyId }]);
    // The key proves itself at its first use.
    const key = await openKeyFile(Buffer.from(made.privateKeyPem));
    expect((await signInWithKey(user, key.sign)).answered.url).toBe(`${ctx.baseUrl}/portal/account`);
  });
});

const boundCount = async (accountId: string) =>
  (
    await ctx.database.db
      .selectFrom('mfa_factors')
      .select('id')
      .where('account_id', '=', accountId)
      .where('type', 'in', [...allKeys])
      .execute()
  ).length;
