import { z } from 'zod';
import { ACTION_PATTERN, type ConsoleAccess, permissionLimits } from '../constants.ts';

/** What the permission calls share: their console access, tag, and the shapes of names and actions. */
export const read: ConsoleAccess = { groups: ['authority'], level: 'read' };
export const manage: ConsoleAccess = { groups: ['authority'], level: 'manage' };
export const base = { tag: 'Permission', auth: 'session', tenant: true } as const;

export const required = <K extends string>(reason: K, max: number) =>
  z.string({ error: reason }).trim().min(1, { error: reason }).max(max);

export const action = z
  .string()
  .trim()
  .min(1)
  .max(permissionLimits.actionMax)
  .regex(ACTION_PATTERN, { error: 'resource.action_invalid' });
export const actions = z
  .array(action)
  .max(permissionLimits.actionsMax)
  .transform((list) => [...new Set(list)]);
