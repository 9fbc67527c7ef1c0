import { createHash } from 'node:crypto';
import type { ProvisioningTarget } from '../../db/schema-provisioning.ts';
import type { PatchOperation } from './scim-client.ts';

/**
 * A person as a SCIM User (RFC 7643 §4.1, and the enterprise extension's department and
 * employeeNumber), kept as the
 * flat map of the attribute paths we manage: that map is what a run compares with what it sent
 * last, what the PATCH operations are made of (one `replace` per changed path, `remove` for a
 * value gone), and what POST and PUT bodies are built from.
 */

export const CORE_USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const ENTERPRISE_USER = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
const DEPARTMENT = `${ENTERPRISE_USER}:department`;
const EMPLOYEE_NUMBER = `${ENTERPRISE_USER}:employeeNumber`;
/** The enterprise extension's attributes we send, by path. */
const ENTERPRISE_PATHS: Record<string, string> = {
  [DEPARTMENT]: 'department',
  [EMPLOYEE_NUMBER]: 'employeeNumber',
};

/** What provisioning reads of a person. */
export interface ProvisionedPersonData {
  accountId: string;
  username: string;
  email: string | null;
  phone: string | null;
  name: string | null;
  department: string | null;
  /** The enterprise extension's employeeNumber an inbound SCIM client gave the person (scim_users.attributes). */
  employeeNumber: string | null;
}

/** Attribute path -> value; a path whose value is absent is left out. */
export type ManagedAttributes = Record<string, unknown>;

type TargetSettings = Pick<ProvisioningTarget, 'user_name_from' | 'attributes'>;

/** The remote userName of a person under the target's setting; null when the person lacks it (no email). */
export const userNameOf = (person: ProvisionedPersonData, target: Pick<TargetSettings, 'user_name_from'>) =>
  target.user_name_from === 'email' ? person.email : person.username;

/** The attributes a person should have at the target now (active: whether they have access). */
export function desiredAttributes(
  person: ProvisionedPersonData,
  target: TargetSettings,
  active: boolean,
): ManagedAttributes | null {
  const userName = userNameOf(person, target);
  if (!userName) return null;
  const wanted = new Set(target.attributes);
  const out: ManagedAttributes = { userName, active };
  if (wanted.has('name')) {
    const display = person.name || person.username;
    out.displayName = display;
    out.name = { formatted: display };
  }
  if (wanted.has('emails') && person.email)
    out.emails = [{ value: person.email, type: 'work', primary: true }];
  if (wanted.has('phoneNumbers') && person.phone)
    out.phoneNumbers = [{ value: person.phone, type: 'work', primary: true }];
  if (wanted.has('department') && person.department) out[DEPARTMENT] = person.department;
  if (wanted.has('employeeNumber') && person.employeeNumber) out[EMPLOYEE_NUMBER] = person.employeeNumber;
  return out;
}

/** A stable digest of managed attributes (paths in a fixed order). */
export function attributesHash(attributes: ManagedAttributes): string {
  const ordered = Object.keys(attributes)
    .sort()
    .map((path) => [path, attributes[path]]);
  return createHash('sha256').update(JSON.stringify(ordered)).digest('hex');
}

/** The PATCH operations that turn what was sent into what is wanted: replace per changed path, remove per path gone. */
export function patchOperations(sent: ManagedAttributes, wanted: ManagedAttributes): PatchOperation[] {
  const operations: PatchOperation[] = [];
  for (const [path, value] of Object.entries(wanted))
    if (JSON.stringify(sent[path]) !== JSON.stringify(value)) operations.push({ op: 'replace', path, value });
  for (const path of Object.keys(sent)) if (!(path in wanted)) operations.push({ op: 'remove', path });
  return operations;
}

/** The full User resource (POST, PUT) of managed attributes. */
export function userResource(attributes: ManagedAttributes): Record<string, unknown> {
  const resource: Record<string, unknown> = { schemas: [CORE_USER] };
  for (const [path, value] of Object.entries(attributes)) {
    const enterprise = ENTERPRISE_PATHS[path];
    if (enterprise) {
      resource.schemas = [CORE_USER, ENTERPRISE_USER];
      resource[ENTERPRISE_USER] = { ...(resource[ENTERPRISE_USER] as object), [enterprise]: value };
    } else resource[path] = value;
  }
  return resource;
}
