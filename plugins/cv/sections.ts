/**
 * The CV as a list of lines and the sections its headings open. Layout gaps (three or more
 * spaces, tabs) split a physical line into separate lines, because `pdftotext -layout` puts
 * side-by-side columns on one line ("Jane Doe          jane@example.com").
 */

export type SectionKind = 'contact' | 'experience' | 'education' | 'skills' | 'summary' | 'other';

export interface Section {
  kind: SectionKind;
  /** Index of the heading line. */
  heading: number;
  /** Text after "Heading:" on the heading line itself ("Skills: TypeScript, Go"). */
  inline: string;
  /** Lines of the section body, heading excluded. */
  lines: string[];
}

export interface CvDocument {
  lines: string[];
  sections: Section[];
  /** Lines before the first section heading, plus any contact section: name and contact details. */
  header: string[];
}

const HEADINGS: Record<string, SectionKind> = {};
const register = (kind: SectionKind, labels: string[]) => labels.forEach((label) => (HEADINGS[label] = kind));
register('experience', [
  'experience', 'work experience', 'professional experience', 'relevant experience', 'employment', 'employment history',
  'work history', 'career', 'career history', 'berufserfahrung',
]);
register('education', ['education', 'academic background', 'qualifications', 'education and training', 'ausbildung']);
register('skills', [
  'skills', 'technical skills', 'core skills', 'key skills', 'skills & tools', 'skills and tools', 'technologies', 'tech stack',
  'competencies', 'core competencies', 'expertise', 'kenntnisse',
]);
register('summary', ['summary', 'profile', 'professional summary', 'about', 'about me', 'objective', 'career objective']);
register('contact', ['contact', 'contact details', 'contact information', 'personal details', 'personal information']);
register('other', [
  'projects', 'certifications', 'certificates', 'languages', 'interests', 'hobbies', 'references', 'publications', 'awards',
  'volunteering', 'volunteer experience', 'achievements', 'courses', 'training',
]);

/** Document titles that head a CV but are neither a section nor the person's name. */
const DOCUMENT_TITLES = new Set(['curriculum vitae', 'resume', 'résumé', 'cv', 'lebenslauf']);

const LABELLED = /^([\p{L} &/]{2,40}?)\s*(?::\s*(.*))?$/u;

/** The section a heading line opens, or undefined for an ordinary line. */
export function headingOf(line: string): { kind: SectionKind; inline: string } | undefined {
  const match = LABELLED.exec(line);
  if (!match) return undefined;
  const kind = HEADINGS[match[1]!.toLowerCase().replace(/\s+/g, ' ')];
  return kind ? { kind, inline: (match[2] ?? '').trim() } : undefined;
}

export function isDocumentTitle(line: string): boolean {
  return DOCUMENT_TITLES.has(line.toLowerCase().replace(/[:.]$/, '').trim());
}

export function splitLines(text: string): string[] {
  return text
    .replace(/\r\n?|\f/g, '\n')
    .replace(/[\u00a0\u2007\u202f]/g, ' ')
    .split('\n')
    .flatMap((line) => line.split(/\s{3,}|\t+/))
    .map((line) => line.trim())
    .filter(Boolean);
}

export function readDocument(text: string): CvDocument {
  const lines = splitLines(text);
  const sections: Section[] = [];
  lines.forEach((line, index) => {
    const heading = headingOf(line);
    if (heading) sections.push({ ...heading, heading: index, lines: [] });
    else sections.at(-1)?.lines.push(line);
  });
  const firstHeading = sections[0]?.heading ?? lines.length;
  const contact = sections.filter((section) => section.kind === 'contact').flatMap((section) => [section.inline, ...section.lines]);
  return { lines, sections, header: [...lines.slice(0, firstHeading), ...contact.filter(Boolean)] };
}

export function sectionOf(doc: CvDocument, kind: SectionKind): Section | undefined {
  return doc.sections.find((section) => section.kind === kind);
}
