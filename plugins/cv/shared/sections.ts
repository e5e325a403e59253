/**
 * The CV as a list of lines and the sections its headings open. Layout gaps (three or more
 * spaces, tabs) split a physical line into separate lines, because `pdftotext -layout` puts
 * side-by-side columns on one line ("Jane Doe          jane@example.com").
 */

export type SectionKind = 'contact' | 'experience' | 'education' | 'skills' | 'languages' | 'summary' | 'other';

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
/** Lower case, accents and trailing colon removed: OCR and typists drop accents ("Experiencia", "Formacao"). */
export const headingKey = (label: string) =>
  label
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[’']/g, "'")
    .replace(/\s*:$/, '')
    .replace(/\s+/g, ' ')
    .trim();
const register = (kind: SectionKind, labels: string[]) => {
  for (const label of labels) HEADINGS[headingKey(label)] = kind;
};
// English, German, French, Spanish, Dutch, Italian, Portuguese.
register('experience', [
  'experience',
  'work experience',
  'professional experience',
  'relevant experience',
  'employment',
  'employment history',
  'work history',
  'career',
  'career history',
  'professional background',
  'berufserfahrung',
  'beruflicher werdegang',
  'berufliche erfahrung',
  'berufliche erfahrungen',
  'praxiserfahrung',
  'werdegang',
  'berufspraxis',
  'expérience professionnelle',
  'expériences professionnelles',
  'parcours professionnel',
  'expérience',
  'expériences',
  'experiencia laboral',
  'experiencia profesional',
  'experiencia',
  'trayectoria profesional',
  'historial laboral',
  'werkervaring',
  'professionele ervaring',
  'loopbaan',
  'ervaring',
  'arbeidsverleden',
  'esperienza professionale',
  'esperienze professionali',
  'esperienze lavorative',
  'esperienza lavorativa',
  'esperienze',
  'esperienza',
  'experiência profissional',
  'experiências profissionais',
  'experiência',
  'percurso profissional',
  'experiência de trabalho',
  // Academic CVs list posts held: appointments, positions.
  'appointments',
  'academic appointments',
  'positions',
  'positions held',
  'professional appointments',
  'employment record',
  'berufliche stationen',
  'anstellungen',
  'berufliche tätigkeiten',
  'postes occupés',
  'emplois occupés',
  'fonctions occupées',
  'historial profesional',
  'puestos',
  'puestos desempeñados',
  'cargos',
  'cargos desempenhados',
  'histórico profissional',
  'functies',
  'werkgevers',
  'incarichi',
  'impieghi',
  'percorso lavorativo',
  'posizioni ricoperte',
]);
register('education', [
  'education',
  'academic background',
  'qualifications',
  'education and training',
  'ausbildung',
  'bildungsweg',
  'studium und ausbildung',
  'studium',
  'schulbildung',
  'bildung',
  'formation',
  'formations',
  'études et diplômes',
  'diplômes',
  'études',
  'formación',
  'formación académica',
  'educación',
  'estudios',
  'opleiding',
  'opleidingen',
  'onderwijs',
  'istruzione',
  'formazione',
  'istruzione e formazione',
  'titoli di studio',
  'formação académica',
  'formação acadêmica',
  'formação',
  'educação',
  'habilitações literárias',
  'habilitações',
  'studie',
  'studies',
  'ausbildung und studium',
  'academic qualifications',
]);
register('skills', [
  'skills',
  'technical skills',
  'core skills',
  'key skills',
  'skills & tools',
  'skills and tools',
  'technologies',
  'tech stack',
  'competencies',
  'core competencies',
  'expertise',
  'kenntnisse',
  'fähigkeiten',
  'it-kenntnisse',
  'kompetenzen',
  'fachkenntnisse',
  'edv-kenntnisse',
  'fähigkeiten und kenntnisse',
  'compétences',
  'compétences techniques',
  'savoir-faire',
  'compétences clés',
  'habilidades',
  'competencias',
  'conocimientos',
  'aptitudes',
  'competencias técnicas',
  'vaardigheden',
  'competenties',
  'kennis en vaardigheden',
  'kennis',
  'competenze',
  'competenze tecniche',
  'capacità',
  'capacità e competenze',
  'competências',
  'competências técnicas',
  'habilidades técnicas',
  'conhecimentos',
  'technical proficiencies',
  'proficiencies',
  'aptidões',
  'competenze chiave',
]);
register('languages', [
  'languages',
  'language skills',
  'sprachen',
  'sprachkenntnisse',
  'langues',
  'compétences linguistiques',
  'idiomas',
  'talen',
  'talenkennis',
  'lingue',
  'conoscenze linguistiche',
  'competenze linguistiche',
  'línguas',
]);
register('summary', [
  'summary',
  'profile',
  'professional summary',
  'about',
  'about me',
  'objective',
  'career objective',
  'profil',
  'über mich',
  'kurzprofil',
  'zusammenfassung',
  'à propos',
  'à propos de moi',
  'profil professionnel',
  'perfil',
  'sobre mí',
  'perfil profesional',
  'resumen',
  'profiel',
  'over mij',
  'persoonlijk profiel',
  'profilo',
  'profilo personale',
  'profilo professionale',
  'chi sono',
  'sobre mim',
  'resumo profissional',
  'resumo',
  'perfil profissional',
  // A functional CV opens with its qualifications in brief.
  'summary of qualifications',
  'qualifications summary',
  'qualifikationen im überblick',
  'synthèse des compétences',
  'resumen de competencias',
  'kwalificaties',
  'sintesi delle competenze',
  'sintesi',
  'resumo de competências',
  'samenvatting',
]);
register('contact', [
  'contact',
  'contact details',
  'contact information',
  'personal details',
  'personal information',
  'kontakt',
  'kontaktdaten',
  'persönliche daten',
  'coordonnées',
  'contacto',
  'datos personales',
  'datos de contacto',
  'contactgegevens',
  'personalia',
  'persoonlijke gegevens',
  'contatti',
  'dati personali',
  'contactos',
  'dados pessoais',
  'contato',
  'persönliche angaben',
  'informations personnelles',
  'informazioni personali',
  'información personal',
  'informações pessoais',
]);
register('other', [
  'projects',
  'certifications',
  'certificates',
  'interests',
  'hobbies',
  'references',
  'publications',
  'awards',
  'volunteering',
  'volunteer experience',
  'achievements',
  'courses',
  'training',
  'projekte',
  'zertifikate',
  'interessen',
  'hobbys',
  'projets',
  'certifications',
  "centres d'intérêt",
  'loisirs',
  'proyectos',
  'certificaciones',
  'intereses',
  'projecten',
  'certificaten',
  'interesses',
  "hobby's",
  'progetti',
  'certificazioni',
  'interessi',
  'projetos',
  'certificações',
]);

/** Document titles that head a CV but are neither a section nor the person's name. */
const DOCUMENT_TITLES = new Set(
  ['curriculum vitae', 'resume', 'cv', 'lebenslauf', 'curriculum', 'curriculo'].map(headingKey),
);

const LABELLED = /^([\p{L} &/'’-]{2,45}?)\s*(?::\s*(.*))?$/u;

/** A list after a heading on its own line: "Skills  SQL, Python, Excel" (a label column beside its values). */
const LIST_AFTER_HEADING = /^(\p{L}[\p{L} &/'’-]{1,40}?)\s+(\S[^,;•]*(?:[,;•][^,;•]+){2,})$/u;
const LIST_KINDS = new Set<SectionKind>(['skills', 'languages']);

/** The section a heading line opens, or undefined for an ordinary line. */
export function headingOf(line: string): { kind: SectionKind; inline: string } | undefined {
  const match = LABELLED.exec(line);
  const kind = match ? HEADINGS[headingKey(match[1]!)] : undefined;
  if (kind) return { kind, inline: (match![2] ?? '').trim() };
  const list = LIST_AFTER_HEADING.exec(line);
  const listKind = list ? HEADINGS[headingKey(list[1]!)] : undefined;
  return listKind && LIST_KINDS.has(listKind) ? { kind: listKind, inline: list![2]!.trim() } : undefined;
}

export function isDocumentTitle(line: string): boolean {
  return DOCUMENT_TITLES.has(headingKey(line.replace(/[:.]$/, '')));
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
  const contact = sections
    .filter((section) => section.kind === 'contact')
    .flatMap((section) => [section.inline, ...section.lines]);
  return { lines, sections, header: [...lines.slice(0, firstHeading), ...contact.filter(Boolean)] };
}

export function sectionOf(doc: CvDocument, kind: SectionKind): Section | undefined {
  return doc.sections.find((section) => section.kind === kind);
}
