import type { app as contract } from '@tessera/contract';
import { AppError } from '../../lib/errors.ts';
import * as repo from './app.repo.ts';
import { type Actor, type AppServiceContext, appOf, audit, type Body } from './app-service-shared.ts';

/** Form-fill passwords (a person's own, or the shared account's) are sealed for this purpose. */
export const FORM_PASSWORD_PURPOSE = 'form-credential';

const formConfigOf = (row: Awaited<ReturnType<typeof repo.findFormConfig>>) => ({
  loginUrl: row?.login_url ?? null,
  usernameField: row?.username_field ?? 'username',
  passwordField: row?.password_field ?? 'password',
  extraFields: row?.extra_fields ?? [],
  credentialMode: row?.credential_mode ?? ('user' as const),
  sharedUsername: row?.shared_username ?? null,
  sharedPasswordSet: Boolean(row?.shared_password_sealed),
});

/**
 * The form-fill settings of an application (spec §3: form configuration): its login page, the
 * fields the form posts, and whose credentials it fills in. A shared password is stored sealed
 * and never answered.
 */
export function createAppFormService({ db, sealer }: Pick<AppServiceContext, 'db' | 'sealer'>) {
  async function formConfig(companyId: string, appId: string) {
    const app = await appOf(db, companyId, appId);
    if (app.protocol !== 'form') throw new AppError('form.not_form_app');
    return formConfigOf(await repo.findFormConfig(db, app.id));
  }

  async function updateFormConfig(
    actor: Actor,
    companyId: string,
    body: Body<typeof contract.updateAppFormConfig>,
  ) {
    return db.transaction().execute(async (trx) => {
      const app = await appOf(trx, companyId, body.appId, true);
      if (app.protocol !== 'form') throw new AppError('form.not_form_app');
      const before = await repo.findFormConfig(trx, app.id);
      const sharedPassword =
        body.sharedPassword !== undefined && body.sharedPassword !== ''
          ? sealer.seal(body.sharedPassword, FORM_PASSWORD_PURPOSE)
          : (before?.shared_password_sealed ?? null);
      const values = {
        login_url: body.loginUrl,
        username_field: body.usernameField,
        password_field: body.passwordField,
        extra_fields: JSON.stringify(body.extraFields),
        credential_mode: body.credentialMode,
        shared_username: body.sharedUsername ?? null,
        shared_password_sealed: sharedPassword,
        updated_at: new Date(),
      };
      await trx
        .insertInto('app_form_configs')
        .values({ app_id: app.id, ...values })
        .onConflict((oc) => oc.column('app_id').doUpdateSet(values))
        .execute();
      const after = await repo.findFormConfig(trx, app.id);
      await audit(
        trx,
        actor,
        companyId,
        'app.form.update',
        app.id,
        formConfigOf(before),
        formConfigOf(after),
      );
      return formConfigOf(after);
    });
  }

  return { formConfig, updateFormConfig };
}
