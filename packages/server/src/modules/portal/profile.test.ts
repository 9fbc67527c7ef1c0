import type { ParsedMail } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browse, type CookieJar, csrfOf, request, signInToPortal } from '../../test/browser-flow.ts';
import { createAccount, ownerWithCompany, startTestApp, type TestContext } from '../../test/harness.ts';
import { startTestSmtp } from '../../test/smtp.ts';

/**
 * The person's own details in the user centre (issue 29), over real HTTP: the email verified and
 * changed with codes received by a local SMTP server, the old address told, wrong codes, a taken
 * address, a directory person, the photo, CSRF on every form, audit events, both languages.
 */

let smtp: Awaited<ReturnType<typeof startTestSmtp>>;
let ctx: TestContext;
let owner: Awaited<ReturnType<typeof ownerWithCompany>>;

beforeAll(async () => {
  smtp = await startTestSmtp();
  ctx = await startTestApp({
    listen: true,
    mail: { smtpUrl: smtp.url, from: 'Tessera <id@tessera.example>' },
  });
  owner = await ownerWithCompany(ctx, 'profile-owner', 'Profile Co');
});
afterAll(async () => {
  await ctx.close();
  await smtp.close();
});

const PROFILE = () => `${ctx.baseUrl}/portal/account/profile`;

/** A person the company manages, with an email (not verified) and a record in the company. */
async function person(username: string, email: string | null = `${username}@example.com`) {
  const account = await createAccount(ctx, { username });
  await ctx.database.db
    .updateTable('accounts')
    .set({ email, home_company_id: owner.companyId, must_change_password: false })
    .where('id', '=', account.id)
    .execute();
  await ctx.database.db
    .insertInto('company_members')
    .values({ company_id: owner.companyId, account_id: account.id, role: 'member', updated_at: new Date() })
    .execute();
  const { jar } = await signInToPortal(ctx.baseUrl, username, account.password);
  return { ...account, jar };
}

const stored = (id: string) =>
  ctx.database.db
    .selectFrom('accounts')
    .select(['email', 'email_verified_at', 'phone', 'display_name', 'nickname', 'photo_file_id'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();

const auditOf = (id: string) =>
  ctx.database.db
    .selectFrom('audit_events')
    .select(['action', 'company_id', 'actor_account_id', 'before', 'after'])
    .where('target_id', '=', id)
    .where('action', 'like', 'user.%')
    .orderBy('created_at')
    .execute();

const post = (jar: CookieJar, path: string, form: Record<string, string>, lang = 'en') =>
  browse(jar, `${ctx.baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'accept-language': lang },
    body: new URLSearchParams(form).toString(),
  });

const ADDRESS = '/portal/account/profile/address';
const CONFIRM = '/portal/account/profile/address/confirm';
const requestOf = (html: string) => /name="request" value="([^"]+)"/.exec(html)?.[1] ?? '';

/** The mails to an address received since the test began (polled: delivery is asynchronous). */
async function mailsTo(address: string, count = 1): Promise<ParsedMail[]> {
  const to = (m: ParsedMail) =>
    m.to && !Array.isArray(m.to) && m.to.value[0]?.address?.toLowerCase() === address.toLowerCase();
  for (let i = 0; i < 200; i++) {
    const found = smtp.received.filter(to);
    if (found.length >= count) return found;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`no mail to ${address}`);
}
const codeIn = (mail: ParsedMail) => /(\d{6})/.exec(mail.text ?? '')?.[1] ?? '';

/** Asks for a code (verify the current address, or change to `address`); returns the code page. */
async function askCode(jar: CookieJar, form: { intent: 'verify' | 'change'; address?: string }, lang = 'en') {
  const page = await browse(jar, PROFILE());
  return post(jar, ADDRESS, { csrf: csrfOf(page.html), channel: 'email', ...form }, lang);
}

describe('the email in the user centre', () => {
  it('is verified with a code sent to it; a wrong code is counted and may be typed again', async () => {
    const ana = await person('prof-ana');
    const account = await browse(ana.jar, `${ctx.baseUrl}/portal/account`);
    expect(account.html).toContain(
      'prof-ana@example.com <span class="bad" data-verified="no">Not verified</span>',
    );
    expect(account.html).toContain('href="/portal/account/profile"');

    const codePage = await askCode(ana.jar, { intent: 'verify' });
    expect(codePage.response.status).toBe(200);
    expect(codePage.html).toContain('A 6-digit code was sent to prof-ana@example.com.');
    const [mail] = await mailsTo('prof-ana@example.com');
    expect(mail?.subject).toBe('Confirm your email address');
    const code = codeIn(mail as ParsedMail);
    const wrong = code === '000000' ? '111111' : '000000';

    const csrf = csrfOf(codePage.html);
    const first = await post(ana.jar, CONFIRM, { csrf, request: requestOf(codePage.html), code: wrong });
    expect(first.response.status).toBe(400);
    expect(first.html).toContain('The code is not right (4 tries left)');
    expect((await stored(ana.id)).email_verified_at).toBeNull();

    const done = await post(ana.jar, CONFIRM, { csrf, request: requestOf(first.html), code });
    expect(done.url).toBe(`${PROFILE()}?notice=email_verified`);
    expect(done.html).toContain('Your email is verified.');
    expect((await stored(ana.id)).email_verified_at).toBeInstanceOf(Date);
    expect((await browse(ana.jar, `${ctx.baseUrl}/portal/account`)).html).toContain(
      'prof-ana@example.com <span class="ok" data-verified="yes">Verified</span>',
    );
    // Single use: the same code again is refused.
    const again = await post(ana.jar, CONFIRM, { csrf, request: requestOf(first.html), code });
    expect(again.html).toContain('This code is no longer valid: ask for a new one');
    const events = await auditOf(ana.id);
    expect(events.at(-1)).toMatchObject({
      action: 'user.address_verify',
      company_id: owner.companyId,
      actor_account_id: ana.id,
      after: { email: 'prof-ana@example.com', verified: true, selfService: true },
    });
  });

  it('changes only when the code sent to the new address is typed, and tells the old address (Chinese)', async () => {
    const bo = await person('prof-bo');
    const codePage = await askCode(bo.jar, { intent: 'change', address: ' Bo.New@Example.com ' }, 'zh');
    expect(codePage.response.status).toBe(200);
    expect(codePage.html).toContain('6 位验证码已发送到 bo.new@example.com。');
    const [mail] = await mailsTo('bo.new@example.com');
    expect(mail?.text).toContain('您的验证码是');
    // Nothing changes before the code.
    expect((await stored(bo.id)).email).toBe('prof-bo@example.com');

    const done = await post(
      bo.jar,
      CONFIRM,
      { csrf: csrfOf(codePage.html), request: requestOf(codePage.html), code: codeIn(mail as ParsedMail) },
      'zh',
    );
    expect(done.url).toBe(`${PROFILE()}?notice=email_changed`);
    const after = await stored(bo.id);
    expect(after.email).toBe('bo.new@example.com');
    expect(after.email_verified_at).toBeInstanceOf(Date);

    const [notice] = await mailsTo('prof-bo@example.com');
    expect(notice?.subject).toBe('您账号的邮箱地址已修改');
    expect(notice?.text).toContain('您的账号 prof-bo 的邮箱地址已改为 b***@example.com。');
    expect(notice?.text).not.toContain('bo.new@example.com');
    expect((await auditOf(bo.id)).at(-1)).toMatchObject({
      action: 'user.email_change',
      actor_account_id: bo.id,
      before: { email: 'prof-bo@example.com' },
      after: { email: 'bo.new@example.com', verified: true, selfService: true },
    });
  });

  it('ends a code after five wrong tries', async () => {
    const cy = await person('prof-cy');
    const codePage = await askCode(cy.jar, { intent: 'change', address: 'cy.new@example.com' });
    const code = codeIn((await mailsTo('cy.new@example.com'))[0] as ParsedMail);
    const wrong = code === '000000' ? '111111' : '000000';
    const form = { csrf: csrfOf(codePage.html), request: requestOf(codePage.html) };
    const answers: string[] = [];
    for (let i = 0; i < 5; i++) answers.push((await post(cy.jar, CONFIRM, { ...form, code: wrong })).html);
    expect(answers[0]).toContain('(4 tries left)');
    expect(answers[3]).toContain('(1 tries left)');
    expect(answers[4]).toContain('This code is no longer valid');
    const late = await post(cy.jar, CONFIRM, { ...form, code });
    expect(late.html).toContain('This code is no longer valid');
    expect((await stored(cy.id)).email).toBe('prof-cy@example.com');
  });

  it('does not tell whether a new address is taken before its code is proved', async () => {
    const dee = await person('prof-dee');
    await person('prof-taken', 'taken@example.com');
    const taken = await askCode(dee.jar, { intent: 'change', address: 'taken@example.com' });
    const free = await askCode(dee.jar, { intent: 'change', address: 'free@example.com' });
    // The same answer for both: a code page, and a code sent there.
    expect(taken.response.status).toBe(200);
    expect(free.response.status).toBe(200);
    const shape = (html: string) =>
      html.replace(/value="[^"]*"/g, '').replace(/\S+@example\.com/g, 'ADDRESS');
    expect(shape(taken.html)).toBe(shape(free.html));
    const code = codeIn((await mailsTo('taken@example.com'))[0] as ParsedMail);
    const refused = await post(dee.jar, CONFIRM, {
      csrf: csrfOf(taken.html),
      request: requestOf(taken.html),
      code,
    });
    expect(refused.response.status).toBe(400);
    expect(refused.html).toContain('This email address is already in use');
    expect((await stored(dee.id)).email).toBe('prof-dee@example.com');
  });

  it('refuses a malformed address before sending anything', async () => {
    const eve = await person('prof-eve');
    const before = smtp.received.length;
    const refused = await askCode(eve.jar, { intent: 'change', address: 'not-an-email' });
    expect(refused.response.status).toBe(400);
    expect(refused.html).toContain('Please enter a valid email address');
    expect(smtp.received.length).toBe(before);
  });
});

const PNG = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  Buffer.alloc(64, 1),
]);

const uploadPhoto = (jar: CookieJar, csrf: string, bytes: Buffer) => {
  const form = new FormData();
  form.append('csrf', csrf);
  form.append('photo', new Blob([new Uint8Array(bytes)], { type: 'image/png' }), 'me.png');
  return request(jar, `${ctx.baseUrl}/portal/account/profile/photo`, { method: 'POST', body: form });
};

describe('name, nickname and photo', () => {
  it('saves them, audited', async () => {
    const fay = await person('prof-fay');
    const page = await browse(fay.jar, PROFILE());
    const saved = await post(fay.jar, '/portal/account/profile', {
      csrf: csrfOf(page.html),
      name: 'Fay Field',
      nickname: 'Fay',
    });
    expect(saved.url).toBe(`${PROFILE()}?notice=names_saved`);
    expect(await stored(fay.id)).toMatchObject({ display_name: 'Fay Field', nickname: 'Fay' });

    const uploaded = await uploadPhoto(fay.jar, csrfOf(page.html), PNG);
    expect(uploaded.status).toBe(303);
    const { photo_file_id } = await stored(fay.id);
    expect(photo_file_id).toBeTruthy();
    expect((await browse(fay.jar, PROFILE())).html).toContain(`src="/api/v1/files/${photo_file_id}"`);
    const notImage = await uploadPhoto(fay.jar, csrfOf(page.html), Buffer.from('plain text'));
    expect(notImage.status).toBe(400);
    expect(await notImage.text()).toContain('This file type is not allowed');
    const tooLarge = await uploadPhoto(
      fay.jar,
      csrfOf(page.html),
      Buffer.concat([PNG, Buffer.alloc(2 * 1024 * 1024)]),
    );
    expect(tooLarge.status).toBe(400);
    expect(await tooLarge.text()).toContain('The file is too large (at most 2 MiB)');
    expect((await stored(fay.id)).photo_file_id).toBe(photo_file_id);

    expect((await auditOf(fay.id)).map((e) => e.action)).toEqual([
      'user.profile_change',
      'user.photo_change',
    ]);
  });

  it('refuses every new form without the session CSRF token, changing nothing', async () => {
    const gus = await person('prof-gus');
    const page = await browse(gus.jar, PROFILE());
    const codePage = await askCode(gus.jar, { intent: 'verify' });
    const code = codeIn((await mailsTo('prof-gus@example.com'))[0] as ParsedMail);
    const forged = 'forged';
    const answers = [
      await post(gus.jar, '/portal/account/profile', { csrf: forged, name: 'X', nickname: 'Y' }),
      await post(gus.jar, ADDRESS, {
        csrf: forged,
        channel: 'email',
        intent: 'change',
        address: 'x@example.com',
      }),
      await post(gus.jar, CONFIRM, { csrf: forged, request: requestOf(codePage.html), code }),
    ];
    for (const answer of answers) expect(answer.response.status).toBe(403);
    expect((await uploadPhoto(gus.jar, forged, PNG)).status).toBe(403);
    // The code page's request is bound to its session: another session of the same person cannot use it.
    const other = await signInToPortal(ctx.baseUrl, gus.username, gus.password);
    const otherPage = await browse(other.jar, PROFILE());
    const elsewhere = await post(other.jar, CONFIRM, {
      csrf: csrfOf(otherPage.html),
      request: requestOf(codePage.html),
      code,
    });
    expect(elsewhere.html).toContain('This code is no longer valid');
    expect(await stored(gus.id)).toMatchObject({
      display_name: null,
      email_verified_at: null,
      photo_file_id: null,
    });
    expect(await auditOf(gus.id)).toEqual([]);
    expect(page.response.status).toBe(200);
  });
});

describe('a directory person', () => {
  it('edits only what the directory does not own; the page says which fields it manages', async () => {
    const hal = await person('prof-hal');
    const sourceId = crypto.randomUUID();
    await ctx.database.db
      .insertInto('identity_sources')
      .values({
        id: sourceId,
        company_id: owner.companyId,
        type: 'ldap',
        name: 'Head Office AD',
        settings: '{}',
      })
      .execute();
    await ctx.database.db
      .insertInto('identity_links')
      .values({ source_id: sourceId, company_id: owner.companyId, account_id: hal.id, external_id: 'hal-1' })
      .execute();
    const page = await browse(hal.jar, PROFILE());
    expect(page.html).toContain('Your directory (Head Office AD) manages your name, email and phone');
    expect(page.html).toContain('data-directory-fields="name email phone"');
    expect(page.html).not.toContain('name="address"');
    const csrf = csrfOf(page.html);
    const renamed = await post(hal.jar, '/portal/account/profile', { csrf, name: 'Not Hal', nickname: 'H' });
    expect(renamed.response.status).toBe(400);
    expect(renamed.html).toContain('Your directory manages this: change it there.');
    const nickname = await post(hal.jar, '/portal/account/profile', { csrf, name: '', nickname: 'Hally' });
    expect(nickname.url).toBe(`${PROFILE()}?notice=names_saved`);
    const changed = await post(hal.jar, ADDRESS, {
      csrf,
      channel: 'email',
      intent: 'change',
      address: 'h@example.com',
    });
    expect(changed.response.status).toBe(400);
    expect(changed.html).toContain('Your directory manages this: change it there.');
    expect(await stored(hal.id)).toMatchObject({
      email: 'prof-hal@example.com',
      nickname: 'Hally',
      display_name: null,
    });
    // Verifying the directory's address is still the person's to do.
    const verify = await post(hal.jar, ADDRESS, { csrf, channel: 'email', intent: 'verify' });
    expect(verify.response.status).toBe(200);
    const zh = await browse(hal.jar, `${PROFILE()}?lang=zh`);
    expect(zh.html).toContain('您的姓名、邮箱、手机号由目录（Head Office AD）管理');
  });
});
