import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { distanceKm, type Place } from './geo-ip.ts';

/** Faster than this between two sign-ins is impossible travel (a plane flies about 900 km/h). */
export const IMPOSSIBLE_SPEED_KMH = 1_000;
/** Two places closer than this are not compared: city-level geo-IP is often this far off. */
const PLACE_ACCURACY_KM = 300;

/** Where an account signed in before (its account_sign_in_places row). */
export interface PreviousPlace {
  countries: string[];
  last_latitude: number | null;
  last_longitude: number | null;
  last_at: Date | null;
}

/**
 * The marks of an account's successful sign-in from `place`: `new_country` when the account
 * signed in before, never from this country; `impossible_travel` when the previous sign-in was
 * too far away for the time between them.
 */
export function marksOf(before: PreviousPlace | null, place: Place, at: Date): string[] {
  const marks: string[] = [];
  if (before && before.countries.length > 0 && !before.countries.includes(place.country))
    marks.push('new_country');
  if (
    before?.last_at &&
    before.last_latitude !== null &&
    before.last_longitude !== null &&
    place.latitude !== null &&
    place.longitude !== null
  ) {
    const km = distanceKm(
      { lat: before.last_latitude, lon: before.last_longitude },
      { lat: place.latitude, lon: place.longitude },
    );
    const hours = Math.max(at.getTime() - new Date(before.last_at).getTime(), 0) / 3_600_000;
    if (km > PLACE_ACCURACY_KM && km > IMPOSSIBLE_SPEED_KMH * hours) marks.push('impossible_travel');
  }
  return marks;
}

/** The statement that remembers this sign-in's place for the next one's marks. */
export function rememberPlaceQuery(
  db: Db,
  accountId: string,
  before: PreviousPlace | null,
  place: Place,
  at: Date,
) {
  const countries = before?.countries.includes(place.country)
    ? before.countries
    : [...(before?.countries ?? []), place.country].slice(-50);
  return db
    .insertInto('account_sign_in_places')
    .values({
      account_id: accountId,
      countries,
      last_latitude: place.latitude,
      last_longitude: place.longitude,
      last_at: at,
    })
    .onConflict((oc) =>
      oc.column('account_id').doUpdateSet({
        countries: sql`excluded.countries`,
        last_latitude: sql`excluded.last_latitude`,
        last_longitude: sql`excluded.last_longitude`,
        last_at: sql`excluded.last_at`,
      }),
    );
}

/** The previous place of an account, if it signed in from a known place before. */
export async function previousPlaceOf(db: Db, accountId: string): Promise<PreviousPlace | null> {
  const row = await db
    .selectFrom('account_sign_in_places')
    .select(['countries', 'last_latitude', 'last_longitude', 'last_at'])
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return row ?? null;
}

/** The marks of a successful sign-in (see marksOf); remembers this sign-in's place for the next one. */
export async function signInMarks(db: Db, accountId: string, place: Place, at: Date): Promise<string[]> {
  const before = await previousPlaceOf(db, accountId);
  await rememberPlaceQuery(db, accountId, before, place, at).execute();
  return marksOf(before, place, at);
}
