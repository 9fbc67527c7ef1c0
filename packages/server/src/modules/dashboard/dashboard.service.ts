import {
  type DashboardWindow,
  dashboardWindowDays,
  type Language,
  type SignInMark,
  serverPhrases,
  signInMarks,
} from '@tessera/contract';
import type { Db } from '../../db/database.ts';
import { AppError } from '../../lib/errors.ts';
import { getSafetySettings } from '../safety/safety.repo.ts';
import * as repo from './dashboard.repo.ts';

/** The dashboard of spec §2/§3 (the ten calls of §7 under /api/v1/manage/index/). */

const causeText = (lang: Language, cause: string) =>
  (serverPhrases[lang].loginCauses as Record<string, string>)[cause] ?? cause;

/** An IANA time zone name the server (and PostgreSQL) knows; anything else is refused. */
function assertTimeZone(timeZone: string) {
  try {
    new Intl.DateTimeFormat('en', { timeZone });
  } catch {
    throw new AppError('log.time_zone_invalid');
  }
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(timeZone)) throw new AppError('log.time_zone_invalid');
}

const windowOf = (companyId: string, input: { window: DashboardWindow; timeZone: string }): repo.Window => {
  assertTimeZone(input.timeZone);
  return { companyId, days: dashboardWindowDays[input.window], timeZone: input.timeZone };
};

const range = (bounds: { from: Date; to: Date }) => ({
  from: bounds.from.toISOString(),
  to: bounds.to.toISOString(),
});

const RECENT: DashboardWindow = 'three_days';

export function createDashboardService(deps: { db: Db }) {
  const { db } = deps;

  async function recent(companyId: string, result: 'success' | 'failure', limit: number, lang: Language) {
    const w = windowOf(companyId, { window: RECENT, timeZone: 'UTC' });
    const [rows, bounds] = await Promise.all([
      repo.recentSignIns(db, w, result, limit),
      repo.windowBounds(db, w),
    ]);
    return {
      ...range(bounds),
      list: rows.map((row) => ({
        id: row.id,
        time: row.created_at.toISOString(),
        userId: row.account_id,
        username: row.username,
        identifier: row.identifier,
        appName: row.app_name,
        cause: row.failure_cause,
        causeText: row.failure_cause ? causeText(lang, row.failure_cause) : null,
        ip: row.ip,
        place: row.country ? { country: row.country, region: row.region, city: row.city } : null,
        marks: (row.marks ?? []).filter((mark): mark is SignInMark =>
          (signInMarks as readonly string[]).includes(mark),
        ),
      })),
    };
  }

  return {
    userDataOverview: (companyId: string) => repo.userCounts(db, companyId),

    async userLoginTrend(companyId: string, input: { window: DashboardWindow; timeZone: string }) {
      const w = windowOf(companyId, input);
      const [days, bounds] = await Promise.all([repo.loginTrend(db, w), repo.windowBounds(db, w)]);
      return { ...range(bounds), days };
    },

    async userMfaInfo(companyId: string) {
      const [counts, safety] = await Promise.all([
        repo.mfaCounts(db, companyId),
        getSafetySettings(db, companyId),
      ]);
      return { mode: safety.mfa.mode, ...counts, withoutFactor: counts.users - counts.withFactor };
    },

    async appLoginCount(companyId: string, input: { window: DashboardWindow; timeZone: string }) {
      const w = windowOf(companyId, input);
      const [apps, perApp, bounds] = await Promise.all([
        repo.appCounts(db, companyId),
        repo.signInsPerApp(db, w),
        repo.windowBounds(db, w),
      ]);
      return {
        ...range(bounds),
        ...apps,
        signIns: perApp.reduce((sum, app) => sum + app.count, 0),
        top: perApp.slice(0, 3),
      };
    },

    async appLoginTrend(companyId: string, input: { window: DashboardWindow; timeZone: string }) {
      const w = windowOf(companyId, input);
      const top = (await repo.signInsPerApp(db, w)).slice(0, 5);
      const clients = await db
        .selectFrom('apps')
        .select(['id', 'client_id'])
        .where('company_id', '=', companyId)
        .where('id', 'in', top.length ? top.map((app) => app.appId) : [''])
        .execute();
      const clientOf = new Map(clients.map((row) => [row.id, row.client_id]));
      const [rows, days, bounds] = await Promise.all([
        repo.appTrend(
          db,
          w,
          top.map((app) => clientOf.get(app.appId) as string),
        ),
        repo.dayList(db, w),
        repo.windowBounds(db, w),
      ]);
      const counts = new Map(rows.map((row) => [`${row.day} ${row.clientId}`, row.count]));
      return {
        ...range(bounds),
        apps: top.map(({ appId, name }) => ({ appId, name })),
        days: days.map((day) => ({
          day,
          counts: top.map((app) => counts.get(`${day} ${clientOf.get(app.appId)}`) ?? 0),
        })),
      };
    },

    async appLoginCountRatio(companyId: string, input: { window: DashboardWindow; timeZone: string }) {
      const w = windowOf(companyId, input);
      const [perApp, bounds] = await Promise.all([repo.signInsPerApp(db, w), repo.windowBounds(db, w)]);
      const total = perApp.reduce((sum, app) => sum + app.count, 0);
      const top = perApp.slice(0, 5);
      return {
        ...range(bounds),
        total,
        list: top.map((app) => ({ ...app, share: total ? app.count / total : 0 })),
        others: total - top.reduce((sum, app) => sum + app.count, 0),
      };
    },

    newFailList: (companyId: string, limit: number, lang: Language) =>
      recent(companyId, 'failure', limit, lang),
    newLoginList: (companyId: string, limit: number, lang: Language) =>
      recent(companyId, 'success', limit, lang),

    /** `alerts`: whether the caller may read the spikes, which name people (log data). */
    async failTrend(
      companyId: string,
      input: { window: DashboardWindow; timeZone: string },
      lang: Language,
      readable: { alerts: boolean },
    ) {
      const w = windowOf(companyId, input);
      const [rows, days, bounds, alerts] = await Promise.all([
        repo.failuresPerDayAndCause(db, w),
        repo.dayList(db, w),
        repo.windowBounds(db, w),
        readable.alerts ? repo.recentAlerts(db, companyId) : [],
      ]);
      const perCause = new Map<string, number>();
      for (const row of rows) perCause.set(row.cause, (perCause.get(row.cause) ?? 0) + row.count);
      return {
        ...range(bounds),
        causes: [...perCause.entries()]
          .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
          .map(([cause, count]) => ({ cause, causeText: causeText(lang, cause), count })),
        days: days.map((day) => {
          const byCause: Record<string, number> = {};
          let total = 0;
          for (const row of rows)
            if (row.day === day) {
              byCause[row.cause] = row.count;
              total += row.count;
            }
          return { day, total, byCause };
        }),
        alerts: alerts.map((alert) => ({
          id: alert.id,
          time: alert.created_at.toISOString(),
          cause: alert.cause,
          causeText: causeText(lang, alert.cause),
          username: alert.username ?? alert.identifier,
          count: alert.count,
          threshold: alert.threshold,
          windowMinutes: alert.window_minutes,
        })),
      };
    },

    async loginHotspot(
      companyId: string,
      input: { window: DashboardWindow; timeZone: string; scope: 'world' | 'china' },
    ) {
      const w = windowOf(companyId, input);
      const [rows, bounds] = await Promise.all([repo.hotspots(db, w, input.scope), repo.windowBounds(db, w)]);
      return {
        ...range(bounds),
        list: rows.filter((row) => row.key !== null).map((row) => ({ ...row, key: row.key as string })),
        unplaced: rows.find((row) => row.key === null)?.count ?? 0,
        source: 'IP geolocation by DB-IP (db-ip.com), CC BY 4.0',
      };
    },
  };
}

export type DashboardService = ReturnType<typeof createDashboardService>;
