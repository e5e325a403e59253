/**
 * Date ranges in CVs in English, German, French, Spanish, Dutch, Italian and Portuguese: month
 * names and abbreviations, numeric months (03/2017, 06.2022, 2025-06), bare years, "present"
 * words (heute, aujourd'hui, actualidad, heden, oggi, atual...) and open starts (Since, Seit,
 * Depuis, Desde, Sinds, Dal).
 */

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

const fold = (text: string) =>
  text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/\.$/, '');

// Each month's names and abbreviations across the seven languages.
const MONTH_WORDS: string[][] = [
  ['january', 'jan', 'januar', 'jänner', 'janvier', 'janv', 'enero', 'ene', 'januari', 'gennaio', 'gen', 'janeiro'],
  [
    'february',
    'feb',
    'februar',
    'février',
    'févr',
    'fév',
    'fevr',
    'febrero',
    'februari',
    'febbraio',
    'fevereiro',
    'fev',
  ],
  ['march', 'mar', 'märz', 'mrz', 'mars', 'marzo', 'maart', 'mrt', 'março', 'marco'],
  ['april', 'apr', 'avril', 'avr', 'abril', 'abr', 'aprile'],
  ['may', 'mai', 'mayo', 'mei', 'maggio', 'mag', 'maio'],
  ['june', 'jun', 'juni', 'juin', 'junio', 'giugno', 'giu', 'junho'],
  ['july', 'jul', 'juli', 'juillet', 'juil', 'julio', 'luglio', 'lug', 'julho'],
  ['august', 'aug', 'août', 'aout', 'agosto', 'ago', 'augustus'],
  ['september', 'sep', 'sept', 'septembre', 'septiembre', 'setiembre', 'settembre', 'set', 'sett', 'setembro'],
  ['october', 'oct', 'oktober', 'okt', 'octobre', 'octubre', 'ottobre', 'ott', 'outubro', 'out'],
  ['november', 'nov', 'novembre', 'noviembre', 'novembro'],
  ['december', 'dec', 'dezember', 'dez', 'décembre', 'déc', 'diciembre', 'dic', 'dicembre', 'dezembro'],
];
const MONTH_NUMBER = new Map<string, number>();
for (const [index, words] of MONTH_WORDS.entries()) for (const word of words) MONTH_NUMBER.set(fold(word), index + 1);

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const alternation = (words: Iterable<string>) =>
  [...new Set([...words].flatMap((word) => [word, fold(word)]))]
    .sort((a, b) => b.length - a.length)
    .map(escapeRegExp)
    .join('|');

const MONTH_NAME = String.raw`(?<![\p{L}])(?:${alternation(MONTH_WORDS.flat())})\.?`;
const YEAR = String.raw`(?:19|20)\d{2}`;
// "Mar 2018", "marzo de 2017", "03/2018", "03.2018", "2018-03", "2018".
const POINT = String.raw`(?:(?:${MONTH_NAME})\s*(?:de\s+)?|\d{1,2}\s*[/.]\s*)?${YEAR}(?:-(?:0[1-9]|1[0-2])(?!\d))?`;

const PRESENT_WORDS = [
  'present',
  'current',
  'currently',
  'now',
  'today',
  'ongoing',
  'date',
  'heute',
  'dato',
  'jetzt',
  'laufend',
  'gegenwärtig',
  "aujourd'hui",
  'aujourd’hui',
  'à ce jour',
  'ce jour',
  'présent',
  'en cours',
  'actuel',
  'maintenant',
  'actualidad',
  'presente',
  'actualmente',
  'hoy',
  'la fecha',
  'heden',
  'nu',
  'huidig',
  'oggi',
  'ad oggi',
  'in corso',
  'attuale',
  'atual',
  'atualmente',
  'o momento',
  'momento',
  'hoje',
  'actual',
];
const OPEN_END = String.raw`(?:${alternation(PRESENT_WORDS)})(?![\p{L}])`;
const SINCE = "(?:since|from|seit|ab|depuis|desde|sinds|vanaf|dal|dall'|da)";
const TO = '(?:-|–|—|‒|to|until|till|bis|à|au|a|al|tot|até|ao|hasta|fino al)';

const DATE_RANGE = new RegExp(
  String.raw`(?<![\d/.\p{L}])(?:(?:${SINCE})\s+)?(${POINT})\s*${TO}\s*(${POINT}|${OPEN_END})(?![\d/])|` +
    String.raw`(?<![\p{L}])${SINCE}\s+(${POINT})(?![\d/]|\s*${TO}\s*\d)`,
  'giu',
);
const POINT_PARTS = new RegExp(
  String.raw`^(?:(${MONTH_NAME})\s*(?:de\s+)?|(\d{1,2})\s*[/.]\s*)?(${YEAR})(?:-(\d{2}))?$`,
  'iu',
);

/** A range's start or end as a month index; `end` makes a month inclusive. */
function monthIndex(written: string, edge: 'start' | 'end'): number | undefined {
  const parts = POINT_PARTS.exec(written.trim());
  if (!parts) return undefined;
  const year = Number(parts[3]);
  const month = parts[1]
    ? MONTH_NUMBER.get(fold(parts[1]))
    : parts[2]
      ? Number(parts[2])
      : parts[4]
        ? Number(parts[4])
        : undefined;
  if (month === undefined) return year * 12; // a bare year starts in January; as an end, "2015 - 2020" is 5 years
  if (month < 1 || month > 12) return undefined;
  return year * 12 + month - 1 + (edge === 'end' ? 1 : 0);
}

export interface WrittenRange extends MonthRange {
  /** Where the range is written in the text, and its length. */
  index: number;
  length: number;
}

/** The date ranges written in `text`, "present" meaning the reference month (inclusive). */
export function writtenRanges(text: string, now: ReferenceMonth): WrittenRange[] {
  const nowEnd = now.year * 12 + now.month;
  const ranges: WrittenRange[] = [];
  for (const match of text.matchAll(DATE_RANGE)) {
    const [, from, to, since] = match;
    const start = monthIndex(since ?? from!, 'start');
    const open = since !== undefined || !/\d/.test(to!);
    const end = open ? nowEnd : monthIndex(to!, 'end');
    if (start === undefined || end === undefined) continue;
    const clampedEnd = Math.min(end, nowEnd);
    if (clampedEnd > start) ranges.push({ start, end: clampedEnd, index: match.index, length: match[0].length });
  }
  return ranges;
}

export const dateRanges = (text: string, now: ReferenceMonth): MonthRange[] =>
  writtenRanges(text, now).map(({ start, end }) => ({ start, end }));

/** `line` without its date ranges (and brackets or separators left dangling). */
export function withoutDateRanges(line: string): string {
  return line
    .replace(DATE_RANGE, '')
    .replace(/\(\s*\)|\[\s*\]/g, '')
    .replace(/^[\s,|–—:-]+|[\s,|–—:-]+$/g, '')
    .trim();
}

/** Whether the line holds a date range. */
export const hasDateRange = (line: string) => new RegExp(DATE_RANGE.source, 'iu').test(line);

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

// A CV's own date: "Last updated: March 2024", "Stand: 03/2024", "Mis à jour le 12/03/2024", "Berlin, den
// 12. März 2024" under the letter's signature. Labels in the seven languages; "Date of birth" is no document date.
const DATE_LABEL =
  String.raw`(?<![\p{L}])(?:last\s+updated|updated(?:\s+on)?|as\s+of|dated|date(?!\s+of\s+birth)|` +
  String.raw`stand|datum|zuletzt\s+aktualisiert|aktualisiert(?:\s+am)?|mis\s+[àa]\s+jour(?:\s+le)?|fait\s+le|` +
  String.raw`actualizado(?:\s+(?:el|en))?|fecha|bijgewerkt(?:\s+op)?|aggiornato(?:\s+al)?|atualizado(?:\s+em)?|data)` +
  String.raw`(?![\p{L}])\s*[:.-]?\s*`;
// A full date: "12.03.2024", "12/03/2024", "2024-03-12", "12 March 2024", "12. März 2024", "March 12, 2024".
const DAY = String.raw`(?:0?[1-9]|[12]\d|3[01])`;
const FULL_DATE =
  String.raw`${DAY}\s*[./]\s*(0?[1-9]|1[0-2])\s*[./]\s*(${YEAR})|(${YEAR})-(0[1-9]|1[0-2])-${DAY}|` +
  String.raw`${DAY}\.?\s+(?:de\s+)?(${MONTH_NAME})\s+(?:de\s+)?(${YEAR})|(${MONTH_NAME})\s+${DAY},?\s+(${YEAR})`;
const STATED_DATE = `(?:${FULL_DATE}|(${POINT}))`;
const LABELLED_DATE = new RegExp(`${DATE_LABEL}${STATED_DATE}(?![\\d/.])`, 'giu');
// A line of a place and a date only, as a letter is signed: "Berlin, den 12. März 2024", "Lyon, le 3 mai 2024".
const SIGNED_DATE = new RegExp(
  String.raw`^\p{Lu}[\p{L}\s.'-]{1,40},\s*(?:den|le|el|il|em|op|am|im|a|à)?\s*${STATED_DATE}\s*$`,
  'gimu',
);

function statedMonth(match: RegExpMatchArray): number | undefined {
  const [, dottedMonth, dottedYear, isoYear, isoMonth, dayMonthName, dayMonthYear, monthName, monthNameYear, point] =
    match;
  if (dottedYear) return Number(dottedYear) * 12 + Number(dottedMonth) - 1;
  if (isoYear) return Number(isoYear) * 12 + Number(isoMonth) - 1;
  const named = dayMonthName ?? monthName;
  const namedYear = dayMonthYear ?? monthNameYear;
  if (named && namedYear) {
    const month = MONTH_NUMBER.get(fold(named.replace(/\.$/, '')));
    return month === undefined ? undefined : Number(namedYear) * 12 + month - 1;
  }
  // A point with a month ("03/2024", "March 2024"); a bare year says too little to date a document.
  if (point && /\D\d{4}$|\p{L}/u.test(point.trim())) return monthIndex(point, 'start');
  return undefined;
}

/**
 * The month that "present" means for this CV: the date the CV states for itself (updated, signed), when it
 * states one that is no later than `now` and no earlier than the last month any job or study it lists ended
 * (a date before that is not the document's: a birth date, a certificate's); else `now`.
 */
export function documentMonth(text: string, now: ReferenceMonth): ReferenceMonth {
  const nowIndex = now.year * 12 + now.month - 1;
  const closedEnds = [...text.matchAll(DATE_RANGE)].flatMap((match) => {
    const to = match[2];
    if (!to || !/\d/.test(to)) return [];
    const end = monthIndex(to, 'end');
    return end === undefined ? [] : [end - 1];
  });
  const latestEnd = Math.max(-1, ...closedEnds);
  const stated = [...text.matchAll(LABELLED_DATE), ...text.matchAll(SIGNED_DATE)]
    .map(statedMonth)
    .filter((month): month is number => month !== undefined && month <= nowIndex && month >= latestEnd);
  if (!stated.length) return now;
  const month = Math.max(...stated);
  return { year: Math.floor(month / 12), month: (month % 12) + 1 };
}

const ENDS_WITH_POINT = new RegExp(String.raw`(?<![\d/.])${POINT}\s*$`, 'iu');
const OPENS_WITH_END = new RegExp(String.raw`^\s*${TO}\s*(?:${POINT}|${OPEN_END})(?![\d/])`, 'iu');

/**
 * Lines with a date range wrapped at its connector joined back: "… | 2021" over "bis jetzt" reads "… | 2021
 * bis jetzt" (a narrow column wraps a right-aligned range). The second line is left empty, so line numbers hold.
 */
export function joinWrappedRanges(lines: readonly string[]): string[] {
  const joined = [...lines];
  for (let i = 0; i + 1 < joined.length; i++) {
    const line = joined[i]!;
    const next = joined[i + 1]!;
    if (!ENDS_WITH_POINT.test(line) || hasDateRange(line.replace(ENDS_WITH_POINT, '')) || !OPENS_WITH_END.test(next))
      continue;
    if (hasDateRange(`${line} ${next.trim()}`)) {
      joined[i] = `${line} ${next.trim()}`;
      joined[i + 1] = '';
    }
  }
  return joined;
}
