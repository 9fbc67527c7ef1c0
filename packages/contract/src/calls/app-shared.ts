import { z } from 'zod';
import { entityId } from '../call.ts';
import { appLimits } from '../constants.ts';

/** What the application calls share: the shapes of ids, addresses and times. */

export const id = entityId;
export const appId = z.string({ error: 'app.not_found' }).trim().min(1, { error: 'app.not_found' }).max(64);

/** An http(s) address (a home page, a form's login page). */
export const webUrl = z
  .string()
  .trim()
  .max(appLimits.urlMax)
  .refine(
    (value) => {
      try {
        const url = new URL(value);
        return (url.protocol === 'https:' || url.protocol === 'http:') && !url.username && !url.password;
      } catch {
        return false;
      }
    },
    { error: 'app.url_invalid' },
  );

/** Seconds since the epoch (an expiry). */
export const epochSeconds = z.number().int().min(0);
