import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { absolute, decodeEntities, request, signInToPortal } from '../../test/browser-flow.ts';
import { browseCas, CookieJar, casAppFor, startCasService, ticketOf } from '../../test/cas-flow.ts';
import { companyMember, ownerWithCompany, startTestApp, type TestContext } from '../../test/harness.ts';
import { manage, post, travel } from '../../test/saml-flow.ts';

/**
 * The CAS server (issue 30), a table per section of the Apereo CAS Protocol 3.0 specification:
 * /login (§2.1), /logout (§2.3), /validate (§2.4), /serviceValidate (§2.5), /proxyValidate
 * (§2.6), /proxy (§2.7), /p3/* (§2.8–2.9), tickets (§3) and single logout (appendix C).
 */
let ctx: TestContext;
let service: Awaited<ReturnType<typeof startCasService>>;
let owner: Awaited<ReturnType<typeof ownerWithCompany>>;
let other: Awaited<ReturnType<typeof ownerWithCompany>>;
let cas: { appId: string; clientId: string; serverUrl: string };
let alice: { id: string; username: string; password: string };
let svc: string;

beforeAll(async () => {
  ctx = await startTestApp({ listen: true });
  service = await startCasService();
  owner = await ownerWithCompany(ctx, 'cas-owner', 'Cas Co');
  other = await ownerWithCompany(ctx, 'cas-other', 'Other Co');
  alice = await companyMember(ctx, owner, 'cas-alice');
  await ctx.database.db
    .updateTable('accounts')
    .set({ email: 'alice@cas.example', display_name: 'Alice C' })
    .where('id', '=', alice.id)
    .execute();
  svc = `${service.base}/oa/`;
  cas = await casAppFor(ctx, owner, 'OA', {
    servicePatterns: [{ kind: 'prefix', value: `${service.base}/oa` }],
    attributes: ['username', 'name', 'email'],
  });
});
afterAll(async () => {
  await service?.close();
  await ctx?.close();
});

const loginUrl = (params: Record<string, string>) => `${cas.serverUrl}/login?${new URLSearchParams(params)}`;

/** A fresh browser signed in to the service: its jar and a service ticket. */
async function ticketFor(person = alice, target = svc) {
  const jar = new CookieJar();
  const landed = await browseCas(ctx, jar, loginUrl({ service: target }), person);
  return { jar, ticket: ticketOf(landed.url), landed };
}

const validate = async (endpoint: string, params: Record<string, string>, base = cas.serverUrl) => {
  const response = await fetch(`${base}/${endpoint}?${new URLSearchParams(params)}`);
  return { status: response.status, type: response.headers.get('content-type'), body: await response.text() };
};
const failureCode = (xml: string) => /<cas:authenticationFailure code="([A-Z_]+)"/.exec(xml)?.[1];

describe('§2.1 /login', () => {
  it('signs in on the sign-in page and lands on the exact service with an ST- ticket', async () => {
    const { ticket, landed } = await ticketFor();
    expect(landed.url.startsWith(`${svc}?ticket=ST-`)).toBe(true);
    // Letters, digits and hyphens only (§3.1.1), 256 random bits.
    expect(ticket).toMatch(/^ST-[0-9a-f]{64}$/);
    const events = await ctx.database.db
      .selectFrom('login_events')
      .selectAll()
      .where('account_id', '=', alice.id)
      .execute();
    // The sign-in log names the application, as for OIDC and SAML apps, and the dashboard counts it.
    expect(events.some((e) => e.result === 'success' && e.client_id === cas.clientId)).toBe(true);
    const figures = await manage<{ top: { appId: string; count: number }[] }>(
      ctx,
      owner,
      '/api/v1/manage/index/app-login-count',
      {},
    );
    expect(figures.top.find((app) => app.appId === cas.appId)?.count).toBeGreaterThan(0);
  });

  it('"My apps" opens the application at its own address', async () => {
    const { jar } = await signInToPortal(ctx.baseUrl, alice.username, alice.password);
    const launch = await request(jar, `${ctx.baseUrl}/portal/apps/${cas.appId}/launch`);
    expect(launch.headers.get('location')).toBe(`${service.base}/oa`);
  });

  it.each([
    ['an address no pattern allows', (base: string) => `${base}/elsewhere`],
    ['a prefix without its boundary', (base: string) => `${base}/oa.evil.example/`],
    ['no web address', () => 'javascript:alert(1)//http://127.0.0.1/oa/'],
  ])('refuses %s with a page, never a redirect', async (_name, address) => {
    const page = await request(new CookieJar(), loginUrl({ service: address(service.base) }));
    expect(page.status).toBe(400);
    expect(page.headers.get('location')).toBeNull();
  });

  it('inside the single sign-on session: no sign-in page; renew=true asks again and the ticket says so', async () => {
    const { jar, ticket } = await ticketFor();
    const again = await browseCas(ctx, jar, loginUrl({ service: svc }));
    expect(ticketOf(again.url)).toMatch(/^ST-/);
    expect(ticketOf(again.url)).not.toBe(ticket);
    // Not from a new sign-in: renew=true at validation refuses it.
    const plain = await validate('serviceValidate', {
      service: svc,
      ticket: ticketOf(again.url),
      renew: 'true',
    });
    expect(failureCode(plain.body)).toBe('INVALID_TICKET');

    const renewPage = await browseCas(ctx, jar, loginUrl({ service: svc, renew: 'true' }));
    expect(renewPage.url).toContain('/interaction/');
    const renewed = await browseCas(ctx, jar, loginUrl({ service: svc, renew: 'true' }), alice);
    const answer = await validate('p3/serviceValidate', {
      service: svc,
      ticket: ticketOf(renewed.url),
      renew: 'true',
    });
    expect(answer.body).toContain('<cas:isFromNewLogin>true</cas:isFromNewLogin>');
  });

  it('gateway=true without a session goes back to the service without a ticket', async () => {
    const landed = await browseCas(ctx, new CookieJar(), loginUrl({ service: svc, gateway: 'true' }));
    expect(landed.url).toBe(svc);
  });

  it('gateway=true inside the single sign-on session gives a ticket without any page', async () => {
    const { jar } = await ticketFor();
    const landed = await browseCas(ctx, jar, loginUrl({ service: svc, gateway: 'true' }));
    expect(ticketOf(landed.url)).toMatch(/^ST-/);
    expect(
      (await validate('serviceValidate', { service: svc, ticket: ticketOf(landed.url) })).body,
    ).toContain('<cas:user>cas-alice</cas:user>');
  });

  it('without a service, sends the person to the user centre (no ticket for anyone)', async () => {
    const response = await request(new CookieJar(), `${cas.serverUrl}/login`);
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/portal/');
  });

  it("issues tickets that live as long as the application's ticket lifetime says", async () => {
    const lifetimeOf = async (ticket: string) => {
      const row = await ctx.database.db
        .selectFrom('cas_tickets')
        .select(['created_at', 'expires_at'])
        .where('id', '=', ticket)
        .executeTakeFirstOrThrow();
      return Math.round((row.expires_at.getTime() - row.created_at.getTime()) / 1000);
    };
    expect(await lifetimeOf((await ticketFor()).ticket)).toBe(10);
    await manage(ctx, owner, '/api/v1/manage/app/cas/update', { appId: cas.appId, ticketTtl: 45 });
    try {
      expect(await lifetimeOf((await ticketFor()).ticket)).toBe(45);
    } finally {
      await manage(ctx, owner, '/api/v1/manage/app/cas/update', { appId: cas.appId, ticketTtl: 10 });
    }
  });

  it('method=POST posts the ticket to the service', async () => {
    const { jar } = await ticketFor();
    const page = await browseCas(ctx, jar, loginUrl({ service: svc, method: 'POST' }));
    const form = /<form method="post" action="([^"]*)"[^>]*data-auto-submit>([\s\S]*?)<\/form>/.exec(
      page.html,
    );
    expect(decodeEntities(form?.[1] ?? '')).toBe(svc);
    expect(form?.[2]).toMatch(/name="ticket" value="ST-/);
  });
});

describe('§2.4 /validate (CAS 1.0)', () => {
  it.each([
    ['a valid ticket', 'valid', 'yes\ncas-alice\n'],
    ['an unknown ticket', 'ST-unknown', 'no\n\n'],
  ])('%s', async (_name, which, body) => {
    const ticket = which === 'valid' ? (await ticketFor()).ticket : which;
    const answer = await validate('validate', { service: svc, ticket });
    expect(answer.type).toContain('text/plain');
    expect(answer.body).toBe(body);
  });
});

describe('§2.5 /serviceValidate and §3.1 service tickets', () => {
  it('answers the user (and no attributes in CAS 2.0), in XML and JSON', async () => {
    const xml = await validate('serviceValidate', { service: svc, ticket: (await ticketFor()).ticket });
    expect(xml.type).toContain('xml');
    expect(xml.body).toContain('<cas:serviceResponse xmlns:cas="http://www.yale.edu/tp/cas">');
    expect(xml.body).toContain('<cas:user>cas-alice</cas:user>');
    expect(xml.body).not.toContain('<cas:attributes>');
    const json = await validate('serviceValidate', {
      service: svc,
      ticket: (await ticketFor()).ticket,
      format: 'JSON',
    });
    expect(JSON.parse(json.body)).toEqual({
      serviceResponse: { authenticationSuccess: { user: 'cas-alice' } },
    });
  });

  it.each([
    ['no ticket', 'INVALID_REQUEST', async () => ({ service: svc })],
    ['no service', 'INVALID_REQUEST', async () => ({ ticket: (await ticketFor()).ticket })],
    ['an unknown ticket', 'INVALID_TICKET', async () => ({ service: svc, ticket: 'ST-never-issued' })],
    [
      'another service',
      'INVALID_SERVICE',
      async () => ({ service: `${svc}other`, ticket: (await ticketFor()).ticket }),
    ],
  ])('refuses %s with %s', async (_name, code, params) => {
    const answer = await validate('serviceValidate', (await params()) as Record<string, string>);
    expect(answer.status).toBe(200);
    expect(failureCode(answer.body)).toBe(code);
    const json = await validate('serviceValidate', {
      ...((await params()) as Record<string, string>),
      format: 'JSON',
    });
    expect(JSON.parse(json.body).serviceResponse.authenticationFailure.code).toBe(code);
  });

  it('is single use: a second validation, or one after a wrong service, fails', async () => {
    const { ticket } = await ticketFor();
    expect((await validate('serviceValidate', { service: svc, ticket })).body).toContain('<cas:user>');
    expect(failureCode((await validate('serviceValidate', { service: svc, ticket })).body)).toBe(
      'INVALID_TICKET',
    );
    const second = (await ticketFor()).ticket;
    expect(
      failureCode((await validate('serviceValidate', { service: `${svc}x`, ticket: second })).body),
    ).toBe('INVALID_SERVICE');
    expect(failureCode((await validate('serviceValidate', { service: svc, ticket: second })).body)).toBe(
      'INVALID_TICKET',
    );
  });

  it('of 50 parallel validations of one ticket exactly one succeeds', async () => {
    const { ticket } = await ticketFor();
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => validate('serviceValidate', { service: svc, ticket })),
    );
    expect(answers.filter((a) => a.body.includes('<cas:authenticationSuccess>'))).toHaveLength(1);
    expect(answers.filter((a) => failureCode(a.body) === 'INVALID_TICKET')).toHaveLength(49);
  });

  it('refuses an expired ticket, and one of another company’s CAS server', async () => {
    const { ticket } = await ticketFor();
    await ctx.database.db
      .updateTable('cas_tickets')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('id', '=', ticket)
      .execute();
    expect(failureCode((await validate('serviceValidate', { service: svc, ticket })).body)).toBe(
      'INVALID_TICKET',
    );
    const elsewhere = `${ctx.baseUrl}/cas/${other.companyId}`;
    const fresh = (await ticketFor()).ticket;
    expect(
      failureCode((await validate('serviceValidate', { service: svc, ticket: fresh }, elsewhere)).body),
    ).toBe('INVALID_TICKET');
  });

  it('refuses the ticket of a person disabled, or taken off the application, after it was issued', async () => {
    const bob = await companyMember(ctx, owner, 'cas-bob');
    const first = await ticketFor(bob);
    await manage(ctx, owner, '/api/v1/manage/user/status', { userId: bob.id, status: 'disabled' });
    expect(
      failureCode((await validate('serviceValidate', { service: svc, ticket: first.ticket })).body),
    ).toBe('INVALID_TICKET');
    const carol = await companyMember(ctx, owner, 'cas-carol');
    const second = await ticketFor(carol);
    await manage(ctx, owner, '/api/v1/manage/app/update', {
      appId: cas.appId,
      defaultAccess: 'prohibit_all',
    });
    try {
      expect(
        failureCode((await validate('serviceValidate', { service: svc, ticket: second.ticket })).body),
      ).toBe('INVALID_TICKET');
      // The refused validation is in the sign-in log with the application and its cause.
      const refusals = await ctx.database.db
        .selectFrom('login_events')
        .selectAll()
        .where('account_id', '=', carol.id)
        .where('result', '=', 'failure')
        .execute();
      expect(refusals.map((e) => [e.client_id, e.failure_cause])).toContainEqual([
        cas.clientId,
        'app_not_assigned',
      ]);
      // And /login refuses the unassigned person: no ticket.
      const refused = await browseCas(ctx, second.jar, loginUrl({ service: svc }));
      expect(refused.url.startsWith(svc)).toBe(false);
    } finally {
      await manage(ctx, owner, '/api/v1/manage/app/update', { appId: cas.appId, defaultAccess: 'allow_all' });
    }
  });
});

describe('§2.8 /p3/serviceValidate (CAS 3.0 attributes)', () => {
  it('releases the chosen attributes and the authentication attributes', async () => {
    const answer = await validate('p3/serviceValidate', {
      service: svc,
      ticket: (await ticketFor()).ticket,
      format: 'JSON',
    });
    const success = JSON.parse(answer.body).serviceResponse.authenticationSuccess;
    expect(success.user).toBe('cas-alice');
    expect(success.attributes).toMatchObject({
      username: ['cas-alice'],
      name: ['Alice C'],
      email: ['alice@cas.example'],
      longTermAuthenticationRequestTokenUsed: ['false'],
    });
    expect(success.attributes.phone).toBeUndefined();
  });
});

describe('§2.5.4 proxy callback, §2.7 /proxy, §2.6 /proxyValidate', () => {
  it('refuses proxying for an application that does not allow it', async () => {
    const answer = await validate('serviceValidate', {
      service: svc,
      ticket: (await ticketFor()).ticket,
      pgtUrl: `${service.base}/oa/pgt`,
    });
    expect(failureCode(answer.body)).toBe('UNAUTHORIZED_SERVICE_PROXY');
  });

  it('grants a PGT to an allowed callback, a PT from it, and validates the PT with its proxy chain', async () => {
    await manage(ctx, owner, '/api/v1/manage/app/cas/update', { appId: cas.appId, allowProxy: true });
    try {
      const outside = await validate('serviceValidate', {
        service: svc,
        ticket: (await ticketFor()).ticket,
        pgtUrl: `${service.base}/pgt`,
      });
      expect(failureCode(outside.body)).toBe('INVALID_PROXY_CALLBACK');
      const broken = await validate('serviceValidate', {
        service: svc,
        ticket: (await ticketFor()).ticket,
        pgtUrl: `${service.base}/oa/pgt-broken`,
      });
      expect(broken.body).toContain('<cas:user>cas-alice</cas:user>');
      expect(broken.body).not.toContain('proxyGrantingTicket');

      const pgtUrl = `${service.base}/oa/pgt`;
      const granted = await validate('serviceValidate', {
        service: svc,
        ticket: (await ticketFor()).ticket,
        pgtUrl,
      });
      const iou = /<cas:proxyGrantingTicket>(PGTIOU-[^<]+)<\/cas:proxyGrantingTicket>/.exec(
        granted.body,
      )?.[1];
      const pgt = service.pgts.find((p) => p.pgtIou === iou)?.pgtId ?? '';
      expect(pgt).toMatch(/^PGT-/);

      const target = `${svc}backend`;
      expect(await validate('proxy', { targetService: target })).toMatchObject({
        body: expect.stringContaining('<cas:proxyFailure code="INVALID_REQUEST">'),
      });
      expect((await validate('proxy', { pgt: 'PGT-unknown', targetService: target })).body).toContain(
        'code="INVALID_TICKET"',
      );
      expect(
        (await validate('proxy', { pgt, targetService: 'https://not.registered.example/' })).body,
      ).toContain('code="UNAUTHORIZED_SERVICE"');
      const proxied = await validate('proxy', { pgt, targetService: target, format: 'JSON' });
      const pt = JSON.parse(proxied.body).serviceResponse.proxySuccess.proxyTicket as string;
      expect(pt).toMatch(/^PT-/);
      // A PT is not for /serviceValidate (left unused), and is for /proxyValidate.
      expect(failureCode((await validate('serviceValidate', { service: target, ticket: pt })).body)).toBe(
        'INVALID_TICKET_SPEC',
      );
      const valid = await validate('p3/proxyValidate', { service: target, ticket: pt });
      expect(valid.body).toContain('<cas:user>cas-alice</cas:user>');
      expect(valid.body).toContain(`<cas:proxy>${pgtUrl}</cas:proxy>`);
      expect(valid.body).toContain('<cas:attributes>');
      // CAS 2.0's /proxyValidate: the proxy chain, no attributes; it takes service tickets too.
      const pt2 = /<cas:proxyTicket>(PT-[^<]+)</.exec(
        (await validate('proxy', { pgt, targetService: target })).body,
      )?.[1];
      const valid2 = await validate('proxyValidate', { service: target, ticket: pt2 ?? '' });
      expect(valid2.body).toContain(`<cas:proxy>${pgtUrl}</cas:proxy>`);
      expect(valid2.body).not.toContain('<cas:attributes>');
      const st = await validate('proxyValidate', { service: svc, ticket: (await ticketFor()).ticket });
      expect(st.body).toContain('<cas:user>cas-alice</cas:user>');
      expect(st.body).not.toContain('<cas:proxies>');
    } finally {
      await manage(ctx, owner, '/api/v1/manage/app/cas/update', { appId: cas.appId, allowProxy: false });
    }
  });
});

describe('§2.5.4 proxy callback addresses', () => {
  it.each([
    ['plain http away from the loopback address', 'http://cas.example/oa/pgt'],
    ['an address the outbound rule refuses (cloud metadata)', 'https://169.254.169.254/oa/pgt'],
  ])('refuses %s with INVALID_PROXY_CALLBACK, though a pattern allows it', async (_name, pgtUrl) => {
    const patterns = [
      { kind: 'prefix', value: `${service.base}/oa` },
      { kind: 'prefix', value: 'http://cas.example/oa' },
      { kind: 'prefix', value: 'https://169.254.169.254/oa' },
    ];
    await manage(ctx, owner, '/api/v1/manage/app/cas/update', {
      appId: cas.appId,
      allowProxy: true,
      servicePatterns: patterns,
    });
    try {
      const answer = await validate('serviceValidate', {
        service: svc,
        ticket: (await ticketFor()).ticket,
        pgtUrl,
      });
      expect(failureCode(answer.body)).toBe('INVALID_PROXY_CALLBACK');
    } finally {
      await manage(ctx, owner, '/api/v1/manage/app/cas/update', {
        appId: cas.appId,
        allowProxy: false,
        servicePatterns: patterns.slice(0, 1),
      });
    }
  });
});

describe('§2.3 /logout and single logout (appendix C)', () => {
  it('signs out, posts a logoutRequest naming each validated ticket, and returns to an allowed service', async () => {
    const { jar, ticket } = await ticketFor();
    expect((await validate('serviceValidate', { service: svc, ticket })).body).toContain('<cas:user>');
    const before = service.logouts.length;
    const start = `${cas.serverUrl}/logout?${new URLSearchParams({ service: svc })}`;
    const confirm = await travel(jar, await request(jar, start), start);
    expect(confirm.url).toContain('/oidc/session/end');
    const form = /<form id="op.logoutForm" method="post" action="([^"]+)">([\s\S]*?)<\/form>/.exec(
      confirm.html,
    );
    const action = absolute(confirm.url, decodeEntities(form?.[1] ?? ''));
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(form?.[2] ?? '')?.[1] ?? '';
    const done = await travel(jar, await post(jar, action, { xsrf, logout: 'yes' }), action);
    expect(done.url).toBe(svc);
    const sent = service.logouts.slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.path).toBe('/oa/');
    expect(sent[0]?.body).toContain(`<samlp:SessionIndex>${ticket}</samlp:SessionIndex>`);
    // The session is over: /login asks for the password again.
    expect((await browseCas(ctx, jar, loginUrl({ service: svc }))).url).toContain('/interaction/');
  });

  it('/logout with a service no application allows stays at Tessera', async () => {
    const response = await request(new CookieJar(), `${cas.serverUrl}/logout?service=https://evil.example/`);
    expect(response.headers.get('location')).toBe(`${ctx.baseUrl}/oidc/session/end`);
  });
});
