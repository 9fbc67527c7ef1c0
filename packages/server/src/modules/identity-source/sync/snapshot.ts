/**
 * What a connector reads from a directory (LDAP / Active Directory, DingTalk or WeCom contacts)
 * and the sync engine turns into the company's people and departments: one shape for all.
 */

export interface DirectoryDepartment {
  /** The directory's stable id (entryUUID, objectGUID, DN, dept_id...). */
  externalId: string;
  name: string;
  /** null: a top department (placed under the company's root department). */
  parentExternalId: string | null;
}

export interface DirectoryPerson {
  externalId: string;
  username: string;
  name: string | null;
  email: string | null;
  phone: string | null;
  /** LDAP: the entry's DN (for the sign-in bind). */
  dn: string | null;
  departmentExternalIds: string[];
  /** Disabled in the directory (Active Directory's ACCOUNTDISABLE, a WeCom member disabled or gone). */
  disabled: boolean;
}

export interface DirectorySnapshot {
  departments: DirectoryDepartment[];
  people: DirectoryPerson[];
  /** Entries left out, with why (no username, a duplicate id...). */
  skipped: { externalId: string | null; label: string; reason: 'missing_attribute' | 'duplicate' }[];
}

const PHONE = /^\+?[0-9]{5,20}$/;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Text the way people are stored: trimmed, empty as null, at most `max` characters. */
export const cleanText = (value: string | null | undefined, max = 64): string | null => {
  const text = value?.trim();
  return text ? text.slice(0, max) : null;
};
export const cleanEmail = (value: string | null | undefined): string | null => {
  const text = value?.trim().toLowerCase();
  return text && text.length <= 254 && EMAIL.test(text) ? text : null;
};
/** A phone number as user/create keeps it (spaces and hyphens dropped); anything else is left out. */
export const cleanPhone = (value: string | null | undefined): string | null => {
  const text = value?.replace(/[\s-]/g, '');
  return text && PHONE.test(text) ? text : null;
};
