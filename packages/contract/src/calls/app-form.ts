import { z } from 'zod';
import { defineCall, optionalText } from '../call.ts';
import { appLimits, formCredentialModes, formLoginUrlProblem } from '../constants.ts';
import { appId, webUrl } from './app-shared.ts';

/** Applications: the form-fill settings of a form-fill app. */

// ---- Form-fill (spec §3: form configuration)

const fieldName = z
  .string({ error: 'form.field_required' })
  .trim()
  .min(1, { error: 'form.field_required' })
  .max(appLimits.fieldNameMax)
  .regex(/^[^\s"'<>&]+$/, { error: 'form.field_invalid' });

export const formConfig = z.object({
  loginUrl: z.string().nullable(),
  usernameField: z.string(),
  passwordField: z.string(),
  /** Further fixed fields the form posts (a hidden "tenant" field, a "remember" box). */
  extraFields: z.array(z.object({ name: z.string(), value: z.string() })),
  credentialMode: z.enum(formCredentialModes),
  /** The shared account's user name (mode shared); its password is never answered. */
  sharedUsername: z.string().nullable(),
  sharedPasswordSet: z.boolean(),
});

export const appFormConfig = defineCall({
  path: '/api/v1/manage/app/form/detail',
  summary: 'The form-fill settings of an application',
  tag: 'Application',
  auth: 'session',
  tenant: true,
  access: { groups: ['app'], level: 'read' },
  request: z.object({ appId }),
  response: formConfig,
});

export const updateAppFormConfig = defineCall({
  path: '/api/v1/manage/app/form/update',
  summary: 'Change the form-fill settings; a shared password given here is stored encrypted',
  tag: 'Application',
  auth: 'session',
  tenant: true,
  access: { groups: ['app'], level: 'manage' },
  request: z.object({
    appId,
    loginUrl: webUrl.refine((value) => formLoginUrlProblem(value) !== 'http', {
      error: 'app.login_url_http',
    }),
    usernameField: fieldName,
    passwordField: fieldName,
    extraFields: z
      .array(z.object({ name: fieldName, value: z.string().max(appLimits.credentialMax) }))
      .max(appLimits.extraFieldsMax)
      .default([]),
    credentialMode: z.enum(formCredentialModes),
    sharedUsername: optionalText(appLimits.credentialMax),
    /** Left out: the stored one stays. */
    sharedPassword: z.string().max(appLimits.credentialMax).optional(),
  }),
  response: formConfig,
});
