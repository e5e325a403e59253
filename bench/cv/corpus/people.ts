/**
 * The corpus: 10 CVs per language (7 languages), each a deterministic draw from the language's
 * vocabulary, with its ground truth. Formats and layouts per language: PDF single column x2,
 * PDF table sidebar x2, PDF frame sidebar x2, DOCX with contact details in a text box, DOCX
 * table sidebar, legacy DOC, and a scan (PDF of page images) of a single / table / frame layout.
 */
import {
  LANGS,
  type CvSpec,
  type CvTruth,
  type DateStyle,
  type EntryLayout,
  type Format,
  type Job,
  type Lang,
  type Layout,
  type Month,
} from './model.js';
import { VOCAB } from './vocab.js';

const PLAN: Array<{ format: Format; layout: Layout }> = [
  { format: 'pdf', layout: 'single' },
  { format: 'pdf', layout: 'single' },
  { format: 'pdf', layout: 'table' },
  { format: 'pdf', layout: 'table' },
  { format: 'pdf', layout: 'frame' },
  { format: 'pdf', layout: 'frame' },
  { format: 'docx', layout: 'textbox' },
  { format: 'docx', layout: 'table' },
  { format: 'doc', layout: 'single' },
  { format: 'scan', layout: 'single' },
];
const SCAN_LAYOUTS: Layout[] = ['single', 'table', 'frame'];
const DOC_LAYOUTS: Layout[] = ['single', 'table'];
const ENTRY_LAYOUTS: EntryLayout[] = [
  'title-first',
  'employer-first',
  'title-at',
  'dates-left',
  'pipes',
  'right-dates',
];
const DATE_STYLES: DateStyle[] = ['month-abbr', 'slash', 'dot', 'iso', 'month-name', 'year'];

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ascii = (text: string) =>
  text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z]+/g, '');

const addMonths = (m: Month, n: number): Month => {
  const i = m.year * 12 + m.month - 1 + n;
  return { year: Math.floor(i / 12), month: (i % 12) + 1 };
};

const upper = (text: string) => text.toLocaleUpperCase('und');

/** The corpus' specs for a reference month (ongoing jobs never start after it). */
export function corpusSpecs(): CvSpec[] {
  const specs: CvSpec[] = [];
  LANGS.forEach((lang, langIndex) => {
    for (let k = 0; k < PLAN.length; k++) specs.push(makeSpec(lang, langIndex, k));
  });
  return specs;
}

function makeSpec(lang: Lang, langIndex: number, k: number): CvSpec {
  const v = VOCAB[lang];
  const rnd = mulberry32(1000 * (langIndex + 1) + k * 7919);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rnd() * items.length)]!;
  let { format, layout } = PLAN[k]!;
  if (format === 'scan') layout = SCAN_LAYOUTS[langIndex % 3]!;
  if (format === 'doc') layout = DOC_LAYOUTS[langIndex % 2]!;

  const first = v.firstNames[k]!;
  const last = v.lastNames[(k * 3 + langIndex) % v.lastNames.length]!;
  const hasParticle = /^\p{Ll}/u.test(last);
  const nameStyle = hasParticle ? 0 : (k + langIndex) % 4;
  const writtenName = [
    `${first} ${last}`,
    `${upper(last)} ${first}`,
    `${first} ${upper(last)}`,
    upper(`${first} ${last}`),
  ][nameStyle]!;

  const family = v.jobs[(k + langIndex) % v.jobs.length]!;
  const place = v.places[k % v.places.length]!;
  const dateStyle = DATE_STYLES[(k * 2 + langIndex) % DATE_STYLES.length]!;
  const entryLayout = ENTRY_LAYOUTS[(k + langIndex * 2) % ENTRY_LAYOUTS.length]!;
  const yearOnly = dateStyle === 'year';
  const norm = (m: Month): Month => (yearOnly ? { year: m.year, month: 1 } : m);

  // Career, newest first: the current job, then older ones with an occasional break between.
  const companies = [...v.companies].sort(() => rnd() - 0.5);
  const jobCount = 2 + Math.floor(rnd() * 3);
  const jobs: Job[] = [];
  let start: Month = { year: 2019 + Math.floor(rnd() * 6), month: 1 + Math.floor(rnd() * 12) };
  const seniority = ['', 'Senior ', 'Lead '];
  const currentTitle = lang === 'en' && rnd() < 0.3 ? family.title.replace(/^Senior /, pick(seniority)) : family.title;
  jobs.push({
    title: currentTitle,
    employer: companies[0]!,
    place: rnd() < 0.4 ? place.city : undefined,
    start: norm(start),
    bullets: [pick(v.bullets), pick(v.bullets)],
  });
  for (let j = 1; j < jobCount; j++) {
    const gap = k % 5 === 2 && j === 1 ? 8 + Math.floor(rnd() * 10) : Math.floor(rnd() * 3);
    const end = addMonths(start, -1 - gap);
    if (gap >= 8) {
      // The break as an entry of its own in some CVs; a bare gap in others.
      if (k % 2 === 0)
        jobs.push({
          title: pick(v.breaks),
          employer: '',
          start: norm(addMonths(end, 1)),
          end: norm(addMonths(start, -1)),
          bullets: [],
          isBreak: true,
        });
    }
    const length = 14 + Math.floor(rnd() * 40);
    const jobStart = addMonths(end, -length + 1);
    jobs.push({
      title: rnd() < 0.5 ? `Junior ${family.title.replace(/^Senior /, '')}` : family.title,
      employer: companies[j]!,
      place: rnd() < 0.3 ? v.places[(k + j) % v.places.length]!.city : undefined,
      start: norm(jobStart),
      end: norm(end),
      bullets: [pick(v.bullets)],
    });
    start = jobStart;
  }
  // An overlapping side job, listed after the current one.
  if (k % 4 === 1) {
    const sideStart = addMonths(jobs[0]!.start, -10);
    jobs.splice(1, 0, {
      title: pick(v.sideJobs),
      employer: companies[5]!,
      start: norm(sideStart),
      end: norm(addMonths(sideStart, 20)),
      bullets: [],
    });
  }
  const careerStart = jobs.at(-1)!.start;
  const eduEnd = addMonths(careerStart, -2);
  const education = [
    { degree: pick(v.degrees), school: pick(v.schools), start: { year: eduEnd.year - 4, month: 9 }, end: eduEnd },
  ];

  const skills = [...family.skills];
  const grouped = k % 3 === 1;
  const skillGroups = grouped
    ? [
        { label: v.groupLabels[0], items: skills.slice(0, 3) },
        { label: v.groupLabels[1], items: skills.slice(3) },
      ]
    : [{ items: skills }];
  const spoken = v.spoken.slice(0, 2 + (k % 2));
  const handle = `${ascii(first)}-${ascii(last)}${k % 3 === 0 ? `-${100 + k * 7}` : ''}`;
  return {
    id: `${lang}-${String(k).padStart(2, '0')}-${format}-${layout}`,
    lang,
    format,
    layout,
    writtenName,
    headline: rnd() < 0.5 ? family.title : undefined,
    email: `${ascii(first)}.${ascii(last)}@${pick(['example.com', 'mail.example.org', 'example.net'])}`,
    phone: v.phones[k % v.phones.length]!,
    phoneLabel: rnd() < 0.6 ? pick(v.phoneLabels) : undefined,
    location: pick(place.written),
    locationLabel: rnd() < 0.35 ? pick(v.locationLabels) : undefined,
    linkedin:
      k % 5 === 3
        ? undefined
        : `${pick(['linkedin.com/in/', 'https://www.linkedin.com/in/', 'www.linkedin.com/in/'])}${handle}`,
    headings: {
      profile: pick(v.headings.profile),
      experience: pick(v.headings.experience),
      education: pick(v.headings.education),
      skills: pick(v.headings.skills),
      languages: pick(v.headings.languages),
      contact: pick(v.headings.contact),
    },
    profile: pick(v.profiles),
    jobs,
    education,
    skillGroups,
    spoken,
    spokenInSkills: k % 4 === 2,
    entryLayout,
    dateStyle,
    nameInSidebar: (k + langIndex) % 2 === 0,
  };
}

/** "DUPONT Marie" -> "Marie Dupont": the name in normal case, given names first. */
export function normalName(spec: CvSpec): string {
  const v = VOCAB[spec.lang];
  const first = v.firstNames.find((name) =>
    spec.writtenName.toLocaleLowerCase('und').includes(name.toLocaleLowerCase('und')),
  )!;
  const last = v.lastNames.find((name) =>
    spec.writtenName.toLocaleLowerCase('und').includes(name.toLocaleLowerCase('und')),
  )!;
  return `${first} ${last}`;
}

export function truthOf(spec: CvSpec, file: string): CvTruth {
  const current = spec.jobs[0]!;
  return {
    id: spec.id,
    lang: spec.lang,
    format: spec.format,
    layout: spec.layout,
    file,
    name: normalName(spec),
    email: spec.email,
    phone: spec.phone,
    title: current.title,
    employer: current.employer,
    location: spec.location,
    linkedin: spec.linkedin ? `https://www.linkedin.com/in/${spec.linkedin.split('/in/')[1]}` : null,
    skills: spec.skillGroups.flatMap((group) => group.items),
    experience: spec.jobs
      .filter((job) => !job.isBreak)
      .map((job) => ({ start: job.start, ...(job.end ? { end: job.end } : {}) })),
  };
}
