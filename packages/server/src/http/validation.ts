import { isErrorReason, type Language } from '@tessera/contract';
import type { z } from 'zod';
import { AppError, type FieldError } from '../lib/errors.ts';
import { translateError, translateValidation } from '../lib/i18n.ts';

const valueAt = (body: unknown, path: PropertyKey[]): unknown =>
  path.reduce<unknown>(
    (value, key) =>
      value && typeof value === 'object' ? (value as Record<PropertyKey, unknown>)[key] : undefined,
    body,
  );

function messageOf(issue: z.core.$ZodIssue, body: unknown, lang: Language): string {
  const field = issue.path.length ? issue.path.join('.') : 'body';
  if (isErrorReason(issue.message)) return translateError(lang, issue.message);
  switch (issue.code) {
    case 'invalid_type':
      return translateValidation(lang, valueAt(body, issue.path) == null ? 'required' : 'invalid_type', {
        field,
      });
    case 'too_big':
      return translateValidation(lang, issue.origin === 'string' ? 'too_long' : 'too_big', {
        field,
        max: String(issue.maximum),
      });
    case 'too_small':
      if (issue.origin === 'string' && Number(issue.minimum) === 1) {
        return translateValidation(lang, 'required', { field });
      }
      return translateValidation(lang, issue.origin === 'string' ? 'too_short' : 'too_small', {
        field,
        min: String(issue.minimum),
      });
    case 'invalid_value':
      return translateValidation(lang, 'invalid_value', { field });
    case 'invalid_format':
      return translateValidation(lang, 'invalid_format', { field });
    case 'unrecognized_keys':
      return translateValidation(lang, 'unrecognized_keys', { field: issue.keys.join(', ') });
    default:
      return translateValidation(lang, 'invalid', { field });
  }
}

/** Parses a request body; a failure becomes a 400 whose message names the field, in the caller's language. */
export function parseRequest<S extends z.ZodType>(schema: S, body: unknown, lang: Language): z.output<S> {
  const result = schema.safeParse(body ?? {});
  if (result.success) return result.data;
  const fields: FieldError[] = result.error.issues.map((issue) => ({
    field: issue.path.join('.') || 'body',
    message: messageOf(issue, body, lang),
  }));
  const first = result.error.issues[0];
  const reason = first && isErrorReason(first.message) ? first.message : 'request.invalid';
  throw new AppError(reason, {}, fields, fields[0]?.message);
}
