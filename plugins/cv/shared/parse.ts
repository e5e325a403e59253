/**
 * CV text -> the parse-cv row. Pure and deterministic: rules only, no clock (the caller passes
 * the reference month), no network, no model.
 */
import { findEmail, findLinkedin, findLocation, findPhone } from './contact.js';
import { documentMonth } from './dates.js';
import { findCurrentRole, findRoleInHeader, findYearsOfExperience, type ReferenceMonth } from './experience.js';
import { JOB_WORDS, notFound, type Finding } from './finding.js';
import { isDocumentTitle, readDocument, sectionOf, type CvDocument } from './sections.js';
import { findSkills } from './skills.js';

export const CV_FIELDS = [
  'name',
  'email',
  'phone',
  'title',
  'employer',
  'location',
  'linkedin',
  'skills',
  'years_exp',
] as const;
export type CvField = (typeof CV_FIELDS)[number];

export interface CvRow {
  name: string | null;
  email: string | null;
  phone: string | null;
  title: string | null;
  employer: string | null;
  location: string | null;
  linkedin: string | null;
  skills: string[];
  /** null when the CV states no experience and lists no dated jobs (0 would claim none). */
  years_exp: number | null;
  confidence: Record<CvField, number>;
}

export interface ParseOptions {
  now: ReferenceMonth;
  /** The text came from OCR: characters may be misread, so every confidence is lowered. */
  ocr: boolean;
}

const OCR_CONFIDENCE_FACTOR = 0.9;
const NAME_SEARCH_LINES = 8;
const NAME_PARTICLES = new Set([
  'van',
  'von',
  'der',
  'den',
  'de',
  'del',
  'della',
  'da',
  'di',
  'du',
  'la',
  'le',
  'bin',
  'ibn',
  'al',
  'y',
]);
const NAME_WORD = /^\p{Lu}[\p{L}'’.-]*$/u;
// "Name:", and a label column's "Nombre Diego García" (no colon): name, nom, nombre, naam, nome.
const NAME_LABEL = new RegExp(
  String.raw`^(?:full\s+name|name|nom|nombre|naam|nome|nom complet|nombre completo|nome completo|` +
    String.raw`vollständiger name)(?:\s*:\s*|\s+(?=\p{Lu}))`,
  'iu',
);

/** Whether `line` is shaped like a person's name: 2-4 capitalised words, nothing else. */
export function looksLikeName(line: string): boolean {
  if (line.length > 50 || /[\d@:,/|()]|https?|www\./i.test(line) || JOB_WORDS.test(line)) return false;
  const words = line.split(/\s+/);
  const capitalised = words.filter((word) => NAME_WORD.test(word)).length;
  const particles = words.filter((word) => NAME_PARTICLES.has(word)).length;
  return capitalised >= 2 && capitalised <= 4 && capitalised + particles === words.length;
}

const isUpperWord = (word: string) =>
  /\p{Lu}/u.test(word) && word === word.toLocaleUpperCase('und') && /\p{L}{2}/u.test(word);
const capitalise = (word: string) =>
  word
    .toLocaleLowerCase('und')
    .replace(/(^|[-'’])(\p{L})/gu, (_, mark: string, letter: string) => mark + letter.toLocaleUpperCase('und'));

/**
 * The name in normal case, given names first: "DUPONT Marie" -> "Marie Dupont", "Marie DUPONT" ->
 * "Marie Dupont", "MARIE DUPONT" -> "Marie Dupont". Particles stay lower case.
 */
export function normalName(name: string): string {
  const words = name.split(/\s+/);
  const upper = words.map(isUpperWord);
  const allUpper = upper.every(Boolean);
  const cased = words.map((word, index) =>
    !upper[index] ? word : NAME_PARTICLES.has(word.toLowerCase()) && !allUpper ? word.toLowerCase() : capitalise(word),
  );
  // Surname first in capitals: the leading upper-case words move to the end.
  const leading = upper.findIndex((isUpper) => !isUpper);
  if (!allUpper && leading > 0 && upper.slice(leading).every((isUpper) => !isUpper))
    return [...cased.slice(leading), ...cased.slice(0, leading)].join(' ');
  return cased.join(' ');
}

const CONTACT_LINE = /@|https?:|www\.|linkedin|\d{3}|^\+/i;

/**
 * The first name-shaped line near the top; surer on the first line (contact lines aside) or when
 * labelled. A name a narrow sidebar wrapped ("Sophie" / "RICHTER") is joined.
 */
export function findName(header: readonly string[]): Finding<string | null> {
  const candidates = header.filter((line) => !isDocumentTitle(line));
  let position = 0;
  for (const [index, line] of candidates.entries()) {
    if (position >= NAME_SEARCH_LINES) break;
    if (CONTACT_LINE.test(line)) continue;
    const labelled = NAME_LABEL.test(line);
    let name = line.replace(NAME_LABEL, '').trim();
    const next = candidates[index + 1];
    if (!name.includes(' ') && next && /^\p{Lu}[\p{L}'’-]+$/u.test(next) && looksLikeName(`${name} ${next}`))
      name = `${name} ${next}`;
    if (looksLikeName(name)) {
      const confidence = labelled ? 0.9 : position === 0 ? 0.85 : position <= 2 ? 0.75 : 0.6;
      return { value: normalName(name), confidence };
    }
    position++;
  }
  return notFound(null);
}

/** Experience section when there is one; else everything but the education section. */
function experienceScope(doc: CvDocument): { text: string; isExperienceSection: boolean } {
  const experience = sectionOf(doc, 'experience');
  if (experience) return { text: experience.lines.join('\n'), isExperienceSection: true };
  const education = sectionOf(doc, 'education');
  const inEducation = (index: number) =>
    !!education && index >= education.heading && index <= education.heading + education.lines.length;
  return { text: doc.lines.filter((_, index) => !inEducation(index)).join('\n'), isExperienceSection: false };
}

export function parseCv(text: string, { now, ocr }: ParseOptions): CvRow {
  const doc = readDocument(text);
  const fullText = doc.lines.join('\n');
  const experience = sectionOf(doc, 'experience');
  const role = experience ? findCurrentRole(experience.lines) : findRoleInHeader(doc.header);
  const headerPhone = findPhone(doc.header);
  const findings: { [F in CvField]: Finding<CvRow[F]> } = {
    name: findName(doc.header),
    email: findEmail(fullText),
    phone: headerPhone.value !== null ? headerPhone : findPhone(doc.lines),
    title: role.title,
    employer: role.employer,
    location: findLocation(doc.header),
    linkedin: findLinkedin(fullText),
    skills: findSkills(sectionOf(doc, 'skills'), fullText),
    years_exp: findYearsOfExperience(experienceScope(doc), fullText, documentMonth(fullText, now)),
  };
  const factor = ocr ? OCR_CONFIDENCE_FACTOR : 1;
  const confidence = Object.fromEntries(
    CV_FIELDS.map((field) => [field, Math.round(findings[field].confidence * factor * 100) / 100]),
  ) as Record<CvField, number>;
  return {
    name: findings.name.value,
    email: findings.email.value,
    phone: findings.phone.value,
    title: findings.title.value,
    employer: findings.employer.value,
    location: findings.location.value,
    linkedin: findings.linkedin.value,
    skills: findings.skills.value,
    years_exp: findings.years_exp.value,
    confidence,
  };
}
