import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { App } from '../../db/schema.ts';
import { insertLoginEvent } from '../signin/login-events.repo.ts';

/** Why a person may not use an application (login failure causes of the same names). */
export type AppAccessRefusal = 'app_disabled' | 'app_not_assigned' | 'app_assignment_expired';

/**
 * Who may use an application, decided the same way at every hop (authorization, code exchange,
 * refresh, userinfo, portal launch):
 * - the app must be opened (not waiting to be configured, not disabled);
 * - the person must be an enabled user of the app's company;
 * - under default access "prohibit all", the person needs an assignment, and an assignment
 *   with an expiry counts only until then. Under "allow all" every enabled user may use it, and
 *   assignments only matter once the administrator switches to "prohibit all".
 */
export async function appAccessRefusal(
  db: Db,
  app: Pick<App, 'id' | 'company_id' | 'status' | 'default_access'>,
  accountId: string,
): Promise<AppAccessRefusal | null> {
  if (app.status !== 'opened') return 'app_disabled';
  const row = await db
    .selectFrom('company_members as m')
    .leftJoin('app_assignments as a', (join) =>
      join.on('a.app_id', '=', app.id).onRef('a.account_id', '=', 'm.account_id'),
    )
    .select(['m.status', 'a.account_id as assigned', sql<boolean>`a.expires_at <= now()`.as('expired')])
    .where('m.company_id', '=', app.company_id)
    .where('m.account_id', '=', accountId)
    .executeTakeFirst();
  if (row?.status !== 'enabled') return 'app_not_assigned';
  if (app.default_access === 'allow_all') return null;
  if (!row.assigned) return 'app_not_assigned';
  return row.expired ? 'app_assignment_expired' : null;
}

/** The applications a person may open now, across every company they are an enabled user of. */
export function appsOpenTo(db: Db, accountId: string): Promise<App[]> {
  return db
    .selectFrom('apps')
    .innerJoin('company_members as m', (join) =>
      join.onRef('m.company_id', '=', 'apps.company_id').on('m.account_id', '=', accountId),
    )
    .selectAll('apps')
    .where('apps.status', '=', 'opened')
    .where('m.status', '=', 'enabled')
    .where((eb) =>
      eb.or([
        eb('apps.default_access', '=', 'allow_all'),
        eb.exists(
          eb
            .selectFrom('app_assignments as a')
            .select('a.app_id')
            .whereRef('a.app_id', '=', 'apps.id')
            .where('a.account_id', '=', accountId)
            .where((e) => e.or([e('a.expires_at', 'is', null), e('a.expires_at', '>', sql<Date>`now()`)])),
        ),
      ]),
    )
    .orderBy('apps.name')
    .orderBy('apps.id')
    .execute();
}

/** `appAccessRefusal` for an application known by id (a deleted one is refused as disabled). */
export async function appAccessById(
  db: Db,
  appId: string,
  accountId: string,
): Promise<AppAccessRefusal | null> {
  const app = await db
    .selectFrom('apps')
    .select(['id', 'company_id', 'status', 'default_access'])
    .where('id', '=', appId)
    .executeTakeFirst();
  return app ? appAccessRefusal(db, app, accountId) : 'app_disabled';
}

/**
 * Writes a use of an application into the sign-in log of the application's company: a sign-in
 * (cause null) or a refusal with its cause.
 */
export async function logAppSignIn(
  db: Db,
  event: {
    companyId: string;
    clientId: string;
    accountId: string;
    /** The person's username when the caller has it at hand (otherwise it is read). */
    username?: string;
    cause: AppAccessRefusal | null;
    ip: string | null;
    userAgent: string | null;
  },
): Promise<void> {
  const username =
    event.username ??
    (await db.selectFrom('accounts').select('username').where('id', '=', event.accountId).executeTakeFirst())
      ?.username;
  await insertLoginEvent(db, {
    companyId: event.companyId,
    accountId: event.accountId,
    identifier: username ?? event.accountId,
    clientId: event.clientId,
    ip: event.ip,
    userAgent: event.userAgent,
    result: event.cause ? 'failure' : 'success',
    failureCause: event.cause,
  });
}

/**
 * Why a person may not use the application behind a client id, logged as a refusal; undefined
 * when they may, or when the client is no application.
 */
export async function appRefusalForClient(
  db: Db,
  input: { clientId: string; accountId: string; ip: string | null; userAgent: string | null },
): Promise<AppAccessRefusal | undefined> {
  const app = await db
    .selectFrom('apps')
    .select(['id', 'company_id', 'status', 'default_access'])
    .where('client_id', '=', input.clientId)
    .executeTakeFirst();
  const cause = app ? await appAccessRefusal(db, app, input.accountId) : null;
  if (!app || !cause) return undefined;
  await logAppSignIn(db, { ...input, companyId: app.company_id, cause });
  return cause;
}

/** The company of the application behind a client id; null for any other client. */
export async function companyOfClient(db: Db, clientId: string): Promise<string | null> {
  const app = await db
    .selectFrom('apps')
    .select('company_id')
    .where('client_id', '=', clientId)
    .executeTakeFirst();
  return app?.company_id ?? null;
}

/** How many clients' companies a server keeps in mind (a few bytes each). */
const CLIENT_COMPANIES_KEPT = 10_000;

/**
 * companyOfClient, remembered: every sign-in page asks it. An application's client id is random,
 * made with the application and never given to another, so the answer for a client id never
 * changes while anything can still sign in through it (a deleted application's client is gone
 * from the provider with it).
 */
export function createClientCompanies(db: Db) {
  const known = new Map<string, string | null>();
  return async (clientId: string): Promise<string | null> => {
    if (known.has(clientId)) return known.get(clientId) ?? null;
    const companyId = await companyOfClient(db, clientId);
    if (known.size >= CLIENT_COMPANIES_KEPT) known.clear();
    known.set(clientId, companyId);
    return companyId;
  };
}
