import { interpolate } from '@tessera/contract';
import { type AccountBindingsSection, portalPhrases, renderErrorPage } from '@tessera/portal';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Account } from '../../../db/schema.ts';
import { translateError } from '../../../lib/i18n.ts';
import { insertAuditEvent } from '../../audit/audit.repo.ts';
import { csrfOf, mfaFormSender, sendMfaPage } from '../../mfa/mfa.portal.routes.ts';
import { userCentreContext } from '../../portal/portal-brand.ts';
import * as repo from '../identity-source.repo.ts';
import { SourceFailure } from '../source-failure.ts';
import { secretPurpose } from '../source-settings.ts';
import { authorizeUrl, exchangeCode } from './providers.ts';
import { callbackUrlOf } from './scan-settings.ts';
import {
  codeOf,
  isScanSource,
  type ScanDeps,
  type ScanSourceRow,
  scanSourceOf,
} from './scan-signin.routes.ts';
import { consumeScanState, createScanState } from './scan-states.repo.ts';

/**
 * The user centre's third-party accounts (spec §6: an employee binds third-party accounts): for
 * every enabled DingTalk, WeChat and WeCom source of the person's companies, bind (scan, and the
 * provider's stable id is linked to them) or unbind. Forms carry the user-centre CSRF token; the
 * scan's state is bound to the user-centre session that started it.
 */

const ACCOUNT_PATH = '/portal/account';
export const BIND_PATH = '/portal/account/bindings/bind';
export const UNBIND_PATH = '/portal/account/bindings/unbind';
/** The account page's notices after a binding change. */
export const BINDING_NOTICES = { bound: 'scan_bound', unbound: 'scan_unbound' } as const;

type SignedIn = (request: FastifyRequest) => Promise<{ sessionId: string; account: Account } | undefined>;

export function scanBindingRoutes(
  app: FastifyInstance,
  deps: Pick<ScanDeps, 'db' | 'sealer' | 'publicUrl' | 'urls'> & { signedIn: SignedIn },
) {
  const { db } = deps;
  const pageContext = (request: FastifyRequest) => userCentreContext(request);

  /** The enabled scan sources of the person's companies, with their company's name. */
  async function sourcesOf(accountId: string) {
    const rows = await db
      .selectFrom('identity_sources as s')
      .innerJoin('company_members as m', 'm.company_id', 's.company_id')
      .innerJoin('companies as c', 'c.id', 's.company_id')
      .select(['s.id', 'c.name as company_name'])
      .where('m.account_id', '=', accountId)
      .where('s.enabled', '=', true)
      .where('s.type', 'in', ['dingtalk', 'weixin', 'work_weixin'])
      .orderBy('c.name')
      .orderBy('s.created_at')
      .execute();
    const sources = await Promise.all(
      rows.map(async (row) => ({ source: await repo.findSourceById(db, row.id), company: row.company_name })),
    );
    return sources.filter((entry): entry is { source: ScanSourceRow; company: string } =>
      isScanSource(entry.source),
    );
  }

  /** The account page's section. */
  async function section(account: Account, sessionId: string): Promise<AccountBindingsSection> {
    const sources = await sourcesOf(account.id);
    const links = await db
      .selectFrom('identity_links')
      .select(['source_id', 'external_name'])
      .where('account_id', '=', account.id)
      .execute();
    const linked = new Map(links.map((link) => [link.source_id, link.external_name]));
    return {
      bindings: sources.map(({ source, company }) => ({
        sourceId: source.id,
        type: source.type,
        sourceName: source.name,
        companyName: company,
        bound: linked.has(source.id) ? { name: linked.get(source.id) ?? null } : null,
      })),
      bindAction: BIND_PATH,
      unbindAction: UNBIND_PATH,
      csrfToken: csrfOf(deps.sealer, sessionId),
    };
  }

  const problem = (request: FastifyRequest, reply: FastifyReply, status: number, message: string) =>
    sendMfaPage(reply, status, renderErrorPage(pageContext(request), { message }));

  /** The form's source, if it is one the person may bind. */
  async function chosenSource(accountId: string, sourceId: unknown) {
    const found = (await sourcesOf(accountId)).find((entry) => entry.source.id === String(sourceId ?? ''));
    return found?.source;
  }

  /** The signed-in person of a user-centre form (its CSRF token checked) and the source it names. */
  async function formSender(
    request: FastifyRequest<{ Body: Record<string, string | undefined> }>,
    reply: FastifyReply,
  ) {
    const current = await mfaFormSender(request, reply, {
      sealer: deps.sealer,
      signedIn: deps.signedIn,
      pageContext: pageContext(request),
    });
    if (!current) return undefined;
    return { current, source: await chosenSource(current.account.id, request.body?.sourceId) };
  }

  app.post<{ Body: Record<string, string | undefined> }>(BIND_PATH, async (request, reply) => {
    const sender = await formSender(request, reply);
    if (!sender) return reply;
    const { current, source } = sender;
    if (!source) return reply.redirect(ACCOUNT_PATH, 303);
    const state = await createScanState(db, {
      sourceId: source.id,
      purpose: 'bind',
      sessionId: current.sessionId,
    });
    return reply.redirect(
      authorizeUrl(scanSourceOf(source), deps.urls, callbackUrlOf(deps.publicUrl, source.id), state),
      303,
    );
  });

  /** The provider came back with a binding's code (called by the shared callback, scan-signin.routes.ts). */
  async function finishBinding(request: FastifyRequest, reply: FastifyReply, stateValue: string) {
    const t = portalPhrases[request.lang].scan;
    const current = await deps.signedIn(request);
    const consumed = current && (await consumeScanState(db, stateValue, { sessionId: current.sessionId }));
    const source = consumed && (await chosenSource(current.account.id, consumed.source_id));
    if (!current || !source) return problem(request, reply, 400, t.expired);
    const provider = t.providers[source.type] ?? source.type;
    const query = request.query as { code?: string; authCode?: string };
    let identity: Awaited<ReturnType<typeof exchangeCode>>;
    try {
      const secret = source.secret_sealed
        ? deps.sealer.open(source.secret_sealed, secretPurpose(source.id))
        : '';
      identity = await exchangeCode(scanSourceOf(source), secret, codeOf(query), deps.urls);
    } catch (error) {
      if (!(error instanceof SourceFailure)) throw error;
      const detail = translateError(request.lang, error.reason, error.params);
      return problem(request, reply, 502, interpolate(t.failed, { provider, detail }));
    }
    const holder = await repo.findLinkByExternalId(db, source.id, identity.externalId);
    if (holder && holder.account_id !== current.account.id) {
      const company = await db
        .selectFrom('companies')
        .select('name')
        .where('id', '=', source.company_id)
        .executeTakeFirst();
      return problem(
        request,
        reply,
        409,
        interpolate(t.takenByOther, { provider, company: company?.name ?? '' }),
      );
    }
    await db.transaction().execute(async (trx) => {
      await repo.deleteLink(trx, source.id, current.account.id);
      await repo.insertLink(trx, {
        source_id: source.id,
        company_id: source.company_id,
        account_id: current.account.id,
        external_id: identity.externalId,
        external_dn: null,
        external_name: identity.name,
      });
      await insertAuditEvent(trx, {
        companyId: source.company_id,
        actorAccountId: current.account.id,
        action: 'identity_source.bind',
        targetType: 'identity_source',
        targetId: source.id,
        after: { accountId: current.account.id, name: identity.name },
        ip: request.ip,
      });
    });
    return reply.redirect(`${ACCOUNT_PATH}?notice=${BINDING_NOTICES.bound}`, 303);
  }

  app.post<{ Body: Record<string, string | undefined> }>(UNBIND_PATH, async (request, reply) => {
    const sender = await formSender(request, reply);
    if (!sender) return reply;
    const { current, source } = sender;
    // Only scan bindings are the person's to undo; a directory link is the company's.
    if (source && (await repo.deleteLink(db, source.id, current.account.id)))
      await insertAuditEvent(db, {
        companyId: source.company_id,
        actorAccountId: current.account.id,
        action: 'identity_source.unbind',
        targetType: 'identity_source',
        targetId: source.id,
        after: { accountId: current.account.id },
        ip: request.ip,
      });
    return reply.redirect(`${ACCOUNT_PATH}?notice=${BINDING_NOTICES.unbound}`, 303);
  });

  return { section, finishBinding };
}
