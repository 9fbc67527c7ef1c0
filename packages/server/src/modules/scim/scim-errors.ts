import type { ErrorReason, Language } from '@tessera/contract';
import { AppError } from '../../lib/errors.ts';
import { translateError } from '../../lib/i18n.ts';

/** RFC 7644 §3.12: the error response's schema. */
export const ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';

/** RFC 7644 §3.12 Table 9: the scimType of a 400 (and uniqueness of a 409). */
export type ScimType =
  | 'invalidFilter'
  | 'tooMany'
  | 'uniqueness'
  | 'mutability'
  | 'invalidSyntax'
  | 'invalidPath'
  | 'noTarget'
  | 'invalidValue'
  | 'invalidVers'
  | 'sensitive';

/** A refusal in SCIM's terms: a reason (phrase key, status) and, for 400 and 409, a scimType. */
export class ScimError extends AppError {
  constructor(
    reason: ErrorReason,
    readonly scimType?: ScimType,
    params: Record<string, string | number> = {},
  ) {
    super(reason, params);
  }
}

export const invalidFilter = (why: string) => new ScimError('scim.invalid_filter', 'invalidFilter', { why });
export const invalidValue = (why: string) => new ScimError('scim.invalid_value', 'invalidValue', { why });
export const invalidSyntax = (why: string) => new ScimError('scim.invalid_syntax', 'invalidSyntax', { why });
export const invalidPath = (why: string) => new ScimError('scim.invalid_path', 'invalidPath', { why });
export const notFound = () => new ScimError('scim.not_found');

/** The scimType of the console's own refusals, as SCIM clients expect them. */
function scimTypeOf(error: AppError): ScimType | undefined {
  if (error instanceof ScimError) return error.scimType;
  const crossed = error.reason === 'user.username_is_email' || error.reason === 'user.email_is_username';
  if (error.reason.endsWith('_taken') || crossed) return 'uniqueness';
  if (error.reason === 'user.directory_managed' || error.reason === 'user.not_managed') return 'mutability';
  return error.status === 400 ? 'invalidValue' : undefined;
}

/** The SCIM error body of any failure; details of unexpected ones stay in the log. */
export function scimErrorBody(error: unknown, lang: Language) {
  if (!(error instanceof AppError)) {
    const { statusCode } = error as { statusCode?: number };
    if (statusCode === 413) return scimErrorBody(new ScimError('scim.too_large'), lang);
    if (statusCode === 415 || statusCode === 400)
      return scimErrorBody(invalidSyntax(statusCode === 415 ? 'content type' : 'JSON'), lang);
    return { status: 500, body: { schemas: [ERROR_SCHEMA], status: '500', detail: 'Internal error' } };
  }
  const scimType = scimTypeOf(error);
  const detail = error.localisedMessage ?? translateError(lang, error.reason, error.params);
  return {
    status: error.status,
    body: {
      schemas: [ERROR_SCHEMA],
      status: String(error.status),
      ...(scimType ? { scimType } : {}),
      detail,
    },
  };
}
