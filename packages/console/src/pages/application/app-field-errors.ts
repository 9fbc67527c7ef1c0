import type { FormInstance } from 'antd';
import { ApiError } from '../../api/http-client.ts';

/** The field a server error reason is about, when the server names no field. */
const fieldOfReason: Record<string, string> = {
  'app.name_required': 'name',
  'app.name_too_long': 'name',
  'app.url_invalid': 'baseUrl',
  'app.lifetime_required': 'lifetimes.accessToken',
  'api_account.name_required': 'name',
};

/**
 * Marks the fields of a refused application call on its form. The server names nested fields by
 * their path (`redirectUris.2`, `lifetimes.accessToken`, `extraFields.0.name`); a path is marked
 * when its first part is one of the form's `fields`. Returns whether anything was marked.
 */
export function showAppFieldErrors<Values>(
  form: FormInstance<Values>,
  error: unknown,
  fields: readonly string[],
): boolean {
  if (!(error instanceof ApiError)) return false;
  const named = error.fields?.length
    ? error.fields
    : error.reason && fieldOfReason[error.reason]
      ? [{ field: fieldOfReason[error.reason] as string, message: error.message }]
      : [];
  const marks = new Map<string, { name: (string | number)[]; errors: string[] }>();
  for (const { field, message } of named) {
    const name = field.split('.').map((part) => (/^\d+$/.test(part) ? Number(part) : part));
    if (!fields.includes(String(name[0])) || message === '') continue;
    const mark = marks.get(field) ?? { name, errors: [] };
    if (!mark.errors.includes(message)) mark.errors.push(message);
    marks.set(field, mark);
  }
  form.setFields([...marks.values()].map(({ name, errors }) => ({ name: name as never, errors })));
  return marks.size > 0;
}
