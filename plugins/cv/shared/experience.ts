/**
 * Experience: years of experience from an explicit statement or from the date ranges of the
 * jobs listed, and the current title and employer from the first job entry.
 */
import { isKnownPlace, isPlaceName } from './contact.js';
import {
  dateRanges,
  hasDateRange,
  joinWrappedRanges,
  mergedMonths,
  withoutDateRanges,
  type MonthRange,
  type ReferenceMonth,
} from './dates.js';
import { JOB_WORDS, notFound, type Finding } from './finding.js';

export type { MonthRange, ReferenceMonth } from './dates.js';
export { dateRanges, mergedMonths } from './dates.js';

// Entries that are not employment: never counted as experience.
const CAREER_BREAK = new RegExp(
  'career break|sabbatical|parental leave|maternity leave|paternity leave|elternzeit|auszeit|' +
    'mutterschutz|ann[ée]e sabbatique|cong[ée] (?:parental|maternit[ée]|sabbatique)|excedencia|' +
    'a[ñn]o sab[áa]tico|ouderschapsverlof|zwangerschapsverlof|anno sabbatico|congedo (?:parentale|' +
    'di maternit[àa])|licen[çc]a (?:parental|de maternidade)|ano sab[áa]tico',
  'i',
);

// Internships and student jobs: training, not experience. A recruiter counts the years a person
// was employed after (or beside) their studies, so these ranges are left out whatever their length.
const INTERNSHIP = new RegExp(
  String.raw`(?<!\p{L})(?:intern|internship|summer intern|working student|praktikum|praktikant(?:in)?|` +
    'werkstudent(?:in)?|stagiaire|stage|alternant(?:e)?|alternance|becari[oa]|beca|pr[áa]cticas|' +
    'stagiair(?:e)?|afstudeerstage|afstudeerstagiair|stage|tirocinio|tirocinante|stagista|est[áa]gio|' +
    String.raw`estagi[áa]ri[oa])(?!\p{L})`,
  'iu',
);
const ENTRY_BULLET = /^[•▪●■◦*–-]\s*/;
const MAX_ENTRY_HEADING_WORDS = 10;

/**
 * The heading lines of the entry a dated line belongs to: the line itself without its dates, the
 * undated lines just above it (back to the previous entry's dates or bullets) and the undated
 * line just below it (layouts that put the dates first). Bullets and prose are not headings.
 */
function entryHeading(lines: readonly string[], index: number): string[] {
  const isHeading = (line: string | undefined): line is string =>
    line !== undefined &&
    !ENTRY_BULLET.test(line) &&
    !hasDateRange(line) &&
    line.split(/\s+/).length <= MAX_ENTRY_HEADING_WORDS;
  const heading = [withoutDateRanges(lines[index]!)];
  for (let above = index - 1; above >= Math.max(0, index - 2) && isHeading(lines[above]); above--)
    heading.push(lines[above]!);
  if (isHeading(lines[index + 1])) heading.push(lines[index + 1]!);
  return heading.filter(Boolean);
}

/**
 * The date ranges of job entries: an entry that is a career break or an internship is left out
 * (its dated line, the heading lines around it).
 */
export function jobRanges(lines: readonly string[], now: ReferenceMonth): MonthRange[] {
  return lines.flatMap((line, index) => {
    const ranges = dateRanges(line, now);
    if (!ranges.length) return [];
    const entryText = withoutDateRanges(line) || (lines[index - 1] ?? '');
    if (CAREER_BREAK.test(entryText) || CAREER_BREAK.test(line)) return [];
    return entryHeading(lines, index).some((heading) => INTERNSHIP.test(heading)) ? [] : ranges;
  });
}

const STATED_YEARS = new RegExp(
  String.raw`(\d{1,2}(?:\.\d)?)\s*\+?\s*(?:years?|yrs?)(?:\s+of)?\s+(?:professional\s+|industry\s+|work\s+|` +
    String.raw`relevant\s+|hands-on\s+)?experience`,
  'gi',
);
const MAX_CAREER_YEARS = 60;

/**
 * Years of experience: the largest "N years of experience" the CV states, else the job date
 * ranges merged. `scope` is the experience section when there is one (surer), else the whole
 * text without its education section.
 */
export function findYearsOfExperience(
  scope: { text: string; isExperienceSection: boolean },
  fullText: string,
  now: ReferenceMonth,
): Finding<number | null> {
  const months = mergedMonths(jobRanges(joinWrappedRanges(scope.text.split('\n')), now));
  const stated = [...fullText.matchAll(STATED_YEARS)]
    .map((match) => Number(match[1]))
    .filter((years) => years > 0 && years <= MAX_CAREER_YEARS);
  // A stated figure when the CV lists no dated jobs (or no experience section to read them from).
  if (stated.length && (months === 0 || !scope.isExperienceSection))
    return { value: Math.max(...stated), confidence: 0.9 };
  if (months === 0 || months > MAX_CAREER_YEARS * 12) return notFound(null);
  return { value: Math.round((months / 12) * 10) / 10, confidence: scope.isExperienceSection ? 0.75 : 0.6 };
}

const COMPANY_SUFFIX = new RegExp(
  String.raw`(?:^|[\s,])(?:gmbh|ag|se|kg|inc|ltd|llc|llp|plc|corp|corporation|company|co|sa|s\.a|sas|sarl|s\.l|` +
    String.raw`sl|bv|b\.v|nv|n\.v|oy|ab|srl|s\.r\.l|spa|s\.p\.a|lda|ltda|pty|limited|group|groupe|grupo|gruppo|` +
    'labs|technologies|solutions|systems|bank|banco|banca|banque|university|universität|université|' +
    String.raw`universidad|universidade|università)\.?$`,
  'i',
);
// "Title at Employer" in the seven languages; the specific words first, the short ones ("en", "na") last.
const AT_EMPLOYER = [
  /^(.+?)\s+(?:at|@|chez|bei|bij|presso|für|pour|para)\s+(.+)$/i,
  /^(.+?)\s+(?:en|na|no|em|in)\s+(.+)$/i,
];

export interface Role {
  title: Finding<string | null>;
  employer: Finding<string | null>;
}

/** Dates, empty brackets and dangling separators removed: "Engineer, Acme (2018 – present)" -> "Engineer, Acme". */
const withoutDates = withoutDateRanges;

// Separators between an entry's parts, strongest first. A spaced hyphen also joins double-barrelled company names
// ("Homenick - Balistreri").
const STRONG_SEPARATOR = /(\s+[—–]\s+|\s*\|\s*)/;
const HYPHEN_SEPARATOR = /(\s+-\s+)/;

/** Parts of `text` cut at `separator`, the separators kept at odd indexes. */
const cut = (text: string, separator: RegExp) => text.split(separator);

/**
 * The employer without the place written with it: "Acme GmbH, Berlin", "Acme Corp — San
 * Francisco, CA", "Acme S.A. (Zaragoza)" -> the company. Hyphenated and multi-word names and legal
 * forms stay whole ("Homenick - Balistreri LLC", "Acme, Inc."); only a part that is a place
 * (gazetteer, countries, US states) is dropped.
 */
export function employerName(text: string): string {
  let company = text.trim().replace(/\s*\(([^()]+)\)$/, (whole, inner: string) => (isPlaceName(inner) ? '' : whole));
  for (const separator of [STRONG_SEPARATOR, HYPHEN_SEPARATOR]) {
    const parts = cut(company, separator);
    while (parts.length > 2 && isPlaceName(parts.at(-1)!)) parts.splice(-2);
    while (parts.length > 2 && isPlaceName(parts[0]!)) parts.splice(0, 2);
    // Two strong-separated parts, neither a known place: the first is the company ("Acme — Springfield").
    if (separator === STRONG_SEPARATOR && parts.length > 2) parts.splice(1);
    company = parts.join('');
  }
  // "Acme GmbH, Köln, Deutschland": trailing places go; a legal form after a comma stays.
  const pieces = company.split(/\s*,\s*/);
  while (pieces.length > 1 && isPlaceName(pieces.at(-1)!)) pieces.pop();
  company = pieces.join(', ');
  const comma = company.lastIndexOf(',');
  if (comma < 0 || COMPANY_SUFFIX.test(company.slice(comma + 1).trim())) return company;
  // One more comma part that is not a legal form: an unknown town ("Acme GmbH, Kleinstadt").
  return company.slice(0, comma).trim();
}

const role = (title: string, employer: string | null | undefined, rawConfidence: number): Role => {
  const confidence = Math.round(rawConfidence * 100) / 100;
  return {
    title: { value: title, confidence },
    employer: employer ? { value: employerName(employer), confidence } : notFound(null),
  };
};

/**
 * Title and employer from one line, "Title at Employer" or "Title — Employer" (either order). The
 * line is cut at one separator, strongest first (dash or pipe, comma, spaced hyphen), where
 * exactly one side holds a job word and the other is not a place.
 */
function roleOnLine(line: string, confidence: number): Role | undefined {
  for (const pattern of AT_EMPLOYER) {
    const at = pattern.exec(line);
    if (at && JOB_WORDS.test(at[1]!) && !JOB_WORDS.test(at[2]!) && !isPlaceName(employerName(at[2]!)))
      return role(at[1]!, at[2]!, confidence);
  }
  const separators: Array<[RegExp, number]> = [
    [STRONG_SEPARATOR, 0],
    [/(,\s+)/, 0.05],
    [HYPHEN_SEPARATOR, 0.05],
  ];
  for (const [separator, penalty] of separators) {
    const parts = cut(line, separator);
    for (let at = 1; at < parts.length; at += 2) {
      const first = parts.slice(0, at).join('').trim();
      const second = parts
        .slice(at + 1)
        .join('')
        .trim();
      const firstIsTitle = JOB_WORDS.test(first);
      const secondIsTitle = JOB_WORDS.test(second);
      if (firstIsTitle && !secondIsTitle && !isPlaceName(employerName(second)))
        return role(first, second, confidence - penalty);
      if (secondIsTitle && !firstIsTitle && !isPlaceName(employerName(first)))
        return role(second, first, confidence - 0.05);
    }
  }
  for (const separator of [STRONG_SEPARATOR, /(,\s+)/]) {
    const parts = cut(line, separator);
    if (parts.length >= 3 && COMPANY_SUFFIX.test(employerName(parts.slice(2).join(''))))
      return role(parts[0]!, parts.slice(2).join(''), confidence - 0.1);
  }
  return undefined;
}

const NO_ROLE: Role = { title: notFound(null), employer: notFound(null) };
// An entry's heading is its first few lines; the description (bullets) follows.
const ENTRY_HEADING_LINES = 3;
const BULLET = /^[•▪●■◦*–-]\s*/;
const MAX_TITLE_WORDS = 8;
const isTitleLine = (line: string) => JOB_WORDS.test(line) && line.split(/\s+/).length <= MAX_TITLE_WORDS;

/**
 * The first job entry of the experience section: one line with title and employer, or a title
 * line with the employer on the line after (or before) it. Date and place lines are skipped; the
 * entry ends at its first bullet or at the next entry's dates.
 */
export function findCurrentRole(experienceLines: readonly string[]): Role {
  const heading: string[] = [];
  let dated = false;
  for (const line of experienceLines) {
    if (BULLET.test(line) && heading.length) break;
    const hasDates = hasDateRange(line);
    if (hasDates && dated && heading.length) break;
    dated ||= hasDates;
    const text = withoutDates(line);
    if (text && !isKnownPlace(text) && !BULLET.test(line)) heading.push(text);
    if (heading.length === ENTRY_HEADING_LINES) break;
  }
  const oneLine = heading[0] && roleOnLine(heading[0], 0.85);
  if (oneLine) return oneLine;
  const titleAt = heading.findIndex(isTitleLine);
  if (titleAt < 0) return NO_ROLE;
  const title = heading[titleAt]!;
  const before = heading[titleAt - 1];
  const after = heading[titleAt + 1];
  if (before !== undefined) return role(title, before, COMPANY_SUFFIX.test(employerName(before)) ? 0.8 : 0.7);
  const employer = after !== undefined && !isTitleLine(after) ? after : null;
  return role(title, employer, employer && COMPANY_SUFFIX.test(employerName(employer)) ? 0.8 : 0.75);
}

/** Without an experience section: a "Title at Employer" line, or a headline under the name. */
export function findRoleInHeader(header: readonly string[]): Role {
  for (const line of header) {
    const found = roleOnLine(withoutDates(line), 0.6);
    if (found) return found;
  }
  const headline = header.find((line) => JOB_WORDS.test(line) && line.split(/\s+/).length <= 6 && !/[@\d]/.test(line));
  return headline ? { title: { value: headline, confidence: 0.55 }, employer: notFound(null) } : NO_ROLE;
}
