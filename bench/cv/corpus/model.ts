/** The CV corpus model: what a generated CV says (its ground truth) and how it is rendered. */

export type Lang = 'en' | 'de' | 'fr' | 'es' | 'nl' | 'it' | 'pt';
export const LANGS: readonly Lang[] = ['en', 'de', 'fr', 'es', 'nl', 'it', 'pt'];

/** The file the client uploads. `scan` is a PDF of page images with no text layer. */
export type Format = 'pdf' | 'docx' | 'doc' | 'scan';
/**
 * single column; sidebar as a table's first column; sidebar in a page-anchored frame; contact details only in a text
 * box.
 */
export type Layout = 'single' | 'table' | 'frame' | 'textbox';

export interface Month {
  year: number;
  /** 1-12 */
  month: number;
}

/** How a job entry's heading is laid out. */
export type EntryLayout = 'title-first' | 'employer-first' | 'title-at' | 'dates-left' | 'pipes' | 'right-dates';
/** How the dates of a range are written. */
export type DateStyle = 'month-name' | 'month-abbr' | 'slash' | 'dot' | 'iso' | 'year';

export interface Job {
  title: string;
  employer: string;
  /** Written after the employer ("Acme GmbH, Berlin"); not part of the employer. */
  place?: string;
  start: Month;
  /** undefined: ongoing. */
  end?: Month;
  bullets: string[];
  /** A career break written as an entry (sabbatical, parental leave): never counted as experience. */
  isBreak?: boolean;
}

export interface Education {
  degree: string;
  school: string;
  start: Month;
  end: Month;
}

export interface CvSpec {
  id: string;
  lang: Lang;
  format: Format;
  layout: Layout;
  /** The name as written ("DUPONT Marie"). */
  writtenName: string;
  headline?: string;
  email: string;
  phone: string;
  phoneLabel?: string;
  location: string;
  locationLabel?: string;
  linkedin?: string;
  /** Heading words used by this CV. */
  headings: {
    profile: string;
    experience: string;
    education: string;
    skills: string;
    languages: string;
    contact: string;
  };
  profile: string;
  jobs: Job[];
  education: Education[];
  /** Skills as grouped in the CV: a label (or none) and its items. */
  skillGroups: Array<{ label?: string; items: string[] }>;
  /** Spoken languages, listed in their own section (and sometimes as a group of the skills). */
  spoken: string[];
  spokenInSkills: boolean;
  entryLayout: EntryLayout;
  dateStyle: DateStyle;
  /** The name sits in the sidebar (table / frame layouts). */
  nameInSidebar: boolean;
}

/** What a recruiter would enter for this CV. `years_exp` depends on the month it is read, so the ranges are kept. */
export interface CvTruth {
  id: string;
  lang: Lang;
  format: Format;
  layout: Layout;
  file: string;
  name: string;
  email: string;
  phone: string;
  title: string;
  employer: string;
  location: string;
  linkedin: string | null;
  skills: string[];
  /** Experience ranges (breaks and education excluded); end undefined = ongoing. */
  experience: Array<{ start: Month; end?: Month }>;
}

const index = (month: Month) => month.year * 12 + month.month - 1;

/** Years of experience on `now`: the union of the ranges, months inclusive, ongoing up to `now`, one decimal. */
export function yearsOn(ranges: CvTruth['experience'], now: Month): number {
  const nowEnd = index(now) + 1;
  const spans = ranges
    .map(({ start, end }) => {
      const e = end ? index(end) + 1 : nowEnd;
      return { start: index(start), end: Math.min(e, nowEnd) };
    })
    .filter((span) => span.end > span.start)
    .sort((a, b) => a.start - b.start);
  let total = 0;
  let current: { start: number; end: number } | undefined;
  for (const span of spans) {
    if (current && span.start <= current.end) current.end = Math.max(current.end, span.end);
    else {
      if (current) total += current.end - current.start;
      current = { ...span };
    }
  }
  if (current) total += current.end - current.start;
  return Math.round((total / 12) * 10) / 10;
}
