import {
  type ExportFormat,
  type Language,
  type LogRange,
  logLimits,
  type SignInMark,
  serverPhrases,
  signInMarks,
} from '@tessera/contract';
import type { Db } from '../../db/database.ts';
import { AppError } from '../../lib/errors.ts';
import { streamCsv, streamXlsx } from '../../lib/sheet-export.ts';
import { insertAuditEvent } from '../audit/audit.repo.ts';
import * as repo from './log.repo.ts';
import { exportHeader, exportSheetName, exportText } from './log-export.ts';

const DAY_MS = 86_400_000;
const rangeDays: Record<Exclude<LogRange, 'custom'>, number> = { month: 30, three_months: 90 };

/** The time range of a request: a range of spec §9 ending now, or a custom one (both ends given). */
export function resolveRange(
  input: { range: LogRange; from?: string; to?: string },
  now = new Date(),
): repo.TimeRange {
  if (input.range !== 'custom')
    return { from: new Date(now.getTime() - rangeDays[input.range] * DAY_MS), to: now };
  if (!input.from || !input.to) throw new AppError('log.range_invalid');
  const from = new Date(input.from);
  const to = new Date(input.to);
  if (!(from < to)) throw new AppError('log.range_invalid');
  if (to.getTime() - from.getTime() > logLimits.customRangeDays * DAY_MS)
    throw new AppError('log.range_too_long', { days: logLimits.customRangeDays });
  return { from, to };
}

const causeText = (lang: Language, cause: string | null) =>
  cause ? ((serverPhrases[lang].loginCauses as Record<string, string>)[cause] ?? cause) : null;

const knownMarks = (marks: string[] | null): SignInMark[] =>
  (marks ?? []).filter((mark): mark is SignInMark => (signInMarks as readonly string[]).includes(mark));

export const toSignInRow = (row: repo.SignInRow, lang: Language) => ({
  id: row.id,
  time: row.created_at.toISOString(),
  userId: row.account_id,
  username: row.username,
  identifier: row.identifier,
  appId: row.app_id,
  appName: row.app_name,
  clientId: row.client_id,
  result: row.result,
  cause: row.failure_cause,
  causeText: causeText(lang, row.failure_cause),
  ip: row.ip,
  place: row.country ? { country: row.country, region: row.region, city: row.city } : null,
  browser: row.browser,
  os: row.os,
  marks: knownMarks(row.marks),
  nas:
    row.nas_ip || row.calling_station_id
      ? { ip: row.nas_ip, callingStationId: row.calling_station_id }
      : null,
  method: row.method,
});

const toAdminRow = (row: repo.AdminRow) => ({
  id: row.id,
  time: row.created_at.toISOString(),
  actorId: row.actor_account_id,
  // A programmatic access account acts as `api:<id>` (http/bind.ts), a SCIM token as `scim:<name>` (modules/scim).
  actorName:
    row.actor_name ??
    (row.actor_account_id?.startsWith('api:') || row.actor_account_id?.startsWith('scim:')
      ? row.actor_account_id
      : null),
  action: row.action,
  targetType: row.target_type,
  targetId: row.target_id,
  before: row.before ?? null,
  after: row.after ?? null,
  ip: row.ip,
});

interface PageRequest {
  page: number;
  pageSize: number;
  order: repo.Order;
}

type SignInRequest = { range: LogRange; from?: string; to?: string } & {
  userId?: string;
  appId?: string;
  result?: 'success' | 'failure';
  cause?: string;
  mark?: SignInMark;
};
type AdminRequest = { range: LogRange; from?: string; to?: string } & { actorId?: string; action?: string };

function offsetOf(page: PageRequest) {
  const offset = (page.page - 1) * page.pageSize;
  if (offset >= logLimits.maxOffset) throw new AppError('log.page_too_deep', { max: logLimits.maxOffset });
  return offset;
}

export interface Actor {
  accountId: string;
  ip: string;
}

export function createLogService(deps: { db: Db }) {
  const { db } = deps;

  async function signInFilterOf(companyId: string, request: SignInRequest): Promise<repo.SignInFilter> {
    return {
      accountId: request.userId,
      clientId: request.appId ? await repo.findAppClientId(db, companyId, request.appId) : undefined,
      result: request.result,
      cause: request.cause,
      mark: request.mark,
    };
  }

  async function signIns(companyId: string, request: SignInRequest & PageRequest, lang: Language) {
    const range = resolveRange(request);
    const offset = offsetOf(request);
    const filter = await signInFilterOf(companyId, request);
    const [rows, count] = await Promise.all([
      repo.findSignIns(db, companyId, range, filter, {
        order: request.order,
        limit: request.pageSize,
        offset,
      }),
      repo.countSignIns(db, companyId, range, filter, logLimits.countCap),
    ]);
    return {
      list: rows.map((row) => toSignInRow(row, lang)),
      ...count,
      from: range.from.toISOString(),
      to: range.to.toISOString(),
    };
  }

  async function adminEvents(companyId: string, request: AdminRequest & PageRequest) {
    const range = resolveRange(request);
    const offset = offsetOf(request);
    const filter = { actorId: request.actorId, action: request.action };
    const [rows, count] = await Promise.all([
      repo.findAdminEvents(db, companyId, range, filter, {
        order: request.order,
        limit: request.pageSize,
        offset,
      }),
      repo.countAdminEvents(db, companyId, range, filter, logLimits.countCap),
    ]);
    return {
      list: rows.map(toAdminRow),
      ...count,
      from: range.from.toISOString(),
      to: range.to.toISOString(),
    };
  }

  /**
   * The rows of one view as a file, read in batches of 1 000 by time and id and written as they
   * come. The count is checked first, so an export too large is refused before anything is sent.
   */
  async function exportRows(
    actor: Actor,
    companyId: string,
    request: ((SignInRequest & { view: 'signin' }) | (AdminRequest & { view: 'admin' })) & {
      format: ExportFormat;
      language: Language;
      order: repo.Order;
    },
  ) {
    const range = resolveRange(request);
    const lang = request.language;
    const t = exportText(lang);
    const batch = 1_000;
    let rows: AsyncIterable<string[]>;
    if (request.view === 'signin') {
      const filter = await signInFilterOf(companyId, request);
      const { totalCapped } = await repo.countSignIns(db, companyId, range, filter, logLimits.exportRows);
      if (totalCapped) throw new AppError('log.export_too_large', { max: logLimits.exportRows });
      rows = (async function* () {
        let after: repo.After | undefined;
        for (;;) {
          const page = await repo.findSignIns(db, companyId, range, filter, {
            order: request.order,
            limit: batch,
            after,
          });
          for (const row of page) {
            const view = toSignInRow(row, lang);
            yield [
              view.time,
              view.username ?? '',
              view.identifier,
              view.appName ?? view.clientId ?? '',
              view.result === 'success' ? t.success : t.failure,
              view.causeText ?? '',
              view.ip ?? '',
              view.place?.country ?? '',
              view.place?.region ?? '',
              view.place?.city ?? '',
              view.browser ?? '',
              view.os ?? '',
              view.marks.map((mark) => t.marks[mark]).join('; '),
            ];
          }
          const last = page.at(-1);
          if (!last || page.length < batch) return;
          after = { time: last.created_at, id: last.id };
        }
      })();
    } else {
      const filter = { actorId: request.actorId, action: request.action };
      const { totalCapped } = await repo.countAdminEvents(db, companyId, range, filter, logLimits.exportRows);
      if (totalCapped) throw new AppError('log.export_too_large', { max: logLimits.exportRows });
      rows = (async function* () {
        let after: repo.After | undefined;
        for (;;) {
          const page = await repo.findAdminEvents(db, companyId, range, filter, {
            order: request.order,
            limit: batch,
            after,
          });
          for (const row of page) {
            const view = toAdminRow(row);
            yield [
              view.time,
              view.actorName ?? view.actorId ?? '',
              view.action,
              view.targetType,
              view.targetId ?? '',
              view.before === null ? '' : JSON.stringify(view.before),
              view.after === null ? '' : JSON.stringify(view.after),
              view.ip ?? '',
            ];
          }
          const last = page.at(-1);
          if (!last || page.length < batch) return;
          after = { time: last.created_at, id: last.id };
        }
      })();
    }
    // An export of the log is itself an administration event (who took the data out, which rows).
    await insertAuditEvent(db, {
      companyId,
      actorAccountId: actor.accountId,
      action: 'log.export',
      targetType: 'log',
      targetId: request.view,
      after: {
        view: request.view,
        format: request.format,
        from: range.from.toISOString(),
        to: range.to.toISOString(),
      },
      ip: actor.ip,
    });
    const header = exportHeader(lang, request.view);
    const date = new Date().toISOString().slice(0, 10);
    const name = `${exportSheetName(lang, request.view)}-${date}.${request.format}`;
    return request.format === 'csv'
      ? { filename: name, contentType: 'text/csv; charset=utf-8', chunks: streamCsv(header, rows) }
      : {
          filename: name,
          contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
          chunks: streamXlsx(exportSheetName(lang, request.view), header, rows),
        };
  }

  async function settings(companyId: string) {
    return { retentionDays: await repo.findRetentionDays(db, companyId) };
  }

  async function updateSettings(actor: Actor, companyId: string, retentionDays: number) {
    return db.transaction().execute(async (trx) => {
      const before = await repo.findRetentionDays(trx, companyId);
      await repo.saveRetentionDays(trx, companyId, retentionDays);
      await insertAuditEvent(trx, {
        companyId,
        actorAccountId: actor.accountId,
        action: 'log.retention.update',
        targetType: 'company',
        targetId: companyId,
        before: { retentionDays: before },
        after: { retentionDays },
        ip: actor.ip,
      });
      return { retentionDays };
    });
  }

  return {
    signIns,
    adminEvents,
    adminActions: async (companyId: string) => ({ list: await repo.findAdminActions(db, companyId) }),
    exportRows,
    settings,
    updateSettings,
  };
}

export type LogService = ReturnType<typeof createLogService>;
