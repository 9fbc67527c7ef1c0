/**
 * The closed list of error reasons. Each reason is also the phrase key of its message
 * (see ./phrases), and carries the HTTP status that the envelope's `code` mirrors.
 */
export const errorReasons = {
  'request.invalid': 400,
  'request.malformed_json': 400,
  'request.unsupported_content_type': 415,
  'request.route_not_found': 404,
  'request.rate_limited': 429,
  'auth.login_required': 401,
  'auth.forbidden': 403,
  'sso.code_invalid': 400,
  'sso.platform_admin_only': 403,
  'company.not_found': 404,
  'company.name_required': 400,
  'company.name_too_long': 400,
  'company.create_dev_only': 403,
  'member.not_found': 404,
  'member.already_member': 409,
  'member.username_taken': 409,
  'member.email_taken': 409,
  'member.password_required': 400,
  'member.username_invalid': 400,
  'member.password_too_short': 400,
  'member.owner_protected': 409,
  'member.last_admin': 409,
  'member.external_admin_forbidden': 403,
  'member.self_removal': 409,
  'license.file_required': 400,
  'license.malformed': 400,
  'license.bad_signature': 400,
  'license.wrong_installation': 400,
  'license.platform_admin_only': 403,
  'license.quantity_exceeded': 403,
  'upload.missing_file': 400,
  'upload.too_large': 413,
  'upload.unsupported_type': 415,
  'internal.error': 500,
} as const;

export type ErrorReason = keyof typeof errorReasons;

export const isErrorReason = (value: string): value is ErrorReason => value in errorReasons;
