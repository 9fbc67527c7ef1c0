import type { Language } from '@tessera/contract';
import { type PageContext, renderChangePasswordPage } from '@tessera/portal';
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { Account } from '../../db/schema.ts';
import { AppError } from '../../lib/errors.ts';
import { translateError } from '../../lib/i18n.ts';
import { hashPassword, verifyPassword } from '../account/password.ts';
import { assertPasswordAllowed } from '../account/password-policy.ts';
import { insertAuditEvent } from '../audit/audit.repo.ts';

/**
 * The sign-in pipeline after the first factor (password or sign-in link): an ordered list of
 * steps, each with its own page. Once the first factor passes, the steps that apply to the
 * account are stored on the OIDC interaction as its pending list; the interaction finishes
 * (and the provider issues its session) only when that list is empty, so no other URL skips a
 * step. To add a step (password expired, second factor...), add its name to `StepName` and an
 * entry to the list returned by `createSignInSteps`, in the position it must run.
 */
export type StepName = 'change_password';

export interface StepRequest {
  account: Account;
  lang: Language;
  ip: string | null;
  userAgent: string | null;
  clientId: string;
}

export interface StepView {
  /** Where the step's form posts to. */
  action: string;
  abortAction: string;
  csrfToken: string;
  account: Account;
  /** Localised message of a refused submission. */
  error?: string;
}

export interface SignInStep {
  readonly name: StepName;
  /** Whether the account has to go through the step; checked again on every request, so a step done elsewhere drops out. */
  applies(account: Account): boolean;
  render(page: PageContext, view: StepView): string;
  /** Handles the submitted form: undefined when the step is done, otherwise the localised error for the page. */
  submit(request: StepRequest, form: Record<string, string | undefined>): Promise<string | undefined>;
}

/** What the interaction remembers between the first factor and the end of the pipeline. */
export interface PendingSignIn {
  accountId: string;
  amr: string[];
  /** Steps still to do, in order. */
  pending: StepName[];
}

/** The pending sign-in is kept in the interaction's `result` under this key (the provider ignores it). */
const RESULT_KEY = 'tessera';

export const readPendingSignIn = (interaction: { result?: Record<string, unknown> }) =>
  interaction.result?.[RESULT_KEY] as PendingSignIn | undefined;

export const pendingSignInResult = (pending: PendingSignIn) => ({ [RESULT_KEY]: pending });

/** A password that the person chooses for themselves: required, confirmed, within the rules, new. */
function changePasswordStep(deps: { db: Db }): SignInStep {
  return {
    name: 'change_password',
    applies: (account) => account.must_change_password,
    render: (page, view) =>
      renderChangePasswordPage(page, {
        action: view.action,
        abortAction: view.abortAction,
        csrfToken: view.csrfToken,
        username: view.account.username,
        error: view.error,
      }),
    async submit({ account, lang, ip }, form) {
      const password = String(form.newPassword ?? '').slice(0, 1024);
      const confirmation = String(form.confirmPassword ?? '').slice(0, 1024);
      if (!password) return translateError(lang, 'user.password_required');
      if (password !== confirmation) return translateError(lang, 'user.password_mismatch');
      try {
        assertPasswordAllowed(password, { username: account.username, lang, field: 'newPassword' });
      } catch (error) {
        if (error instanceof AppError) return error.localisedMessage ?? translateError(lang, error.reason);
        throw error;
      }
      if (await verifyPassword(account.password_hash, password)) {
        return translateError(lang, 'password.same_as_current');
      }
      const passwordHash = await hashPassword(password);
      await deps.db.transaction().execute(async (trx) => {
        await trx
          .updateTable('accounts')
          .set((eb) => ({
            password_hash: passwordHash,
            password_changed_at: sql<Date>`now()`,
            credential_version: eb('credential_version', '+', 1),
            must_change_password: false,
          }))
          .where('id', '=', account.id)
          .execute();
        await insertAuditEvent(trx, {
          companyId: account.home_company_id,
          actorAccountId: account.id,
          action: 'user.password_change',
          targetType: 'user',
          targetId: account.id,
          before: { mustChangePassword: true },
          after: { mustChangePassword: false },
          ip,
        });
      });
      return undefined;
    },
  };
}

/** The steps in the order they run. */
export function createSignInSteps(deps: { db: Db }): SignInStep[] {
  return [changePasswordStep(deps)];
}
