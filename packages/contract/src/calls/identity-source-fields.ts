import { z } from 'zod';
import { firstScanModes, identitySourceLimits as limits } from '../constants.ts';

/**
 * Fields that the settings of every identity source kind share (LDAP, scan sources, upstream
 * sources): its name and switch, typed secrets, the sync interval and the first sign-in rule.
 */

export const text = (max: number, reason: string) =>
  z.string({ error: reason }).trim().min(1, { error: reason }).max(max, { error: reason });
/** A secret as typed: not trimmed (a space may belong to it); empty means "keep the stored one". */
export const secret = z.string().max(limits.credentialMax).optional();

export const syncIntervalMinutes = z
  .number({ error: 'identity_source.interval_range' })
  .int({ error: 'identity_source.interval_range' })
  .refine(
    (minutes) =>
      minutes === 0 ||
      (minutes >= limits.syncIntervalMinutes.min && minutes <= limits.syncIntervalMinutes.max),
    { error: 'identity_source.interval_range' },
  );

export const common = {
  name: text(limits.nameMax, 'identity_source.name_required'),
  enabled: z.boolean().default(true),
};

export const firstScan = z.enum(firstScanModes).default('link_only');
