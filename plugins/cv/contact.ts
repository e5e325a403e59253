/** Contact details: email, LinkedIn, phone (patterns) and location (shape near the top). */
import { JOB_WORDS, notFound, type Finding } from './finding.js';

const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/;
const LINKEDIN = /(?:https?:\/\/)?(?:[a-z]{2,3}\.)?linkedin\.com\/in\/([A-Za-z0-9_%-]+)/i;

export function findEmail(text: string): Finding<string | null> {
  const match = EMAIL.exec(text);
  return match ? { value: match[0].toLowerCase(), confidence: 0.98 } : notFound(null);
}

/** The profile URL, normalised to https://www.linkedin.com/in/<handle>. */
export function findLinkedin(text: string): Finding<string | null> {
  const match = LINKEDIN.exec(text);
  return match ? { value: `https://www.linkedin.com/in/${match[1]}`, confidence: 0.97 } : notFound(null);
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
    'Argentina', 'Australia', 'Austria', 'Belgium', 'Brazil', 'Bulgaria', 'Canada', 'Chile', 'China', 'Colombia', 'Croatia',
    'Czech Republic', 'Czechia', 'Denmark', 'Egypt', 'England', 'Estonia', 'Finland', 'France', 'Germany', 'Greece', 'Hungary',
    'India', 'Indonesia', 'Ireland', 'Israel', 'Italy', 'Japan', 'Kenya', 'Latvia', 'Lithuania', 'Luxembourg', 'Malaysia',
    'Mexico', 'Morocco', 'Netherlands', 'The Netherlands', 'New Zealand', 'Nigeria', 'Norway', 'Pakistan', 'Peru',
    'Philippines', 'Poland', 'Portugal', 'Romania', 'Scotland', 'Serbia', 'Singapore', 'Slovakia', 'Slovenia', 'South Africa',
    'South Korea', 'Spain', 'Sweden', 'Switzerland', 'Taiwan', 'Thailand', 'Turkey', 'Ukraine', 'United Arab Emirates',
    'United Kingdom', 'United States', 'USA', 'UK', 'UAE', 'Vietnam', 'Wales', 'Deutschland', 'Österreich', 'Schweiz',
  ].map((country) => country.toLowerCase()),
);
const US_STATE =
  /^(AL|AK|AZ|AR|CA|CO|CT|DE|FL|GA|HI|ID|IL|IN|IA|KS|KY|LA|ME|MD|MA|MI|MN|MS|MO|MT|NE|NV|NH|NJ|NM|NY|NC|ND|OH|OK|OR|PA|RI|SC|SD|TN|TX|UT|VT|VA|WA|WV|WI|WY|DC)$/;

const PLACE_WORDS = String.raw`\p{Lu}[\p{L}'.\-]*(?:[ \-]\p{Lu}[\p{L}'.\-]*){0,3}`;
const CITY_COUNTRY = new RegExp(String.raw`^(${PLACE_WORDS}),\s*(${PLACE_WORDS}|[A-Z]{2})$`, 'u');
const LOCATION_LABEL = /^(?:location|address|based in|city|residence|wohnort)\s*:?\s+(.+)$/i;

const isKnownRegion = (region: string) => COUNTRIES.has(region.toLowerCase()) || US_STATE.test(region);

/** "Berlin, Germany", "Austin, TX" or "Remote": a place, not a company or a title. */
export function isKnownPlace(text: string): boolean {
  const place = CITY_COUNTRY.exec(text.trim());
  return /^remote$/i.test(text.trim()) || (!!place && isKnownRegion(place[2]!) && !JOB_WORDS.test(text));
}

/** "Location: Berlin" (sure), "Berlin, Germany" (likely), "Springfield, Shelbyville" (a guess). */
export function findLocation(header: readonly string[]): Finding<string | null> {
  let guess: Finding<string | null> = notFound(null);
  for (const piece of header.flatMap((line) => line.split(/\s+[|•·]\s+/))) {
    const labelled = LOCATION_LABEL.exec(piece);
    if (labelled) return { value: labelled[1]!.trim(), confidence: 0.9 };
    const place = CITY_COUNTRY.exec(piece);
    if (!place || JOB_WORDS.test(piece)) continue;
    if (isKnownRegion(place[2]!)) return { value: piece, confidence: 0.85 };
    if (guess.value === null) guess = { value: piece, confidence: 0.6 };
  }
  return guess;
}
