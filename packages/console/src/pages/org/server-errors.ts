import type { FieldError } from '@tessera/contract';
import type { FormInstance } from 'antd';
import { ApiError } from '../../api/http-client.ts';

/** Form fields that a server error reason is about (the envelope's `data.reason`). */
const fieldOfReason: Record<string, string> = {
  'user.username_taken': 'username',
  'member.username_invalid': 'username',
  'user.email_taken': 'email',
  'user.username_is_email': 'username',
  'user.email_is_username': 'email',
  'user.email_invalid': 'email',
  'user.phone_taken': 'phone',
  'user.phone_invalid': 'phone',
  'user.password_required': 'password',
  'user.password_mismatch': 'confirmPassword',
  'password.too_short': 'password',
  'password.too_long': 'password',
  'password.missing_classes': 'password',
  'password.contains_username': 'password',
  'password.same_as_current': 'password',
  'department.name_required': 'name',
  'department.name_taken': 'name',
  'department.parent_required': 'parentId',
  'department.manager_not_member': 'managerId',
  'radius.name_required': 'name',
  'radius.name_too_long': 'name',
  'radius.source_required': 'source',
  'radius.source_invalid': 'source',
  'radius.departments_required': 'departmentIds',
  'radius.department_not_found': 'departmentIds',
  'ca.name_required': 'name',
  'ca.name_too_long': 'name',
  'ca.subject_too_long': 'commonName',
  'ca.strength_invalid': 'strength',
  'ca.validity_range': 'validityYears',
  'ca.file_required': 'file',
  'ca.file_unreadable': 'file',
  'ca.file_password': 'password',
  'ca.file_encryption_unsupported': 'file',
  'ca.certificate_missing': 'file',
  'ca.key_missing': 'file',
  'ca.key_mismatch': 'file',
  'ca.not_ca': 'file',
  'ca.ca_expired': 'file',
  'ca.unsupported_key': 'file',
  'ca.already_imported': 'file',
  'ca.csr_invalid': 'csr',
  'ca.csr_signature': 'csr',
  'ca.certificate_validity_range': 'validityDays',
  'mfa.type_invalid': 'type',
  'mfa.name_too_long': 'name',
  'mfa.key_id_required': 'keyId',
  'mfa.key_id_invalid': 'keyId',
  'mfa.public_key_required': 'publicKey',
  'mfa.public_key_invalid': 'publicKey',
  'mfa.key_already_bound': 'publicKey',
  'mfa.certificate_required': 'certificate',
  'mfa.certificate_invalid': 'certificate',
  'mfa.certificate_untrusted': 'certificate',
  'mfa.certificate_revoked': 'certificate',
  'mfa.certificate_expired': 'certificate',
  'mfa.certificate_other_user': 'certificate',
};

/**
 * The field errors of a failed call: the fields the server named (`data.fields`), otherwise the
 * field the error reason is about, with the server's (localised) message.
 */
export function fieldErrorsOf(error: unknown): FieldError[] {
  if (!(error instanceof ApiError)) return [];
  if (error.fields?.length) return error.fields.filter((item) => item.message !== '');
  const field = error.reason ? fieldOfReason[error.reason] : undefined;
  return field ? [{ field, message: error.message }] : [];
}

/** Marks the fields a failed call names on the form (only fields the form has). */
export function showFieldErrors<Values>(
  form: FormInstance<Values>,
  error: unknown,
  fields: readonly string[],
) {
  const marks = fieldErrorsOf(error).filter((item) => fields.includes(item.field));
  if (marks.length) {
    form.setFields(marks.map(({ field, message }) => ({ name: field as never, errors: [message] })));
  }
}
