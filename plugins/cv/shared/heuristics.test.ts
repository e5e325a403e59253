/** The parser's rules one at a time: dates, phones, skills, names, roles, sections, DOCX XML. */
import { describe, expect, it } from 'vitest';
import { findLocation, findPhone, isPlausiblePhone } from './contact.js';
import { paragraphs } from './docx.js';
import {
  dateRanges,
  employerName,
  findCurrentRole,
  findRoleInHeader,
  findYearsOfExperience,
  jobRanges,
  mergedMonths,
} from './experience.js';
import { documentMonth } from './dates.js';
import { findName, looksLikeName, parseCv } from './parse.js';
import { readDocument, splitLines } from './sections.js';
import { dictionarySkills, findSkills, splitSkills } from './skills.js';

const JUNE_2025 = { year: 2025, month: 6 };
const months = (year: number, month: number) => year * 12 + month - 1;

describe('date ranges', () => {
  it('reads month names, abbreviations, present words and open starts in seven languages', () => {
    const range = (text: string) => dateRanges(text, JUNE_2025);
    expect(range('Seit 06.2024')).toEqual([{ start: months(2024, 6), end: months(2025, 7) }]);
    expect(range('Depuis sept. 2021')).toEqual([{ start: months(2021, 9), end: months(2025, 7) }]);
    expect(range('2025-03 bis dato')).toEqual([{ start: months(2025, 3), end: months(2025, 7) }]);
    expect(range('06.2022–06.2023')).toEqual([{ start: months(2022, 6), end: months(2023, 7) }]);
    expect(range('März 2018 – Mai 2020')).toEqual([{ start: months(2018, 3), end: months(2020, 6) }]);
    expect(range("janv. 2019 – aujourd'hui")).toEqual([{ start: months(2019, 1), end: months(2025, 7) }]);
    expect(range('marzo de 2017 a diciembre de 2020')).toEqual([{ start: months(2017, 3), end: months(2021, 1) }]);
    expect(range('ene. 2019 – actualidad')).toEqual([{ start: months(2019, 1), end: months(2025, 7) }]);
    expect(range('mrt. 2019 tot heden')).toEqual([{ start: months(2019, 3), end: months(2025, 7) }]);
    expect(range('gen 2019 – oggi')).toEqual([{ start: months(2019, 1), end: months(2025, 7) }]);
    expect(range('Dal 2021')).toEqual([{ start: months(2021, 1), end: months(2025, 7) }]);
    expect(range('fev. 2020 a o momento')).toEqual([{ start: months(2020, 2), end: months(2025, 7) }]);
    expect(range('2019-03 – 2021-05')).toEqual([{ start: months(2019, 3), end: months(2021, 6) }]);
  });

  it('leaves out career breaks written as entries', () => {
    expect(
      jobRanges(['Engineer at X', '2020 - 2022', 'Elternzeit', '2019 - 2020', 'Congé parental 2018 - 2019'], JUNE_2025),
    ).toEqual([{ start: months(2020, 1), end: months(2022, 1) }]);
  });

  it('reads years, numeric months, month names and open ends', () => {
    expect(dateRanges('2015 – 2020', JUNE_2025)).toEqual([{ start: months(2015, 1), end: months(2020, 1) }]);
    expect(dateRanges('03/2018 - 05/2021', JUNE_2025)).toEqual([{ start: months(2018, 3), end: months(2021, 6) }]);
    expect(dateRanges('Mar 2018 to Sept. 2019', JUNE_2025)).toEqual([
      { start: months(2018, 3), end: months(2019, 10) },
    ]);
    expect(dateRanges('01.2020 — present', JUNE_2025)).toEqual([{ start: months(2020, 1), end: months(2025, 7) }]);
    expect(dateRanges('Since 2024', JUNE_2025)).toEqual([{ start: months(2024, 1), end: months(2025, 7) }]);
  });

  it('clamps future ends to the reference month and skips impossible months', () => {
    expect(dateRanges('2024 - 2030', JUNE_2025)).toEqual([{ start: months(2024, 1), end: months(2025, 7) }]);
    expect(dateRanges('13/2018 - 05/2021', JUNE_2025)).toEqual([]);
    expect(dateRanges('2026 - present', JUNE_2025)).toEqual([]);
  });

  it('merges overlaps and adjacent jobs without double counting', () => {
    expect(mergedMonths([])).toBe(0);
    expect(
      mergedMonths([
        { start: 0, end: 24 },
        { start: 12, end: 36 },
      ]),
    ).toBe(36);
    expect(
      mergedMonths([
        { start: 24, end: 36 },
        { start: 0, end: 24 },
      ]),
    ).toBe(36);
    expect(
      mergedMonths([
        { start: 0, end: 12 },
        { start: 24, end: 36 },
      ]),
    ).toBe(24);
    expect(
      mergedMonths([
        { start: 0, end: 60 },
        { start: 10, end: 20 },
      ]),
    ).toBe(60);
  });

  it('years of experience: merged job ranges, else a stated figure; never the clock', () => {
    const scope = { text: '2015 - present\n2017 - 2019', isExperienceSection: true };
    expect(findYearsOfExperience(scope, 'over 12+ years of professional experience', JUNE_2025).value).toBe(10.5);
    expect(
      findYearsOfExperience(
        { text: '', isExperienceSection: true },
        'over 12+ years of professional experience',
        JUNE_2025,
      ),
    ).toEqual({ value: 12, confidence: 0.9 });
    expect(findYearsOfExperience(scope, '', JUNE_2025)).toEqual({ value: 10.5, confidence: 0.75 });
    expect(findYearsOfExperience(scope, '', { year: 2020, month: 12 })).toEqual({ value: 6, confidence: 0.75 });
    expect(findYearsOfExperience({ ...scope, isExperienceSection: false }, '', JUNE_2025).confidence).toBe(0.6);
    expect(findYearsOfExperience({ text: 'no dates', isExperienceSection: true }, '', JUNE_2025)).toEqual({
      value: null,
      confidence: 0,
    });
  });
});

describe('phone numbers', () => {
  it('accepts international and local shapes, rejects dates and short numbers', () => {
    for (const phone of [
      '+49 30 1234 5678',
      '(415) 555-0134',
      '0049 (0)30 123456',
      '030/1234567',
      '+44 20 7946 0958',
    ]) {
      expect(isPlausiblePhone(phone), phone).toBe(true);
    }
    for (const notPhone of [
      '2015 - 2020',
      '03/2018 - 05/2021',
      '01.2019',
      '12345',
      '1234567890123456789',
      '(415 555 0134',
    ]) {
      expect(isPlausiblePhone(notPhone), notPhone).toBe(false);
    }
  });

  it('is sure of labelled or international numbers and guesses at bare ones', () => {
    expect(findPhone(['Experience 2015 - 2020', 'Tel. 030 1234567'])).toEqual({
      value: '030 1234567',
      confidence: 0.95,
    });
    expect(findPhone(['Call +1 (415) 555-0134 anytime'])).toEqual({ value: '+1 (415) 555-0134', confidence: 0.95 });
    expect(findPhone(['030 1234567'])).toEqual({ value: '030 1234567', confidence: 0.7 });
    expect(findPhone(['03/2018 - 05/2021', 'ID 12345'])).toEqual({ value: null, confidence: 0 });
  });
});

describe('skills', () => {
  it('splits on commas, semicolons, pipes, bullets and layout gaps; drops group labels and prose', () => {
    expect(
      splitSkills([
        'Languages: TypeScript, Go; Rust',
        '• Docker | Kubernetes · CI/CD',
        '- Terraform.',
        'typescript',
        'Strong communication and a passion for building great products',
      ]),
    ).toEqual(['TypeScript', 'Go', 'Rust', 'Docker', 'Kubernetes', 'CI/CD', 'Terraform']);
  });

  it('finds dictionary skills as whole words, in order of mention, not inside addresses or other words', () => {
    expect(dictionarySkills('Wrote JavaScript and Java; deployed with K8s on AWS. Mail me at jane@react.dev')).toEqual([
      'JavaScript',
      'Java',
      'Kubernetes',
      'AWS',
    ]);
    expect(dictionarySkills('I excel at rest and agile thinking')).toEqual([]);
  });

  it('lists section items first, adds dictionary skills not listed, and rates by source', () => {
    const section = { kind: 'skills' as const, heading: 0, inline: 'Postgres, Docker', lines: [] };
    expect(findSkills(section, 'Postgres, Docker. Also Python.')).toEqual({
      value: ['Postgres', 'Docker', 'Python'],
      confidence: 0.9,
    });
    expect(findSkills(undefined, 'Python and Excel')).toEqual({ value: ['Python', 'Excel'], confidence: 0.6 });
    expect(findSkills(undefined, 'nothing here')).toEqual({ value: [], confidence: 0 });
  });
});

describe('names', () => {
  it('takes 2-4 capitalised words, with particles, and nothing else', () => {
    for (const name of [
      'Jane Doe',
      'JANE DOE',
      "Seán O'Neil",
      'Ludwig van Beethoven',
      'Maria de la Cruz',
      'J. R. Smith',
    ]) {
      expect(looksLikeName(name), name).toBe(true);
    }
    for (const notName of [
      'Jane',
      'Senior Software Engineer',
      'Berlin, Germany',
      'jane doe',
      'Jane Doe 2024',
      'One Two Three Four Five',
    ]) {
      expect(looksLikeName(notName), notName).toBe(false);
    }
  });

  it('skips document titles and rates by position', () => {
    expect(findName(['Curriculum Vitae', 'Jane Doe'])).toEqual({ value: 'Jane Doe', confidence: 0.85 });
    expect(findName(['Senior Engineer', 'jane@example.com', 'Jane Doe'])).toEqual({
      value: 'Jane Doe',
      confidence: 0.75,
    });
    expect(findName(['Name: Jane Doe'])).toEqual({ value: 'Jane Doe', confidence: 0.9 });
    expect(findName(['Resume', 'Senior Engineer'])).toEqual({ value: null, confidence: 0 });
  });
});

describe('title and employer', () => {
  it('reads the first experience entry in its common shapes', () => {
    const role = (lines: string[]) => {
      const found = findCurrentRole(lines);
      return [found.title.value, found.employer.value, found.title.confidence];
    };
    expect(role(['Senior Engineer at Acme GmbH, Berlin  (2018 – present)'])).toEqual([
      'Senior Engineer',
      'Acme GmbH',
      0.85,
    ]);
    expect(role(['Senior Engineer — Acme GmbH'])).toEqual(['Senior Engineer', 'Acme GmbH', 0.85]);
    expect(role(['Acme, Inc. | Staff Engineer'])).toEqual(['Staff Engineer', 'Acme, Inc.', 0.8]);
    expect(role(['2018 - present', 'Product Manager', 'Initech'])).toEqual(['Product Manager', 'Initech', 0.75]);
    expect(role(['Initech', 'Product Manager'])).toEqual(['Product Manager', 'Initech', 0.7]);
    expect(
      role([
        'Acme Corp',
        'San Francisco, CA',
        'Senior Software Engineer',
        'Jan 2020 – Present',
        '• Led a team of engineers',
      ]),
    ).toEqual(['Senior Software Engineer', 'Acme Corp', 0.8]);
    expect(role(['Acme Corp — San Francisco, CA', 'Senior Software Engineer'])).toEqual([
      'Senior Software Engineer',
      'Acme Corp',
      0.8,
    ]);
    expect(role(['Volunteering at the food bank', '• Managed a team of engineers'])).toEqual([null, null, 0]);
  });

  it('falls back to the header when there is no experience section', () => {
    expect(findRoleInHeader(['Jane Doe', 'Data Scientist'])).toEqual({
      title: { value: 'Data Scientist', confidence: 0.55 },
      employer: { value: null, confidence: 0 },
    });
    expect(findRoleInHeader(['Jane Doe', 'Engineer at Globex']).employer).toEqual({ value: 'Globex', confidence: 0.6 });
  });
});

describe('location', () => {
  it('prefers labels, then known countries or US states, then any City, Region', () => {
    expect(findLocation(['Location: Lyon'])).toEqual({ value: 'Lyon', confidence: 0.9 });
    expect(findLocation(['Springfield, Shelbyville', 'jane@x.io | Austin, TX'])).toEqual({
      value: 'Austin, TX',
      confidence: 0.85,
    });
    expect(findLocation(['Springfield, Shelbyville'])).toEqual({ value: 'Springfield, Shelbyville', confidence: 0.6 });
    expect(findLocation(['Senior Engineer, Acme'])).toEqual({ value: null, confidence: 0 });
  });
});

describe('document structure', () => {
  it('splits layout columns and finds sections, counting a contact section as header', () => {
    expect(splitLines('Jane Doe        jane@x.io\r\n\fSkills:\tGo')).toEqual([
      'Jane Doe',
      'jane@x.io',
      'Skills:',
      'Go',
    ]);
    const doc = readDocument('Jane Doe\nEXPERIENCE\nEngineer at X\nContact\nBerlin, Germany\nSkills: Go, Rust');
    expect(doc.sections.map((section) => section.kind)).toEqual(['experience', 'contact', 'skills']);
    expect(doc.sections[2]!.inline).toBe('Go, Rust');
    expect(doc.header).toEqual(['Jane Doe', 'Berlin, Germany']);
  });

  it('reads DOCX paragraphs with runs, tabs and breaks, ignoring tab-stop definitions', () => {
    const xml =
      '<w:body><w:p><w:pPr><w:tabs><w:tab w:val="left" ' +
      'w:pos="720"/></w:tabs></w:pPr><w:r><w:t>Jane</w:t></w:r><w:r><w:t xml:space="preserve"> ' +
      'Doe</w:t></w:r></w:p>' +
      '<w:p><w:r><w:t>A &amp; B</w:t><w:tab/><w:t>&#x2014;</w:t><w:br/><w:t>next</w:t></w:r></w:p><w:p/></w:body>';
    expect(paragraphs(xml)).toEqual(['Jane Doe', 'A & B\t—\nnext', '']);
  });
});

describe('the document date', () => {
  it('reads a labelled or signed date in the seven languages', () => {
    expect(documentMonth('Stand: 03/2024', JUNE_2025)).toEqual({ year: 2024, month: 3 });
    expect(documentMonth('Mis à jour le 12/02/2023', JUNE_2025)).toEqual({ year: 2023, month: 2 });
    expect(documentMonth('Actualizado: enero de 2024', JUNE_2025)).toEqual({ year: 2024, month: 1 });
    expect(documentMonth('Lyon, le 3 mai 2024', JUNE_2025)).toEqual({ year: 2024, month: 5 });
    expect(documentMonth('Updated 2024-11-02', JUNE_2025)).toEqual({ year: 2024, month: 11 });
    expect(documentMonth('Amsterdam, 4 april 2023', JUNE_2025)).toEqual({ year: 2023, month: 4 });
  });

  it('takes no birth date, no date after the reference month, none before a job that ended later, no bare year', () => {
    expect(documentMonth('Date of birth: 12.03.1985', JUNE_2025)).toEqual(JUNE_2025);
    expect(documentMonth('Geburtsdatum: 12.03.1985', JUNE_2025)).toEqual(JUNE_2025);
    expect(documentMonth('Stand: 03/2026', JUNE_2025)).toEqual(JUNE_2025);
    expect(documentMonth('Engineer, 2019 - 05/2024\nDatum: 03/2022', JUNE_2025)).toEqual(JUNE_2025);
    expect(documentMonth('Stand: 2024', JUNE_2025)).toEqual(JUNE_2025);
  });
});

describe('parseCv', () => {
  const text = 'Jane Doe\njane@example.com\n\nExperience\nEngineer at Globex\n2019 - present';

  it('is deterministic for a given reference month', () => {
    expect(parseCv(text, { now: JUNE_2025, ocr: false })).toEqual(parseCv(text, { now: JUNE_2025, ocr: false }));
    expect(parseCv(text, { now: JUNE_2025, ocr: false }).years_exp).toBe(6.5);
  });

  it('resolves "present" against the date the CV states for itself, not against the clock', () => {
    const dated = `${text}\n\nLast updated: March 2021`;
    expect(parseCv(dated, { now: JUNE_2025, ocr: false }).years_exp).toBe(2.3);
    const signed = 'Max Muster\n\nBerufserfahrung\nIngenieur bei Globex\n01/2019 - heute\n\nBerlin, den 12. März 2022';
    expect(parseCv(signed, { now: JUNE_2025, ocr: false }).years_exp).toBe(3.3);
  });

  it('reads a date range wrapped at its connector in a narrow column', () => {
    const wrapped =
      'Felix Koch\n\nBerufserfahrung\nSteuerfachangestellte | Bergmann KG | 2021\nbis jetzt\n' +
      'Steuerfachangestellte | Nordlicht GmbH | 2018-2021';
    expect(parseCv(wrapped, { now: JUNE_2025, ocr: false }).years_exp).toBe(7.5);
  });

  it('lowers every confidence for OCR text', () => {
    const typed = parseCv(text, { now: JUNE_2025, ocr: false }).confidence;
    const scanned = parseCv(text, { now: JUNE_2025, ocr: true }).confidence;
    expect(scanned.email).toBe(Math.round(typed.email * 90) / 100);
    expect(scanned.name).toBeLessThan(typed.name);
    expect(scanned.phone).toBe(0);
  });
});

describe('employer and place', () => {
  it('drops the place written with the employer and keeps hyphenated, multi-word and suffixed names whole', () => {
    expect(employerName('Homenick - Balistreri LLC, Seattle, WA')).toBe('Homenick - Balistreri LLC');
    expect(employerName('Editorial Alhambra S.A. — Bilbao')).toBe('Editorial Alhambra S.A.');
    expect(employerName('Weber - Stahlbau SE (Nürnberg)')).toBe('Weber - Stahlbau SE');
    expect(employerName('Van Dijk - Hermans Installatietechniek V.O.F. (Antwerpen)')).toBe(
      'Van Dijk - Hermans Installatietechniek V.O.F.',
    );
    expect(employerName('Zaragoza — Construcciones Ebro S.L.')).toBe('Construcciones Ebro S.L.');
    expect(employerName('Kessler & Boyd, Inc.')).toBe('Kessler & Boyd, Inc.');
    expect(employerName('Énergies Littoral GIE, Liège, Belgique')).toBe('Énergies Littoral GIE');
  });

  it('never takes a city for the employer', () => {
    const role = (lines: string[]) => findCurrentRole(lines);
    expect(role(['Netwerkbeheerder, Van Dijk - Hermans Installatietechniek V.O.F. (Antwerpen)'])).toMatchObject({
      title: { value: 'Netwerkbeheerder' },
      employer: { value: 'Van Dijk - Hermans Installatietechniek V.O.F.' },
    });
    expect(role(['Data Analyst - Köln', 'Rheinwerk Systemtechnik GmbH'])).not.toMatchObject({
      employer: { value: 'Köln' },
    });
    expect(
      role([
        'Homenick - Balistreri LLC, Seattle, WA   03/2021 – Present',
        'Account Executive',
        '• Grew the client base',
      ]),
    ).toMatchObject({
      title: { value: 'Account Executive' },
      employer: { value: 'Homenick - Balistreri LLC' },
    });
  });
});

describe('years of experience', () => {
  it('leaves out internships and student jobs, wherever the entry puts its dates', () => {
    const lines = [
      'Software Developer',
      'Acme GmbH (Köln)',
      '01/2020 – 12/2022',
      '• Built things',
      'Praktikant',
      'Acme GmbH (Köln)',
      '03/2018 – 02/2019',
    ];
    expect(mergedMonths(jobRanges(lines, JUNE_2025))).toBe(36);
    expect(
      mergedMonths(jobRanges(['2016-03 – 2016-08', 'Becaria de marketing', 'Vidal - Ferrer S.A.'], JUNE_2025)),
    ).toBe(0);
  });
});

describe('label columns and addresses', () => {
  it('reads a Europass label column: name and address labels without colons, a skills list beside its heading', () => {
    const text =
      'Currículum vitae · Europass\nDatos personales\nNombre Diego García\nDirección Avenida del Puerto 102, 46023 ' +
      'Valencia, España\nTrayectoria profesional\nIngeniero de software\nGrupo Alimentario Sur S.A. — ' +
      'Sevilla\n01.2021 – 01.2024\nHabilidades Negociación, AutoCAD, Excel avanzado, SAP';
    const row = parseCv(text, { now: JUNE_2025, ocr: false });
    expect(row).toMatchObject({
      name: 'Diego García',
      location: '46023 Valencia, España',
      title: 'Ingeniero de software',
      employer: 'Grupo Alimentario Sur S.A.',
    });
    expect(row.skills).toEqual(expect.arrayContaining(['Negociación', 'AutoCAD', 'Excel avanzado', 'SAP']));
  });

  it('takes the place of an address block or a postcode line, not the street', () => {
    expect(findLocation(['Sergio Serrano', 'Avenida del Puerto 102', '46023 Valencia', 'España']).value).toBe(
      '46023 Valencia, España',
    );
    expect(findLocation(['Lena Engel', '50672 Köln, Deutschland | +49 170 1234567']).value).toBe(
      '50672 Köln, Deutschland',
    );
  });
});
