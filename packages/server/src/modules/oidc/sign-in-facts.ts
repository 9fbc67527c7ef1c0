import { type RawBuilder, sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { ACCOUNT_COLUMNS, type Account } from '../../db/schema.ts';
import { preparedStatement } from '../../lib/prepared.ts';
import { UNUSABLE_PASSWORD_HASH } from '../account/password.ts';
import { type MfaService, OTP_TYPES } from '../mfa/mfa.service.ts';
import { type CompanyMfaPolicy, type MfaRequirement, requirementOfPolicies } from '../mfa/mfa-requirement.ts';
import { type GeneralSafety, getSafetySettings, mergeSafety } from '../safety/safety.repo.ts';
import type { Prefetch } from '../signin/signin-attempt.ts';

/**
 * What deciding the sign-in steps needs to know about a person (sign-in-steps.ts): the MFA
 * policies of their companies, their home company's password rules, the kinds of their bound
 * factors. The password form reads them with the account, in the attempt's first statement
 * (SignInAttempt.prefetch), so that the steps after a right password cost no query; elsewhere
 * the steps ask the database themselves.
 */
export interface SignInFacts {
  /** The person's companies (enabled memberships, and the home company as a member's) and their MFA settings. */
  policies: CompanyMfaPolicy[];
  /** The home company's general safety settings (the defaults without one). */
  homeGeneral: GeneralSafety;
  /** The kinds of the factors the person has bound. */
  boundTypes: string[];
  /**
   * The bound factors themselves (id, kind, name), oldest first, as MfaService.boundFactors lists
   * them: read by accountWithFacts for the pages of the steps, not by the password form.
   */
  boundFactors?: BoundFactorFact[];
}

export interface BoundFactorFact {
  id: string;
  type: string;
  name: string;
}

/**
 * The facts as one JSON value of the account's columns. The companies are those of
 * MfaService.requirementFor: the enabled memberships with their roles, and the home company
 * with role `member` when it is not one of them (signInFactsOf adds it).
 */
export const signInFactsQuery: Prefetch = (account) => factsObject(account, sql``);

/** signInFactsQuery's object with `more` (pairs of name and value, each after a comma) at its end. */
const factsObject = (account: Parameters<Prefetch>[0], more: RawBuilder<unknown>) => sql`json_build_object(
  'memberships', (select json_agg(json_build_object('company_id', m.company_id, 'role', m.role, 'mfa', cs.mfa))
    from company_members m left join company_safety cs on cs.company_id = m.company_id
    where m.account_id = ${account.id} and m.status = 'enabled'),
  'home_company_id', ${account.homeCompanyId},
  'home_mfa', ${account.homeSafety.mfa},
  'home_general', ${account.homeSafety.general},
  'bound_types', array(select f.type from mfa_factors f where f.account_id = ${account.id} and f.status = 'bound')${more})`;

/** The facts with the bound factors themselves (SignInFacts.boundFactors). */
const stepFactsQuery: Prefetch = (account) =>
  factsObject(
    account,
    sql`, 'bound_factors', (select coalesce(json_agg(json_build_object('id', f.id, 'type', f.type, 'name', f.name)
      order by f.created_at, f.id), '[]') from mfa_factors f where f.account_id = ${account.id} and f.status = 'bound')`,
  );

const accountWithFactsStatement = preparedStatement<{ id: string }, Account & { facts: unknown }>((db, p) =>
  db
    .selectFrom('accounts as a')
    .leftJoin('company_safety as s', 's.company_id', 'a.home_company_id')
    .select(ACCOUNT_COLUMNS.map((column) => `a.${column}` as const))
    .select(
      stepFactsQuery({
        id: sql<string>`a.id`,
        homeCompanyId: sql<string | null>`a.home_company_id`,
        homeSafety: { general: sql<unknown>`s.general`, mfa: sql<unknown>`s.mfa` },
      }).as('facts'),
    )
    .where('a.id', '=', p.id),
);

/**
 * The account as it is now, with the facts its steps decide on (and its bound factors), in one
 * statement: the pages and submissions of the steps after the first factor read them once per
 * request and hand them to the step's `applies`, `render` and `submit`.
 */
export async function accountWithFacts(
  db: Db,
  accountId: string,
): Promise<{ account: Account; facts: SignInFacts | undefined } | undefined> {
  const { rows } = await db.executeQuery(accountWithFactsStatement(db, { id: accountId }));
  const row = rows[0];
  if (!row) return undefined;
  const { facts, ...account } = row;
  return { account, facts: signInFactsOf(facts) };
}

interface StoredFacts {
  memberships: { company_id: string; role: string; mfa: unknown }[] | null;
  home_company_id: string | null;
  home_mfa: unknown;
  home_general: unknown;
  bound_types: string[];
  bound_factors?: BoundFactorFact[];
}

/** The facts from what signInFactsQuery selected; undefined when it selected none. */
export function signInFactsOf(value: unknown): SignInFacts | undefined {
  const stored = value as StoredFacts | null | undefined;
  if (!stored || !Array.isArray(stored.bound_types)) return undefined;
  const memberships = stored.memberships ?? [];
  const policies = memberships.map((m) => ({ role: m.role, mfa: mergeSafety(null, m.mfa).mfa }));
  const home = stored.home_company_id;
  if (home && !memberships.some((m) => m.company_id === home))
    policies.push({ role: 'member', mfa: mergeSafety(null, stored.home_mfa).mfa });
  return {
    policies,
    homeGeneral: mergeSafety(stored.home_general, null).general,
    boundTypes: stored.bound_types,
    ...(Array.isArray(stored.bound_factors) ? { boundFactors: stored.bound_factors } : {}),
  };
}

/** Whether the account's password is older than its home company's change cycle (0: never). */
export async function passwordExpired(
  db: Db,
  account: Account,
  facts?: SignInFacts,
  now = new Date(),
): Promise<boolean> {
  if (!account.home_company_id || account.password_hash === UNUSABLE_PASSWORD_HASH) return false;
  const general = facts?.homeGeneral ?? (await getSafetySettings(db, account.home_company_id)).general;
  const days = general.password.changeCycleDays;
  if (!days) return false;
  const changedAt = account.password_changed_at;
  return changedAt.getTime() + days * 86_400_000 <= now.getTime();
}

/**
 * The second-factor rules of a sign-in: the account's companies' (MfaService.requirementFor),
 * made `required` when the application asked for multi-factor authentication; a person whose
 * companies allow no code kind then binds an authenticator app (OTP) as any company would allow,
 * or a passkey or a key when they allow those (sign-in-binding.ts).
 *
 * Whatever the person bound before their companies chose other kinds keeps proving them, so
 * that the password alone never adds a factor to an account that has one: an authenticator app
 * (OTP stands in), and a passkey where keys only are allowed.
 */
export async function requirementOfSignIn(
  mfa: MfaService,
  account: Account,
  context: { mfaRequested?: boolean } = {},
  facts?: SignInFacts,
): Promise<MfaRequirement> {
  const base = facts ? requirementOfPolicies(facts.policies) : await mfa.requirementFor(account);
  const requirement: MfaRequirement =
    !context.mfaRequested || base.mode === 'required'
      ? base
      : base.types.length
        ? { ...base, mode: 'required' }
        : { ...base, mode: 'required', types: [...OTP_TYPES], otpStandsIn: true };
  if (requirement.mode !== 'required' || !requirement.otpStandsIn || requirement.fido2) return requirement;
  const passkeyBound = await hasBoundFactor(mfa, account.id, ['fido2'], facts);
  return passkeyBound ? { ...requirement, fido2: true } : requirement;
}

/** The person's bound factors of these kinds: from the facts when they hold them. */
export async function boundFactorsOf(
  mfa: MfaService,
  accountId: string,
  kinds: readonly string[],
  facts?: SignInFacts,
): Promise<BoundFactorFact[]> {
  if (facts?.boundFactors) return facts.boundFactors.filter((f) => kinds.includes(f.type));
  return mfa.boundFactors(accountId, kinds);
}

/** Whether the person has bound a factor of one of these kinds. */
export async function hasBoundFactor(
  mfa: MfaService,
  accountId: string,
  kinds: readonly string[],
  facts?: SignInFacts,
): Promise<boolean> {
  if (facts) return facts.boundTypes.some((type) => kinds.includes(type));
  return (await mfa.boundFactors(accountId, kinds)).length > 0;
}
