/** English server phrases. This object is the type that every other language must satisfy. */
export const en = {
  errors: {
    'request.invalid': 'The request is not valid',
    'request.malformed_json': 'The request body is not valid JSON',
    'request.unsupported_content_type': 'This content type is not supported here',
    'request.route_not_found': 'No such call',
    'request.rate_limited': 'Too many requests, please try again later',
    'auth.login_required': 'Identity information invalid, please login again!',
    'auth.forbidden': 'You do not have permission to do this',
    'sso.code_invalid': 'The sign-in code is invalid or has expired, please sign in again',
    'sso.platform_admin_only': 'Only platform administrators can use this console',
    'company.not_found': 'Company not found',
    'company.name_required': 'Please enter the company name',
    'company.name_too_long': 'The company name can be at most 50 characters',
    'company.create_dev_only': 'Companies are created in the developer console',
    'member.not_found': 'Member not found',
    'member.already_member': 'This person is already a member of the company',
    'member.username_taken': 'This username is already taken',
    'member.email_taken': 'This email address is already in use',
    'member.password_required': 'Please enter a password for the new account',
    'member.username_invalid': 'The username can only contain letters, digits, dot, underscore and hyphen',
    'member.password_too_short': 'The password must be between 6 and 30 characters',
    'member.owner_protected': 'The company owner cannot be removed',
    'member.last_admin': 'The last administrator of a company cannot be removed',
    'member.external_admin_forbidden': 'External administrators cannot add or remove external administrators',
    'member.self_removal': 'You cannot remove yourself',
    'license.file_required': 'Please choose a licence file',
    'license.malformed': 'This is not a Tessera licence file',
    'license.bad_signature':
      'The licence signature is not valid: the file was changed or was not issued by the vendor',
    'license.wrong_installation':
      'This licence was issued for another installation (application code {code})',
    'license.platform_admin_only': 'Only platform administrators can import a licence',
    'license.quantity_exceeded':
      'The licence allows {total} for {module}; ask your vendor for a larger licence',
    'upload.missing_file': 'Please choose a file to upload',
    'upload.too_large': 'The file is too large (at most {limit})',
    'upload.unsupported_type': 'This file type is not allowed; use one of: {allowed}',
    'internal.error': 'Something went wrong on the server, please try again',
  },
  validation: {
    required: '{field} is required',
    too_long: '{field} must be at most {max} characters',
    too_short: '{field} must be at least {min} characters',
    too_big: '{field} must be at most {max}',
    too_small: '{field} must be at least {min}',
    invalid_type: '{field} has the wrong type',
    invalid_value: '{field} is not one of the allowed values',
    invalid_format: '{field} is not in a valid format',
    unrecognized_keys: 'Unknown field: {field}',
    invalid: '{field} is not valid',
  },
} as const;

type Widen<T> = { [K in keyof T]: T[K] extends string ? string : Widen<T[K]> };
export type ServerPhrases = Widen<typeof en>;
