import type { FormInstance } from 'antd';
import { ApiError } from '../../api/http-client.ts';

/** The field a safety error reason is about, when the server names no field. */
const fieldOfReason: Record<string, string> = {
  'safety.min_length_range': 'password.minLength',
  'safety.change_cycle_range': 'password.changeCycleDays',
  'safety.password_method_required': 'loginMethods',
};

/**
 * Marks the fields of a refused safety call on its form. The server names nested fields by their
 * path (`password.minLength`, `lockout.maxFailures`, `types.2`); an entry of a list marks the
 * list. Only fields the form has are marked.
 */
export function showSafetyFieldErrors<Values>(
  form: FormInstance<Values>,
  error: unknown,
  fields: readonly string[],
) {
  if (!(error instanceof ApiError)) return;
  const named = error.fields?.length
    ? error.fields
    : error.reason && fieldOfReason[error.reason]
      ? [{ field: fieldOfReason[error.reason] as string, message: error.message }]
      : [];
  const marks = new Map<string, string[]>();
  for (const { field, message } of named) {
    const known = fields.find((candidate) => field === candidate || field.startsWith(`${candidate}.`));
    if (!known || message === '') continue;
    marks.set(known, [...(marks.get(known) ?? []), message]);
  }
  form.setFields(
    [...marks].map(([field, errors]) => ({ name: field.split('.') as never, errors: [...new Set(errors)] })),
  );
}
