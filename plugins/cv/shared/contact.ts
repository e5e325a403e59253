/** Contact details: email, LinkedIn, phone (patterns) and location (shape near the top). */
import { JOB_WORDS, notFound, type Finding } from './finding.js';
import { isCityName } from './places.js';

const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/;
const LINKEDIN = /(?:https?:\/\/)?(?:[a-z]{2,3}\.)?linkedin\.com\/in\/([A-Za-z0-9_%-]+)/i;

// A narrow sidebar may wrap an address or URL: "jane.doe@mail.exampl" / "e.org", "linkedin.com/in/jane-" / "doe".
const EMAIL_TAIL = /^([a-z0-9][a-z0-9.-]*\.[a-z]{2,})(?:\s|$)/i;
const HANDLE_TAIL = /^([A-Za-z0-9_%-]+)(?:\s|$)/;

/** The text after `end` on the next line, when `end` closes its line. */
function nextLineAfter(text: string, end: number): string | undefined {
  const rest = text.slice(end);
  const newline = /^[ \t]*\r?\n[ \t]*/.exec(rest);
  return newline ? rest.slice(newline[0].length) : undefined;
}

export function findEmail(text: string): Finding<string | null> {
  const match = EMAIL.exec(text);
  if (!match) return notFound(null);
  const tail = EMAIL_TAIL.exec(nextLineAfter(text, match.index + match[0].length) ?? '');
  const joined =
    tail && !/\.(?:com|org|net|de|fr|es|nl|it|pt|be|at|ch|uk|io|eu)$/i.test(match[0]) ? match[0] + tail[1] : match[0];
  return { value: joined.toLowerCase(), confidence: joined === match[0] ? 0.98 : 0.9 };
}

/** The profile URL, normalised to https://www.linkedin.com/in/<handle>. */
export function findLinkedin(text: string): Finding<string | null> {
  const match = LINKEDIN.exec(text);
  if (!match) return notFound(null);
  const tail = match[1]!.endsWith('-')
    ? HANDLE_TAIL.exec(nextLineAfter(text, match.index + match[0].length) ?? '')
    : null;
  const handle = tail ? match[1]! + tail[1] : match[1]!;
  return { value: `https://www.linkedin.com/in/${handle}`, confidence: tail ? 0.9 : 0.97 };
}

// Digits with the separators phone numbers use; en dashes are left out so that "2015–2020" splits.
const PHONE_CANDIDATE = /(?<![\w+/.])(?:\+|00)?\(?\d[\d\s().\-/]{5,22}\d(?![\w/])/g;
const PHONE_LABEL = /\b(phone|tel|telephone|mobile|mob|cell|telefon|handy)\b/i;
// "2015 - 2020", "03/2018 - 05/2021", "01.2019": dates have as many digits as phone numbers.
const DATE_LIKE = /^(?:\d{1,2}[/.])?(?:19|20)\d{2}(?:\s*[-/]\s*(?:\d{1,2}[/.])?(?:19|20)\d{2})?$/;
const MIN_PHONE_DIGITS = 7;
// E.164 allows 15 digits; a few more for a written trunk prefix like "+49 (0)".
const MAX_PHONE_DIGITS = 16;

/** Whether `candidate` is shaped like a phone number rather than a date, range or ID. */
export function isPlausiblePhone(candidate: string): boolean {
  const digits = candidate.replace(/\D/g, '').length;
  if (digits < MIN_PHONE_DIGITS || digits > MAX_PHONE_DIGITS) return false;
  if (DATE_LIKE.test(candidate.trim())) return false;
  // Unbalanced parentheses mean the match cut through prose, e.g. "(2019) 12345".
  return (candidate.match(/\(/g)?.length ?? 0) === (candidate.match(/\)/g)?.length ?? 0);
}

/**
 * The first phone number: labelled ("Phone: ...") or international ("+44 ...") ones are sure;
 * a bare digit run is a guess.
 */
export function findPhone(lines: readonly string[]): Finding<string | null> {
  let guess: Finding<string | null> = notFound(null);
  for (const line of lines) {
    for (const match of line.matchAll(PHONE_CANDIDATE)) {
      const candidate = match[0].trim();
      if (!isPlausiblePhone(candidate)) continue;
      const value = candidate.replace(/\s+/g, ' ');
      if (PHONE_LABEL.test(line) || /^(\+|00)/.test(candidate)) return { value, confidence: 0.95 };
      if (guess.value === null) guess = { value, confidence: 0.7 };
    }
  }
  return guess;
}

const COUNTRIES = new Set(
  [
    'Argentina',
    'Australia',
    'Austria',
    'Belgium',
    'Brazil',
    'Bulgaria',
    'Canada',
    'Chile',
    'China',
    'Colombia',
    'Croatia',
    'Czech Republic',
    'Czechia',
    'Denmark',
    'Egypt',
    'England',
    'Estonia',
    'Finland',
    'France',
    'Germany',
    'Greece',
    'Hungary',
    'India',
    'Indonesia',
    'Ireland',
    'Israel',
    'Italy',
    'Japan',
    'Kenya',
    'Latvia',
    'Lithuania',
    'Luxembourg',
    'Malaysia',
    'Mexico',
    'Morocco',
    'Netherlands',
    'The Netherlands',
    'New Zealand',
    'Nigeria',
    'Norway',
    'Pakistan',
    'Peru',
    'Philippines',
    'Poland',
    'Portugal',
    'Romania',
    'Scotland',
    'Serbia',
    'Singapore',
    'Slovakia',
    'Slovenia',
    'South Africa',
    'South Korea',
    'Spain',
    'Sweden',
    'Switzerland',
    'Taiwan',
    'Thailand',
    'Turkey',
    'Ukraine',
    'United Arab Emirates',
    'United Kingdom',
    'United States',
    'USA',
    'UK',
    'UAE',
    'Vietnam',
    'Wales',
    'Deutschland',
    'Österreich',
    'Schweiz',
    'España',
    'Espanya',
    'Nederland',
    'België',
    'Belgique',
    'Italia',
    'Brasil',
    'Suisse',
    'Svizzera',
    'Frankrijk',
    'Duitsland',
    'Spanje',
    'Allemagne',
    'Espagne',
    'Italie',
    'Royaume-Uni',
    'Alemania',
    'Francia',
    'Reino Unido',
    'Italien',
    'Spanien',
    'Frankreich',
    'Niederlande',
    'Belgien',
    'Luxemburg',
    'Irlanda',
    'Portogallo',
    'Germania',
    'Paesi Bassi',
    'Países Bajos',
  ].map((country) => country.toLowerCase()),
);
const US_STATE = new RegExp(
  '^(AL|AK|AZ|AR|CA|CO|CT|DE|FL|GA|HI|ID|IL|IN|IA|KS|KY|LA|ME|MD|MA|MI|MN|MS|MO|MT|NE|NV|NH|NJ|NM|NY|' +
    'NC|ND|OH|OK|OR|PA|RI|SC|SD|TN|TX|UT|VT|VA|WA|WV|WI|WY|DC)$',
);

const PLACE_WORDS = String.raw`\p{Lu}[\p{L}'.\-]*(?:[ \-]\p{Lu}[\p{L}'.\-]*){0,3}`;
const CITY_COUNTRY = new RegExp(String.raw`^(${PLACE_WORDS}),\s*(${PLACE_WORDS}|[A-Z]{2})$`, 'u');
const LOCATION_LABEL = new RegExp(
  '^(?:location|address|based in|city|residence|wohnort|adresse|anschrift|domicile|ville|' +
    'direcci[oó]n|ubicaci[oó]n|residencia|localidad|woonplaats|adres|indirizzo|residenza|citt[àa]|' +
    String.raw`morada|localiza[çc][ãa]o|endere[çc]o|cidade)\s*:\s*(.+)$`,
  'iu',
);
// "75011 Paris", "1012 AB Amsterdam", "1000-001 Lisboa", "20121 Milano": a postcode and a city.
const POSTCODE_CITY = new RegExp(
  String.raw`^(?:[A-Z]{1,2}-)?\d{4,5}(?:-\d{3})?(?:\s?[A-Z]{2})?\s+${PLACE_WORDS}$`,
  'u',
);
// "Torino (TO)", "São Paulo - SP": a city and its province or state code.
const CITY_CODE = new RegExp(String.raw`^${PLACE_WORDS}\s*(?:\([A-Z]{2}\)|-\s*[A-Z]{2})$`, 'u');
/** Cities written alone in a contact block ("Berlin", "Bologna"); a short list of large European and American ones. */
const CITIES = new Set(
  [
    'Amsterdam',
    'Antwerpen',
    'Athens',
    'Barcelona',
    'Berlin',
    'Bilbao',
    'Bologna',
    'Bordeaux',
    'Braga',
    'Bremen',
    'Brussels',
    'Bruxelles',
    'Brussel',
    'Budapest',
    'Coimbra',
    'Copenhagen',
    'Dortmund',
    'Dresden',
    'Dublin',
    'Düsseldorf',
    'Edinburgh',
    'Eindhoven',
    'Essen',
    'Faro',
    'Firenze',
    'Frankfurt',
    'Genova',
    'Gent',
    'Genève',
    'Granada',
    'Graz',
    'Groningen',
    'Hamburg',
    'Hannover',
    'Köln',
    'Leipzig',
    'Lille',
    'Lisboa',
    'Lisbon',
    'London',
    'Lyon',
    'Madrid',
    'Málaga',
    'Manchester',
    'Marseille',
    'Milano',
    'Milan',
    'Montpellier',
    'München',
    'Munich',
    'Nantes',
    'Napoli',
    'Nice',
    'Nürnberg',
    'Paris',
    'Porto',
    'Prague',
    'Roma',
    'Rome',
    'Rotterdam',
    'Salzburg',
    'Sevilla',
    'Strasbourg',
    'Stuttgart',
    'Toulouse',
    'Torino',
    'Utrecht',
    'Valencia',
    'Venezia',
    'Vienna',
    'Wien',
    'Zaragoza',
    'Zürich',
    'Den Haag',
    'São Paulo',
    'Rio de Janeiro',
    'Buenos Aires',
    'Ciudad de México',
    'New York',
    'Toronto',
    'Montréal',
    'Bruges',
  ].map((city) => city.toLowerCase()),
);

// "46023 ", "3511 AX ", "4000-447 ", "D-50672 ", "M3 2BA " before a city.
const LEADING_POSTCODE =
  /^(?:[A-Z]{1,2}-)?(?:\d{4,5}(?:-\d{3})?(?:\s?[A-Z]{2}(?=\s))?|[A-Z]{1,2}\d[A-Z\d]?\s\d[A-Z]{2})\s+(?=\p{Lu})/u;
// A postal-address label with or without its colon, as a Europass label column writes it ("Dirección Calle ...").
const ADDRESS_LABEL =
  /^(?:address|home address|adresse|anschrift|direcci[oó]n|adres|indirizzo|morada|endere[çc]o)\s*:?\s+(.*\d.*)$/iu;

/**
 * The place in a postal address, as written without the street: from the postcode to the end
 * ("Calle Mayor 3, 50003 Zaragoza, España" -> "50003 Zaragoza, España"); without a postcode,
 * the parts with no house number.
 */
export function placeOfAddress(address: string): string {
  const parts = address.split(/\s*,\s*/);
  const postcoded = parts.findIndex((part) => LEADING_POSTCODE.test(part));
  if (postcoded >= 0) return parts.slice(postcoded).join(', ');
  const words = parts.filter((part) => !/\d/.test(part));
  return words.length ? words.join(', ') : address;
}

const isKnownRegion = (region: string) => COUNTRIES.has(region.toLowerCase()) || US_STATE.test(region);

/** "Berlin, Germany", "Austin, TX" or "Remote": a place, not a company or a title. */
export function isKnownPlace(text: string): boolean {
  const place = CITY_COUNTRY.exec(text.trim());
  return /^remote$/i.test(text.trim()) || (!!place && isKnownRegion(place[2]!) && !JOB_WORDS.test(text));
}

/**
 * Whether `text` names only a place: a known place, a city of the gazetteer ("Zaragoza", "Köln"),
 * a country or US state, or "City, Region" made of those. Only asked where the layout puts a
 * place (after an employer), so a company named like a town elsewhere is safe.
 */
export function isPlaceName(text: string): boolean {
  const trimmed = text.trim();
  if (!trimmed || /\d/.test(trimmed) || JOB_WORDS.test(trimmed)) return false;
  if (isKnownPlace(trimmed) || isKnownRegion(trimmed)) return true;
  const parts = trimmed.split(/\s*,\s*/);
  return (
    parts.length <= 3 &&
    isCityName(parts[0]!, CITIES) &&
    parts.slice(1).every((part) => isKnownRegion(part) || isCityName(part, CITIES))
  );
}

/** "Location: Berlin" (sure), "Berlin, Germany" (likely), "Springfield, Shelbyville" (a guess). */
export function findLocation(header: readonly string[]): Finding<string | null> {
  let guess: Finding<string | null> = notFound(null);
  const better = (value: string, confidence: number) => {
    if (confidence > guess.confidence) guess = { value, confidence };
  };
  const pieces = header.flatMap((line) => line.split(/\s+[|•·]\s+/)).map((piece) => piece.trim());
  for (const [index, raw] of pieces.entries()) {
    const labelled = LOCATION_LABEL.exec(raw) ?? ADDRESS_LABEL.exec(raw);
    if (labelled) return { value: placeOfAddress(labelled[1]!.trim()), confidence: 0.9 };
    // "50672 Köln, Deutschland" is read as "Köln, Deutschland" and given as written.
    const piece = raw.replace(LEADING_POSTCODE, '');
    if (JOB_WORDS.test(piece) || /@|\d{5,}.*\d{3,}/.test(piece)) continue;
    const place = CITY_COUNTRY.exec(piece);
    if (place && isKnownRegion(place[2]!)) return { value: raw, confidence: 0.85 };
    if (piece !== raw && !/\d/.test(piece)) {
      // An address block: "46023 Valencia" with the country on the next line.
      const next = pieces[index + 1];
      better(next && isKnownRegion(next) ? `${raw}, ${next}` : raw, 0.85);
    } else if (POSTCODE_CITY.test(piece) || CITY_CODE.test(piece)) better(piece, 0.85);
    else if (CITIES.has(piece.toLowerCase())) better(piece, 0.8);
    else if (place) better(piece, 0.6);
  }
  return guess;
}
