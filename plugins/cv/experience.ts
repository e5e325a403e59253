/**
 * Experience: years of experience from an explicit statement or from the date ranges of the
 * jobs listed, and the current title and employer from the first job entry.
 */
import { isKnownPlace } from './contact.js';
import { JOB_WORDS, notFound, type Finding } from './finding.js';

/** The month that "present" means; supplied by the caller so parsing never reads the clock. */
export interface ReferenceMonth {
  year: number;
  /** 1-12. */
  month: number;
}

/** Half-open range of months [start, end), counted as year * 12 + (month - 1). */
export interface MonthRange {
  start: number;
  end: number;
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const MONTH_NAME = String.raw`(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?`;
// "2015", "03/2018", "03.2018", "Mar 2018", "March 2018"; groups month name, month number, year.
const point = (group: '(' | '(?:') => String.raw`(?:${group}${MONTH_NAME})\s+|${group}\d{1,2})\s*[/.]\s*)?${group}(?:19|20)\d{2})`;
const OPEN_END_WORDS = 'present|current|now|today|ongoing|date|heute';
const OPEN_END = new RegExp(`^(?:${OPEN_END_WORDS})$`, 'i');
const DATE_RANGE = new RegExp(
  String.raw`(?<![\d/.])(?:(?:since|seit)\s+(${point('(?:')})|(${point('(?:')})\s*(?:-|–|—|to|until|till|bis)\s*(${point('(?:')}|${OPEN_END_WORDS}))(?![\w/])`,
  'gi',
);
const POINT_PARTS = new RegExp(`^${point('(')}$`, 'i');

/** A range's start or end as a month index; `end` makes a month inclusive. */
function monthIndex(written: string, edge: 'start' | 'end'): number | undefined {
  const parts = POINT_PARTS.exec(written.trim());
  if (!parts) return undefined;
  const year = Number(parts[3]);
  const month = parts[1] ? MONTHS.indexOf(parts[1].slice(0, 3).toLowerCase()) + 1 : parts[2] ? Number(parts[2]) : undefined;
  if (month === undefined) return year * 12; // a bare year starts in January; as an end, "2015 - 2020" is 5 years
  if (month < 1 || month > 12) return undefined;
  return year * 12 + month - 1 + (edge === 'end' ? 1 : 0);
}

/** The date ranges written in `text`, "present" meaning the reference month (inclusive). */
export function dateRanges(text: string, now: ReferenceMonth): MonthRange[] {
  const nowEnd = now.year * 12 + now.month;
  const ranges: MonthRange[] = [];
  for (const match of text.matchAll(DATE_RANGE)) {
    const [, since, from, to] = match;
    const start = monthIndex(since ?? from!, 'start');
    const end = since !== undefined || OPEN_END.test(to!) ? nowEnd : monthIndex(to!, 'end');
    if (start === undefined || end === undefined) continue;
    const clampedEnd = Math.min(end, nowEnd);
    if (clampedEnd > start) ranges.push({ start, end: clampedEnd });
  }
  return ranges;
}

/** Total months covered by `ranges`, overlaps counted once. */
export function mergedMonths(ranges: readonly MonthRange[]): number {
  const sorted = [...ranges].sort((a, b) => a.start - b.start || a.end - b.end);
  let total = 0;
  let current: MonthRange | undefined;
  for (const range of sorted) {
    if (current && range.start <= current.end) current.end = Math.max(current.end, range.end);
    else {
      if (current) total += current.end - current.start;
      current = { ...range };
    }
  }
  return current ? total + current.end - current.start : total;
}

const STATED_YEARS = /(\d{1,2}(?:\.\d)?)\s*\+?\s*(?:years?|yrs?)(?:\s+of)?\s+(?:professional\s+|industry\s+|work\s+|relevant\s+|hands-on\s+)?experience/gi;
const MAX_CAREER_YEARS = 60;

/**
 * Years of experience: the largest "N years of experience" the CV states, else the job date
 * ranges merged. `scope` is the experience section when there is one (surer), else the whole
 * text without its education section.
 */
export function findYearsOfExperience(scope: { text: string; isExperienceSection: boolean }, fullText: string, now: ReferenceMonth): Finding<number | null> {
  const stated = [...fullText.matchAll(STATED_YEARS)].map((match) => Number(match[1])).filter((years) => years > 0 && years <= MAX_CAREER_YEARS);
  if (stated.length) return { value: Math.max(...stated), confidence: 0.9 };
  const months = mergedMonths(dateRanges(scope.text, now));
  if (months === 0 || months > MAX_CAREER_YEARS * 12) return notFound(null);
  return { value: Math.round((months / 12) * 10) / 10, confidence: scope.isExperienceSection ? 0.75 : 0.6 };
}

const COMPANY_SUFFIX =
  /\b(gmbh|ag|se|inc|ltd|llc|llp|plc|corp|corporation|company|co|sa|sas|sarl|bv|nv|oy|ab|srl|spa|pty|kg|limited|group|labs|technologies|solutions|systems|bank|university)\b\.?$/i;
const AT_EMPLOYER = /^(.+?)\s+(?:at|@)\s+(.+)$/i;
const DASH_OR_PIPE = /\s+[—–-]\s+|\s*\|\s*/;

export interface Role {
  title: Finding<string | null>;
  employer: Finding<string | null>;
}

/** Dates, empty brackets and dangling separators removed: "Engineer, Acme (2018 – present)" -> "Engineer, Acme". */
function withoutDates(line: string): string {
  return line
    .replace(DATE_RANGE, '')
    .replace(/\(\s*\)|\[\s*\]/g, '')
    .replace(/^[\s,|–—-]+|[\s,|–—-]+$/g, '')
    .trim();
}

/** "Acme GmbH, Berlin" or "Acme Corp — San Francisco, CA" -> the company; "Acme, Inc." stays. */
function employerName(text: string): string {
  const company = text.split(DASH_OR_PIPE).find((part) => !isKnownPlace(part)) ?? text;
  const comma = company.lastIndexOf(',');
  if (comma < 0 || COMPANY_SUFFIX.test(company.slice(comma + 1).trim())) return company;
  return company.slice(0, comma).trim();
}

const role = (title: string, employer: string | null | undefined, confidence: number): Role => ({
  title: { value: title, confidence },
  employer: employer ? { value: employerName(employer), confidence } : notFound(null),
});

/** Title and employer from one line, "Title at Employer" or "Title — Employer" (either order). */
function roleOnLine(line: string, confidence: number): Role | undefined {
  const at = AT_EMPLOYER.exec(line);
  if (at && JOB_WORDS.test(at[1]!)) return role(at[1]!, at[2]!, confidence);
  for (const separator of [DASH_OR_PIPE, /,\s+/]) {
    const parts = line.split(separator);
    if (parts.length < 2) continue;
    const [first, ...rest] = parts as [string, ...string[]];
    const second = rest.join(', ');
    const firstIsTitle = JOB_WORDS.test(first);
    const secondIsTitle = JOB_WORDS.test(second);
    if (firstIsTitle && !secondIsTitle) return role(first, second, separator === DASH_OR_PIPE ? confidence : confidence - 0.05);
    if (secondIsTitle && !firstIsTitle) return role(second, first, confidence - 0.05);
    if (COMPANY_SUFFIX.test(second)) return role(first, second, confidence - 0.1);
  }
  return undefined;
}

const NO_ROLE: Role = { title: notFound(null), employer: notFound(null) };
// An entry's heading is its first few lines; the description (bullets) follows.
const ENTRY_HEADING_LINES = 4;
const BULLET = /^[•▪●■◦*–-]\s*/;
const MAX_TITLE_WORDS = 8;
const isTitleLine = (line: string) => JOB_WORDS.test(line) && line.split(/\s+/).length <= MAX_TITLE_WORDS;

/**
 * The first job entry of the experience section: one line with title and employer, or a title
 * line with the employer on the line after (or before) it. Date and place lines are skipped.
 */
export function findCurrentRole(experienceLines: readonly string[]): Role {
  const heading: string[] = [];
  for (const line of experienceLines) {
    if (BULLET.test(line) && heading.length) break;
    const text = withoutDates(line);
    if (text && !isKnownPlace(text)) heading.push(text);
    if (heading.length === ENTRY_HEADING_LINES) break;
  }
  const oneLine = heading[0] && roleOnLine(heading[0], 0.8);
  if (oneLine) return oneLine;
  const titleAt = heading.findIndex(isTitleLine);
  if (titleAt < 0) return NO_ROLE;
  const title = heading[titleAt]!;
  const before = heading[titleAt - 1];
  const after = heading[titleAt + 1];
  if (before !== undefined) return role(title, before, 0.65);
  return role(title, after !== undefined && !isTitleLine(after) ? after : null, 0.7);
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
