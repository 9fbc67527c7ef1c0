import { company, USERNAME_PATTERN, user as userCalls, userLimits } from '@tessera/contract';
import type { z } from 'zod';
import { AppError } from '../../lib/errors.ts';
import { invalidValue, ScimError } from './scim-errors.ts';
import { prop } from './scim-filter.ts';
import { booleanOf, stringOf, versionOf } from './scim-resource.ts';
import { ENTERPRISE_SCHEMA, USER_SCHEMA } from './scim-schemas.ts';
import type { ScimUserRow } from './scim-users.repo.ts';

/**
 * A person as a SCIM User and back. Tessera has one email, one phone, a display name and a
 * nickname per person; the rest SCIM says (name parts, title, the enterprise extension,
 * externalId) is kept beside the person (scim_users) and given back as it came.
 */

type Doc = Record<string, unknown>;

/** What SCIM keeps of a person besides Tessera's columns. */
export interface UserExtras {
  name?: Doc;
  title?: string;
  userType?: string;
  preferredLanguage?: string;
  locale?: string;
  timezone?: string;
  emailType?: string;
  phoneType?: string;
  enterprise?: Doc;
}

/** A User as the client wants it stored. */
export interface DesiredUser {
  userName: string;
  externalId: string | null;
  displayName: string | null;
  nickName: string | null;
  email: string | null;
  phone: string | null;
  active: boolean;
  password?: string;
  managerId: string | null;
  extras: UserExtras;
}

const enterpriseKeys = ['employeeNumber', 'costCenter', 'organization', 'division', 'department'] as const;

export function toScimUser(
  row: ScimUserRow,
  groups: { id: string; name: string }[],
  baseUrl: string,
  managerName: (id: string) => string | undefined,
): Doc {
  const extras = (row.attributes ?? {}) as UserExtras;
  const name = { ...(extras.name ?? {}) };
  if (row.display_name && !name.formatted) name.formatted = row.display_name;
  const enterprise: Doc = {};
  for (const key of enterpriseKeys)
    if (extras.enterprise?.[key] != null) enterprise[key] = extras.enterprise[key];
  const managerId = extras.enterprise?.manager as string | undefined;
  if (managerId)
    enterprise.manager = {
      value: managerId,
      $ref: `${baseUrl}/Users/${managerId}`,
      ...(managerName(managerId) ? { displayName: managerName(managerId) } : {}),
    };
  const hasEnterprise = Object.keys(enterprise).length > 0;
  const resource: Doc = {
    schemas: hasEnterprise ? [USER_SCHEMA, ENTERPRISE_SCHEMA] : [USER_SCHEMA],
    id: row.id,
    ...(row.external_id ? { externalId: row.external_id } : {}),
    userName: row.username,
    ...(Object.keys(name).length ? { name } : {}),
    ...(row.display_name ? { displayName: row.display_name } : {}),
    ...(row.nickname ? { nickName: row.nickname } : {}),
    ...(extras.title ? { title: extras.title } : {}),
    ...(extras.userType ? { userType: extras.userType } : {}),
    ...(extras.preferredLanguage ? { preferredLanguage: extras.preferredLanguage } : {}),
    ...(extras.locale ? { locale: extras.locale } : {}),
    ...(extras.timezone ? { timezone: extras.timezone } : {}),
    active: row.record_status === 'enabled',
    ...(row.email ? { emails: [{ value: row.email, type: extras.emailType ?? 'work', primary: true }] } : {}),
    ...(row.phone
      ? { phoneNumbers: [{ value: row.phone, type: extras.phoneType ?? 'work', primary: true }] }
      : {}),
    ...(groups.length
      ? {
          groups: groups.map((g) => ({
            value: g.id,
            $ref: `${baseUrl}/Groups/${g.id}`,
            display: g.name,
            type: 'direct',
          })),
        }
      : {}),
    ...(hasEnterprise ? { [ENTERPRISE_SCHEMA]: enterprise } : {}),
  };
  const lastModified = row.updated_at > row.created_at ? row.updated_at : row.created_at;
  resource.meta = {
    resourceType: 'User',
    created: row.created_at.toISOString(),
    lastModified: lastModified.toISOString(),
    location: `${baseUrl}/Users/${row.id}`,
    version: versionOf(resource),
  };
  return resource;
}

/** The primary element of a multi-valued attribute, else the work one, else the first. */
function primaryOf(value: unknown, attribute: string): Doc | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) throw invalidValue(`${attribute} must be a list`);
  const items = value.filter((item): item is Doc => !!item && typeof item === 'object');
  const isPrimary = (item: Doc) => {
    const primary = prop(item, 'primary');
    return primary !== undefined && booleanOf(primary, `${attribute}.primary`);
  };
  return (
    items.find(isPrimary) ??
    items.find((item) => String(prop(item, 'type') ?? '').toLowerCase() === 'work') ??
    items[0]
  );
}

/** Reads a field through the console's own rule for it; its refusal becomes invalidValue with the console's words. */
function byRule<T>(schema: z.ZodType<T>, value: unknown): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const reason = parsed.error.issues[0]?.message;
  if (reason?.includes('.')) throw new AppError(reason as never);
  throw invalidValue(String(reason ?? 'value'));
}

export function readUser(body: Doc): DesiredUser {
  const userName = stringOf(prop(body, 'userName'), 'userName', userLimits.usernameMax + 1);
  if (!userName) throw new ScimError('scim.invalid_value', 'invalidValue', { why: 'userName is required' });
  if (!USERNAME_PATTERN.test(userName) || userName.length > userLimits.usernameMax)
    byRule(company.username, userName);
  const name = prop(body, 'name');
  if (name !== undefined && name !== null && (typeof name !== 'object' || Array.isArray(name)))
    throw invalidValue('name must be an object');
  const nameDoc = (name ?? {}) as Doc;
  const nameParts: Doc = {};
  for (const key of [
    'formatted',
    'familyName',
    'givenName',
    'middleName',
    'honorificPrefix',
    'honorificSuffix',
  ]) {
    const part = stringOf(prop(nameDoc, key), `name.${key}`);
    if (part) nameParts[key] = part;
  }
  const joined = [nameParts.givenName, nameParts.familyName].filter(Boolean).join(' ');
  const displayName =
    stringOf(prop(body, 'displayName'), 'displayName') ??
    (nameParts.formatted as string | undefined) ??
    (joined || null);
  const email = primaryOf(prop(body, 'emails'), 'emails');
  const phone = primaryOf(prop(body, 'phoneNumbers'), 'phoneNumbers');
  const activeValue = prop(body, 'active');
  const enterpriseIn = (prop(body, ENTERPRISE_SCHEMA) ?? {}) as Doc;
  if (typeof enterpriseIn !== 'object' || Array.isArray(enterpriseIn))
    throw invalidValue('the enterprise extension must be an object');
  const enterprise: Doc = {};
  for (const key of enterpriseKeys) {
    const value = stringOf(prop(enterpriseIn, key), key);
    if (value) enterprise[key] = value;
  }
  const managerIn = prop(enterpriseIn, 'manager');
  // Entra ID sends the manager as the id itself; the RFC as { value }.
  const managerId = stringOf(
    managerIn && typeof managerIn === 'object' ? prop(managerIn, 'value') : managerIn,
    'manager',
    64,
  );
  if (managerId) enterprise.manager = managerId;
  const password = prop(body, 'password');
  const text = (key: string) => stringOf(prop(body, key), key, 128) ?? undefined;
  const extras: UserExtras = {
    ...(Object.keys(nameParts).length ? { name: nameParts } : {}),
    ...(text('title') ? { title: text('title') } : {}),
    ...(text('userType') ? { userType: text('userType') } : {}),
    ...(text('preferredLanguage') ? { preferredLanguage: text('preferredLanguage') } : {}),
    ...(text('locale') ? { locale: text('locale') } : {}),
    ...(text('timezone') ? { timezone: text('timezone') } : {}),
    ...(email && prop(email, 'type') ? { emailType: String(prop(email, 'type')) } : {}),
    ...(phone && prop(phone, 'type') ? { phoneType: String(prop(phone, 'type')) } : {}),
    ...(Object.keys(enterprise).length ? { enterprise } : {}),
  };
  return {
    userName,
    externalId: stringOf(prop(body, 'externalId'), 'externalId', 256),
    displayName: byRule(userCalls.updateUser.request.shape.name, displayName ?? '') ?? null,
    nickName:
      byRule(
        userCalls.updateUser.request.shape.nickname,
        stringOf(prop(body, 'nickName'), 'nickName') ?? '',
      ) ?? null,
    email:
      byRule(userCalls.email, stringOf(email ? prop(email, 'value') : null, 'emails.value') ?? '') ?? null,
    phone:
      byRule(userCalls.phone, stringOf(phone ? prop(phone, 'value') : null, 'phoneNumbers.value') ?? '') ??
      null,
    active: activeValue === undefined || activeValue === null ? true : booleanOf(activeValue, 'active'),
    ...(password !== undefined && password !== null
      ? { password: stringOf(password, 'password', userLimits.passwordMax) ?? '' }
      : {}),
    managerId,
    extras,
  };
}
