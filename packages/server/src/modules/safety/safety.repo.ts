import { defaultSafetySettings, type safety } from '@tessera/contract';
import type { z } from 'zod';
import type { Db } from '../../db/database.ts';

export type GeneralSafety = z.infer<typeof safety.generalSafety>;
export type MfaSafety = z.infer<typeof safety.mfaSafety>;
export interface CompanySafetySettings {
  general: GeneralSafety;
  mfa: MfaSafety;
}

type Stored = Record<string, unknown> | null | undefined;

const asObject = (value: unknown): Stored =>
  value && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;

/** The contract defaults, as a fresh copy (callers may keep or change it). */
export function defaultSettings(): CompanySafetySettings {
  const d = defaultSafetySettings;
  return {
    general: {
      loginMethods: [...d.loginMethods],
      password: { ...d.password, classes: [...d.password.classes] },
      lockout: { ...d.lockout },
      selfServiceReset: d.selfServiceReset,
    },
    mfa: { mode: d.mfa.mode, types: [...d.mfa.types], lockout: { ...d.mfa.lockout } },
  };
}

/** The stored settings merged over the defaults (a field the row lacks keeps its default). */
export function mergeSafety(general: unknown, mfa: unknown): CompanySafetySettings {
  const out = defaultSettings();
  const g = asObject(general);
  if (g) {
    if (Array.isArray(g.loginMethods))
      out.general.loginMethods = g.loginMethods as GeneralSafety['loginMethods'];
    out.general.password = { ...out.general.password, ...(asObject(g.password) ?? {}) };
    out.general.lockout = { ...out.general.lockout, ...(asObject(g.lockout) ?? {}) };
    if (typeof g.selfServiceReset === 'boolean') out.general.selfServiceReset = g.selfServiceReset;
  }
  const m = asObject(mfa);
  if (m) {
    if (typeof m.mode === 'string') out.mfa.mode = m.mode as MfaSafety['mode'];
    if (Array.isArray(m.types)) out.mfa.types = m.types as MfaSafety['types'];
    out.mfa.lockout = { ...out.mfa.lockout, ...(asObject(m.lockout) ?? {}) };
  }
  return out;
}

/**
 * A company's safety settings: its `company_safety` row merged over `defaultSafetySettings`
 * (no row, or a null part, means the defaults). Pass `trx` inside a transaction.
 */
export async function getSafetySettings(db: Db, companyId: string): Promise<CompanySafetySettings> {
  const row = await db
    .selectFrom('company_safety')
    .select(['general', 'mfa'])
    .where('company_id', '=', companyId)
    .executeTakeFirst();
  return mergeSafety(row?.general, row?.mfa);
}

/** Stores one part (general or mfa) of a company's settings, creating the row when needed. */
export async function saveSafetyPart(
  db: Db,
  companyId: string,
  part: 'general' | 'mfa',
  value: GeneralSafety | MfaSafety,
): Promise<void> {
  const json = JSON.stringify(value);
  await db
    .insertInto('company_safety')
    .values({ company_id: companyId, [part]: json })
    .onConflict((oc) => oc.column('company_id').doUpdateSet({ [part]: json, updated_at: new Date() }))
    .execute();
}
