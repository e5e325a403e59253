/**
 * The second CV generator, written apart from bench/cv/corpus (its own vocabulary, templates and
 * renderer: HTML that LibreOffice turns into PDF and DOCX). Five templates per locale, each as PDF
 * and DOCX: a Europass-style two-column table, a US résumé, an academic CV, a two-page CV with a
 * sidebar table holding the name and contacts, and a functional CV (skills first, a compact
 * employment list). Employers carry legal forms (S.A., GmbH, V.O.F., LLC, SCS, GIE...), some are
 * hyphenated or multi-word, and the employer's city follows it in several shapes ("Company —
 * City", "Company (City)", "Company, City"). Internships during studies appear in some CVs: they
 * never count as experience, nor does education.
 *
 *   npx tsx bench/cv/second/generate.ts      # writes files/ and truth.json (soffice)
 *
 * Halves, fixed before any result was seen: a CV whose number (the two digits of its id) is odd
 * is held out; the even ones are the tuning half (bench/cv/run.ts --half).
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { runProcess } from '../../../core/engines/process.js';
import { LANGS, type CvTruth, type Lang, type Month } from '../corpus/model.js';
import { VOCAB, type LocaleVocab, type Place } from './vocab.js';

export const SECOND_DIR = dirname(fileURLToPath(import.meta.url));
export const SECOND_FILES_DIR = join(SECOND_DIR, 'files');
export const SECOND_TRUTH_FILE = join(SECOND_DIR, 'truth.json');

type Template = 'europass' | 'us' | 'academic' | 'twopage' | 'functional';
const TEMPLATES: readonly Template[] = ['europass', 'us', 'academic', 'twopage', 'functional'];
/** When the CVs are dated: the current month at generation would drift, so ongoing jobs end at the reader's month. */
const LAST_YEAR = 2025;

interface Entry {
  title: string;
  employer: string;
  place: Place;
  start: Month;
  end?: Month;
  intern?: boolean;
  bullets: string[];
}
interface Person {
  id: string;
  lang: Lang;
  template: Template;
  format: 'pdf' | 'docx';
  name: string;
  email: string;
  phone: string;
  home: Place;
  linkedin: string | null;
  headline: string;
  jobs: Entry[];
  education: Array<{ degree: string; school: string; start: Month; end: Month }>;
  skills: string[];
  spoken: string[];
  dateStyle: number;
  words: { experience: string; education: string; skills: string; profile: string };
}

function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const esc = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const ascii = (text: string) =>
  text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z]+/g, '');

function person(lang: Lang, n: number): Person {
  const r = random(9173 + n * 31 + LANGS.indexOf(lang) * 1009);
  const v = VOCAB[lang];
  const pick = <T>(list: readonly T[]): T => list[Math.floor(r() * list.length)]!;
  const template = TEMPLATES[Math.floor(n / 2) % TEMPLATES.length]!;
  // Each template twice per locale, once as PDF and once as DOCX, one of each pair in each half.
  const format = ((n >> 1) + n) % 2 === 0 ? 'pdf' : 'docx';
  const first = pick(v.first);
  const last = pick(v.last);
  const home = pick(v.places);
  // Career: 2-5 jobs going back from now, gaps and one overlapping side job sometimes.
  const count = template === 'twopage' ? 5 : 2 + Math.floor(r() * 3);
  const jobs: Entry[] = [];
  let endYear = LAST_YEAR;
  let endMonth = 1 + Math.floor(r() * 12);
  const usedCompanies = new Set<string>();
  for (let i = 0; i < count; i++) {
    const ongoing = i === 0 && r() < 0.75;
    const end: Month | undefined = ongoing ? undefined : { year: endYear, month: endMonth };
    const span = 10 + Math.floor(r() * 40);
    const startIndex = endYear * 12 + endMonth - 1 - span;
    const start = { year: Math.floor(startIndex / 12), month: (startIndex % 12) + 1 };
    let stem = pick(v.companies);
    while (usedCompanies.has(stem)) stem = pick(v.companies);
    usedCompanies.add(stem);
    const employer = r() < 0.8 ? `${stem} ${pick(v.suffixes)}` : stem;
    jobs.push({
      title: pick(v.titles),
      employer,
      place: pick(v.places),
      start,
      ...(end ? { end } : {}),
      bullets: [pick(v.bullets), pick(v.bullets)].filter((b, k, all) => all.indexOf(b) === k),
    });
    const gap = r() < 0.3 ? 3 + Math.floor(r() * 8) : 1;
    const next = startIndex - gap;
    endYear = Math.floor(next / 12);
    endMonth = (next % 12) + 1;
  }
  const firstJob = jobs.at(-1)!.start;
  const graduation: Month = { year: firstJob.year - (r() < 0.5 ? 0 : 1), month: 6 + Math.floor(r() * 3) };
  const education = [
    {
      degree: pick(v.degrees),
      school: pick(v.schools),
      start: { year: graduation.year - 2, month: 9 },
      end: graduation,
    },
    {
      degree: pick(v.degrees),
      school: pick(v.schools),
      start: { year: graduation.year - 5, month: 9 },
      end: { year: graduation.year - 2, month: 7 },
    },
  ];
  // An internship during the studies, listed with the jobs: not experience.
  if (r() < 0.45) {
    const year = graduation.year - 1;
    jobs.push({
      title: pick(v.interns),
      employer: `${pick(v.companies)} ${pick(v.suffixes)}`,
      place: pick(v.places),
      start: { year, month: 3 },
      end: { year, month: 8 },
      intern: true,
      bullets: [],
    });
  }
  const skills = [...new Set(Array.from({ length: 6 + Math.floor(r() * 4) }, () => pick(v.skills)))];
  const handle = `${ascii(first)}-${ascii(last)}-${Math.floor(r() * 900 + 100)}`;
  const domain = pick(['mail.example', 'posteo.example', 'web.example', 'correo.example']);
  return {
    id: `${lang}-${String(n).padStart(2, '0')}-${template}-${format}`,
    lang,
    template,
    format,
    name: `${first} ${last}`,
    email: `${ascii(first)}.${ascii(last)}@${domain}`,
    phone: v.phone(r),
    home,
    linkedin: r() < 0.7 ? `https://www.linkedin.com/in/${handle}` : null,
    headline: jobs[0]!.title,
    jobs,
    education,
    skills,
    spoken: v.spoken,
    dateStyle: Math.floor(r() * 5),
    words: {
      experience: pick(v.words.experience),
      education: pick(v.words.education),
      skills: pick(v.words.skills),
      profile: pick(v.words.profile),
    },
  };
}

function monthText(v: LocaleVocab, month: Month, style: number): string {
  const mm = String(month.month).padStart(2, '0');
  switch (style) {
    case 0:
      return `${v.months[month.month - 1]} ${month.year}`;
    case 1:
      return `${mm}/${month.year}`;
    case 2:
      return `${mm}.${month.year}`;
    case 3:
      return `${month.year}-${mm}`;
    default:
      return `${v.months[month.month - 1]!.slice(0, 3)}. ${month.year}`;
  }
}

function range(v: LocaleVocab, start: Month, end: Month | undefined, style: number, years = false): string {
  if (years) return `${start.year} – ${end ? end.year : v.present}`;
  if (!end && style === 4) return `${v.since} ${monthText(v, start, 0)}`;
  return `${monthText(v, start, style)} – ${end ? monthText(v, end, style) : v.present}`;
}

const location = (p: Place) => `${p.city}, ${p.region}`;
const contactLine = (p: Person) =>
  [p.phone, p.email, p.linkedin?.replace('https://www.', '')].filter(Boolean).join(' · ');

const STYLE =
  `<style>body{font-family:'DejaVu Sans';font-size:10pt} h1{font-size:20pt;margin:0} ` +
  `h2{font-size:12pt;margin:10pt 0 4pt 0;border-bottom:1px solid #444} td{vertical-align:top} ` +
  `.small{font-size:9pt;color:#333} .side{background:#e8eef4;padding:6pt}</style>`;
const page = (body: string, lang: Lang) =>
  `<!DOCTYPE html><html lang="${lang}"><head><meta ` +
  `charset="utf-8"><title>CV</title>${STYLE}</head><body>${body}</body></html>`;
const bullets = (items: string[]) =>
  items.length ? `<ul>${items.map((b) => `<li>${esc(b)}</li>`).join('')}</ul>` : '';
const educationRows = (p: Person) =>
  p.education
    .map((e) => `<p><b>${esc(e.degree)}</b>, ${esc(e.school)}<br>${e.start.year} – ${e.end.year}</p>`)
    .join('');

function europass(p: Person, v: LocaleVocab): string {
  const row = (label: string, value: string) =>
    `<tr><td width="28%" align="right" class="small">${esc(label)}</td><td>${value}</td></tr>`;
  const jobs = p.jobs
    .map((j) =>
      row(
        range(v, j.start, j.end, p.dateStyle),
        `<b>${esc(j.title)}</b><br>${esc(j.employer)} — ${esc(j.place.city)}${bullets(j.bullets)}`,
      ),
    )
    .join('');
  const edu = p.education
    .map((e) => row(`${e.start.year} – ${e.end.year}`, `<b>${esc(e.degree)}</b><br>${esc(e.school)}`))
    .join('');
  return page(
    `<p class="small">${esc(v.words.cv)} · Europass</p><table width="100%" cellpadding="4">
    ${row(v.words.personal, '')}
    ${row(v.words.name, `<b>${esc(p.name)}</b>`)}
    ${row(v.words.address, esc(`${p.home.street}, ${p.home.postcode} ${p.home.city}, ${p.home.region}`))}
    ${row(v.words.phone, esc(p.phone))}
    ${row(v.words.email, esc(p.email))}
    ${p.linkedin ? row('LinkedIn', esc(p.linkedin)) : ''}
    ${row(p.words.experience, '')}${jobs}
    ${row(p.words.education, '')}${edu}
    ${row(p.words.skills, esc(p.skills.join(', ')))}
    ${row(v.words.languages, esc(p.spoken.join(', ')))}
    </table>`,
    p.lang,
  );
}

function us(p: Person, v: LocaleVocab): string {
  const jobs = p.jobs
    .map(
      (j) =>
        `<table width="100%"><tr><td><b>${esc(j.employer)}</b>, ${esc(location(j.place))}</td><td ` +
        `align="right">${esc(range(v, j.start, j.end, p.dateStyle))}</td></tr></table><p><i>${esc(j.title)}</i></p>` +
        `${bullets(j.bullets)}`,
    )
    .join('');
  return page(
    `<h1 align="center">${esc(p.name.toUpperCase())}</h1><p align="center">` +
      `${esc(location(p.home))} · ${esc(contactLine(p))}</p>
    <h2>${esc(p.words.profile.toUpperCase())}</h2><p>${esc(p.headline)}.</p>
    <h2>${esc(p.words.experience.toUpperCase())}</h2>${jobs}
    <h2>${esc(p.words.education.toUpperCase())}</h2>${educationRows(p)}
    <h2>${esc(p.words.skills.toUpperCase())}</h2><p>${esc(p.skills.join(' • '))}</p>`,
    p.lang,
  );
}

function academic(p: Person, v: LocaleVocab): string {
  const rows = p.jobs
    .map(
      (j) =>
        `<tr><td width="22%">${esc(range(v, j.start, j.end, p.dateStyle, true))}</td><td>${esc(j.title)}, ` +
        `${esc(j.employer)} (${esc(j.place.city)})</td></tr>`,
    )
    .join('');
  const edu = p.education
    .map((e) => `<tr><td width="22%">${e.end.year}</td><td>${esc(e.degree)}, ${esc(e.school)}</td></tr>`)
    .join('');
  return page(
    `<p align="center" class="small">${esc(v.words.cv.toUpperCase())}</p><h1 align="center">${esc(p.name)}</h1>
    <p align="center">${esc(p.home.street)}<br>${esc(`${p.home.postcode} ${p.home.city}`)}<br>` +
      `${esc(p.home.region)}<br>${esc(p.email)} | ${esc(p.phone)}</p>
    <h2>${esc(p.words.education)}</h2><table width="100%">${edu}</table>
    <h2>${esc(v.words.positions)}</h2><table width="100%">${rows}</table>
    <h2>${esc(p.words.skills)}</h2><p>${esc(p.skills.join('; '))}</p>
    <h2>${esc(v.words.languages)}</h2><p>${esc(p.spoken.join(', '))}</p>` +
      `${p.linkedin ? `<p class="small">${esc(p.linkedin)}</p>` : ''}`,
    p.lang,
  );
}

function twopage(p: Person, v: LocaleVocab): string {
  const jobs = p.jobs
    .map(
      (j) =>
        `<p><b>${esc(j.title)}</b><br>${esc(j.employer)} (${esc(j.place.city)})<br><span ` +
        `class="small">${esc(range(v, j.start, j.end, p.dateStyle))}</span></p>` +
        `${bullets([...j.bullets, ...v.bullets.slice(0, 2)])}`,
    )
    .join('');
  const side =
    `<td width="32%" class="side" bgcolor="#e8eef4"><p><font size="5"><b>${esc(p.name)}</b></font></p><p>` +
    `${esc(p.headline)}</p>
    <p><b>${esc(v.words.phone)}</b><br>${esc(p.phone)}</p><p><b>${esc(v.words.email)}</b><br>${esc(p.email)}</p><p>` +
    `<b>${esc(v.words.address)}</b><br>${esc(location(p.home))}</p>
    ${p.linkedin ? `<p>${esc(p.linkedin)}</p>` : ''}<p><b>${esc(p.words.skills)}</b></p>${bullets(p.skills)}<p><b>` +
    `${esc(v.words.languages)}</b></p>${bullets(p.spoken)}</td>`;
  const filler = `<p>${esc(v.bullets.join('. '))}.</p>`.repeat(3);
  return page(
    `<table width="100%" cellpadding="6"><tr>${side}<td><h2>${esc(p.words.profile)}</h2>${filler}
    <h2>${esc(p.words.experience)}</h2>${jobs}<h2>${esc(p.words.education)}</h2>${educationRows(p)}<p class="small">` +
      `${esc(v.words.references)}</p></td></tr></table>`,
    p.lang,
  );
}

function functional(p: Person, v: LocaleVocab): string {
  const lines = p.jobs
    .map(
      (j) =>
        `<p>${esc(range(v, j.start, j.end, p.dateStyle, p.dateStyle % 2 === 0))}&nbsp;&nbsp;&nbsp;${esc(j.title)}, ` +
        `${esc(j.employer)} (${esc(j.place.city)})</p>`,
    )
    .join('');
  const groups = [p.skills.slice(0, 3), p.skills.slice(3)];
  return page(
    `<h1>${esc(p.name)}</h1><p>${esc(p.headline)}</p><p>` +
      `${esc(`${p.home.postcode} ${p.home.city}, ${p.home.region}`)} | ${esc(p.phone)} | ` +
      `${esc(p.email)}${p.linkedin ? ` | ${esc(p.linkedin)}` : ''}</p>
    <h2>${esc(v.words.summary)}</h2>${bullets(v.bullets.slice(0, 3))}
    <h2>${esc(p.words.skills)}</h2>${groups.map((g) => `<p>${esc(g.join(', '))}</p>`).join('')}
    <h2>${esc(p.words.experience)}</h2>${lines}
    <h2>${esc(p.words.education)}</h2>${educationRows(p)}
    <h2>${esc(v.words.languages)}</h2><p>${esc(p.spoken.join(' · '))}</p>`,
    p.lang,
  );
}

const RENDER: Record<Template, (p: Person, v: LocaleVocab) => string> = { europass, us, academic, twopage, functional };

export function secondCorpus(): Person[] {
  return LANGS.flatMap((lang) => Array.from({ length: 10 }, (_, n) => person(lang, n)));
}

function truthOf(p: Person, file: string): CvTruth {
  const current = p.jobs[0]!;
  return {
    id: p.id,
    lang: p.lang,
    format: p.format,
    // The template stands in the layout column of the tables.
    layout: p.template as CvTruth['layout'],
    file,
    name: p.name,
    email: p.email,
    phone: p.phone,
    title: current.title,
    employer: current.employer,
    // As written, without the street (the row's documented form): the postcode where the template writes one.
    location:
      p.template === 'us' || p.template === 'twopage' ? location(p.home) : `${p.home.postcode} ${location(p.home)}`,
    linkedin: p.linkedin,
    skills: p.skills,
    experience: p.jobs.filter((j) => !j.intern).map((j) => ({ start: j.start, ...(j.end ? { end: j.end } : {}) })),
  };
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'cv-second-'));
  rmSync(SECOND_FILES_DIR, { recursive: true, force: true });
  mkdirSync(SECOND_FILES_DIR, { recursive: true });
  const people = secondCorpus();
  const byFormat: Record<'pdf' | 'docx', string[]> = { pdf: [], docx: [] };
  for (const p of people) {
    const source = join(work, `${p.id}.html`);
    writeFileSync(source, RENDER[p.template](p, VOCAB[p.lang]));
    byFormat[p.format].push(source);
  }
  const profile = pathToFileURL(join(work, 'profile')).href;
  for (const [format, filter] of [
    ['pdf', 'pdf:writer_pdf_Export'],
    ['docx', 'docx:MS Word 2007 XML'],
  ] as const) {
    await runProcess(
      'soffice',
      [
        `-env:UserInstallation=${profile}`,
        '--headless',
        '--infilter=HTML (StarWriter)',
        '--convert-to',
        filter,
        '--outdir',
        join(work, 'out'),
        ...byFormat[format],
      ],
      {
        timeoutMs: 600_000,
        env: { ...process.env, HOME: work },
      },
    );
  }
  const truths = people.map((p) => {
    const file = `${p.id}.${p.format}`;
    copyFileSync(join(work, 'out', file), join(SECOND_FILES_DIR, file));
    return truthOf(p, file);
  });
  writeFileSync(SECOND_TRUTH_FILE, `${JSON.stringify(truths, null, 1)}\n`);
  rmSync(work, { recursive: true, force: true });
  console.log(`${truths.length} CVs in ${SECOND_FILES_DIR}`);
}

if (import.meta.url === pathToFileURL(process.argv[1]!).href) await main();
