import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { App } from '../../db/schema.ts';
import { preparedStatement } from '../../lib/prepared.ts';
import { insertLoginEvent } from '../signin/login-events.repo.ts';

/** Why a person may not use an application (login failure causes of the same names). */
export type AppAccessRefusal = 'app_disabled' | 'app_not_assigned' | 'app_assignment_expired';

type AccessApp = Pick<App, 'id' | 'company_id' | 'status' | 'default_access'>;

/** An application of one of the person's companies, with what the rule needs to know of the person. */
interface AccessRow {
  id: string;
  member_status: string;
  /** An assignment reaches the person now (directly, through a department above one of theirs, or a role). */
  granted: boolean;
  /** An assignment reaches the person, expired or not. */
  assigned: boolean;
}

/**
 * The one statement behind every access decision: for each application of the person's
 * companies (or one of them), whether an assignment reaches the person, in three ways:
 * - an assignment of the person;
 * - an assignment of one of their departments or of a department above one (departments keep
 *   only their parent, so the walk goes up from the person's few departments, never down a
 *   large tree);
 * - an assignment of a permission role they are a member of.
 * Of all the assignments that reach them, the latest expiry counts (no expiry: forever).
 */
const accessStatement = (oneApp: boolean) =>
  preparedStatement((_db, params: { accountId: string; appId?: string }) => {
    const live = (alias: string) => sql.raw(`coalesce(${alias}.expires_at, 'infinity'::timestamptz)`);
    return sql<AccessRow & App>`
    with recursive reach (id) as (
      select department_id from department_members where account_id = ${params.accountId}
      union
      select d.parent_id from departments d join reach r on d.id = r.id where d.parent_id is not null
    )
    select p.*, m.status as member_status, until.at > now() as granted, until.at is not null as assigned
    from apps p
    join company_members m on m.company_id = p.company_id and m.account_id = ${params.accountId}
    cross join lateral (select max(g.at) as at from (
      select ${live('a')} as at from app_assignments a
        where a.app_id = p.id and a.account_id = ${params.accountId}
      union all
      select ${live('ad')} from app_department_assignments ad
        where ad.app_id = p.id and ad.department_id in (select id from reach)
      union all
      select ${live('ar')} from app_role_assignments ar
        join permission_role_members rm on rm.role_id = ar.role_id and rm.account_id = ${params.accountId}
        where ar.app_id = p.id
    ) g) until
    ${oneApp ? sql`where p.id = ${params.appId}` : sql``}
    order by p.name, p.id`;
  });
const accessOfOneApp = accessStatement(true);
const accessOfAllApps = accessStatement(false);

/**
 * The rule, the same at every hop (authorization, code exchange, refresh, userinfo,
 * introspection, SAML responses, portal launches and the My apps list):
 * - the app must be opened (not waiting to be configured, not disabled);
 * - the person must be an enabled user of the app's company;
 * - under default access "prohibit all", an assignment must reach the person (accessStatement),
 *   each counting until its expiry. Under "allow all" every enabled user may use the app, and
 *   assignments only matter once the administrator switches to "prohibit all".
 */
function refusalOf(app: AccessApp, row: AccessRow | undefined): AppAccessRefusal | null {
  if (app.status !== 'opened') return 'app_disabled';
  if (row?.member_status !== 'enabled') return 'app_not_assigned';
  if (app.default_access === 'allow_all' || row.granted) return null;
  return row.assigned ? 'app_assignment_expired' : 'app_not_assigned';
}

/** Why the person may not use the application now; null when they may. */
export async function appAccessRefusal(
  db: Db,
  app: AccessApp,
  accountId: string,
): Promise<AppAccessRefusal | null> {
  if (app.status !== 'opened') return 'app_disabled';
  const { rows } = await db.executeQuery(accessOfOneApp(db, { accountId, appId: app.id }));
  return refusalOf(app, rows[0]);
}

/** The applications a person may open now, across every company they are an enabled user of. */
export async function appsOpenTo(db: Db, accountId: string): Promise<App[]> {
  const { rows } = await db.executeQuery(accessOfAllApps(db, { accountId }));
  return rows
    .filter((row) => refusalOf(row, row) === null)
    .map(({ member_status: _s, granted: _g, assigned: _a, ...app }) => app);
}

/** Of the given people, those who may not use the application now (whose tokens for it must end). */
export async function refusedAmong(db: Db, app: AccessApp, accountIds: readonly string[]) {
  const refused: string[] = [];
  for (const accountId of accountIds) if (await appAccessRefusal(db, app, accountId)) refused.push(accountId);
  return refused;
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
  // A sign-in to the application through a session is a success in the log like one at the
  // sign-in page, and is counted with the person's sign-ins (the users list) the same way.
  if (!event.cause)
    await db
      .updateTable('accounts')
      .set((eb) => ({ login_count: eb('login_count', '+', 1), last_login_at: sql<Date>`now()` }))
      .where('id', '=', event.accountId)
      .execute();
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
