/**
 * Pinned rows from the bench corpus (bench/cv/corpus): two or three CVs per language, across the layouts
 * (table and frame sidebars, a DOCX text box, a DOCX table, a legacy DOC, a single column and a
 * scan), each with its exact expected row. A change to the heuristics that alters any of them
 * shows here; rerun `npx tsx bench/cv/run.ts` to see whether the corpus as a whole gained.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { isFileResult } from '../../core/contract/index.js';
import { runPlugin } from '../../core/contract/testing.js';
import { parseCvPlugin } from './index.js';

const FILES = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../bench/cv/corpus/files');

// Ongoing jobs count up to the current month: read the rows as of November 2026.
beforeAll(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(new Date('2026-11-15T12:00:00Z'));
});
afterAll(() => vi.useRealTimers());

const PINNED: Record<string, unknown> = {
  'en-02-pdf-table.pdf': {
    "name": "Oliver Hughes",
    "email": "oliver.hughes@example.com",
    "phone": "(512) 555-0147",
    "title": "Project Manager",
    "employer": "Kestrel Systems",
    "location": "Austin, TX",
    "linkedin": "https://www.linkedin.com/in/oliver-hughes",
    "skills": [
      "Scrum",
      "Jira",
      "Stakeholder",
      "Management",
      "MS Project",
      "Budgeting"
    ],
    "years_exp": 14.2,
    "confidence": {
      "name": 0.85,
      "email": 0.98,
      "phone": 0.95,
      "title": 0.85,
      "employer": 0.85,
      "location": 0.85,
      "linkedin": 0.9,
      "skills": 0.9,
      "years_exp": 0.75
    }
  },
  'en-06-docx-textbox.docx': {
    "name": "Michael Reynolds",
    "email": "michael.reynolds@example.net",
    "phone": "(512) 555-0147",
    "title": "Data Analyst",
    "employer": "Bluefield Labs",
    "location": "Austin, TX",
    "linkedin": "https://www.linkedin.com/in/michael-reynolds-142",
    "skills": [
      "Python",
      "SQL",
      "Tableau",
      "Excel",
      "Pandas"
    ],
    "years_exp": 6.7,
    "confidence": {
      "name": 0.85,
      "email": 0.98,
      "phone": 0.7,
      "title": 0.8,
      "employer": 0.8,
      "location": 0.85,
      "linkedin": 0.97,
      "skills": 0.9,
      "years_exp": 0.75
    }
  },
  'en-09-scan-single.pdf': {
    "name": "Laura Foster",
    "email": "laura.foster@example.net",
    "phone": "+44 7700 900123",
    "title": "Financial Accountant",
    "employer": "Harbour Analytics Inc.",
    "location": "Manchester, England",
    "linkedin": "https://www.linkedin.com/in/laura-foster-163",
    "skills": [
      "IFRS",
      "SAP",
      "Excel",
      "Month-end Closing",
      "Audit"
    ],
    "years_exp": 11.8,
    "confidence": {
      "name": 0.77,
      "email": 0.88,
      "phone": 0.86,
      "title": 0.72,
      "employer": 0.72,
      "location": 0.77,
      "linkedin": 0.87,
      "skills": 0.81,
      "years_exp": 0.68
    }
  },
  'de-06-docx-textbox.docx': {
    "name": "Maximilian Wagner",
    "email": "maximilian.wagner@mail.example.org",
    "phone": "+49 (0)89 1234 567",
    "title": "Datenanalyst",
    "employer": "Datenwerk SE",
    "location": "20095 Hamburg",
    "linkedin": "https://www.linkedin.com/in/maximilian-wagner-142",
    "skills": [
      "Python",
      "SQL",
      "Power BI",
      "Excel",
      "Statistik"
    ],
    "years_exp": 10.9,
    "confidence": {
      "name": 0.85,
      "email": 0.98,
      "phone": 0.95,
      "title": 0.85,
      "employer": 0.85,
      "location": 0.85,
      "linkedin": 0.97,
      "skills": 0.9,
      "years_exp": 0.75
    }
  },
  'de-01-pdf-single.pdf': {
    "name": "Anna Becker",
    "email": "anna.becker@example.com",
    "phone": "0171 2345678",
    "title": "Datenanalyst",
    "employer": "Siemens AG",
    "location": "München, Deutschland",
    "linkedin": "https://www.linkedin.com/in/anna-becker",
    "skills": [
      "Python",
      "SQL",
      "Power BI",
      "Excel",
      "Statistik"
    ],
    "years_exp": 13.1,
    "confidence": {
      "name": 0.85,
      "email": 0.98,
      "phone": 0.95,
      "title": 0.8,
      "employer": 0.8,
      "location": 0.85,
      "linkedin": 0.97,
      "skills": 0.9,
      "years_exp": 0.75
    }
  },
  'de-09-scan-table.pdf': {
    "name": "Sophie Richter",
    "email": "sophie.richter@example.com",
    "phone": "0171 2345678",
    "title": "Softwareentwickler",
    "employer": "Datenwerk SE",
    "location": "Munchen, Deutschland",
    "linkedin": "https://www.linkedin.com/in/sophie-richter-163",
    "skills": [
      "Java",
      "Spring Boot",
      "Kubernetes",
      "PostgreSQL",
      "Git"
    ],
    "years_exp": 7,
    "confidence": {
      "name": 0.77,
      "email": 0.88,
      "phone": 0.86,
      "title": 0.77,
      "employer": 0.77,
      "location": 0.81,
      "linkedin": 0.87,
      "skills": 0.81,
      "years_exp": 0.68
    }
  },
  'fr-04-pdf-frame.pdf': {
    "name": "Claire Girard",
    "email": "claire.girard@example.com",
    "phone": "+33 6 12 34 56 78",
    "title": "Chef de projet",
    "employer": "Groupe Lumière SA",
    "location": "75011 Paris",
    "linkedin": "https://www.linkedin.com/in/claire-girard",
    "skills": [
      "Gestion de projet",
      "Scrum",
      "Jira",
      "MS Project",
      "Conduite du",
      "changement"
    ],
    "years_exp": 14.6,
    "confidence": {
      "name": 0.85,
      "email": 0.98,
      "phone": 0.95,
      "title": 0.85,
      "employer": 0.85,
      "location": 0.85,
      "linkedin": 0.97,
      "skills": 0.9,
      "years_exp": 0.75
    }
  },
  'fr-08-doc-single.doc': {
    "name": "Sophie Fontaine",
    "email": "sophie.fontaine@example.net",
    "phone": "+33 6 12 34 56 78",
    "title": "Ingénieure logiciel",
    "employer": "Groupe Lumière SA",
    "location": "Paris, France",
    "linkedin": null,
    "skills": [
      "Java",
      "Angular",
      "Docker",
      "PostgreSQL",
      "Git"
    ],
    "years_exp": 9.7,
    "confidence": {
      "name": 0.85,
      "email": 0.98,
      "phone": 0.95,
      "title": 0.8,
      "employer": 0.8,
      "location": 0.9,
      "linkedin": 0,
      "skills": 0.9,
      "years_exp": 0.75
    }
  },
  'es-00-pdf-single.pdf': {
    "name": "Lucía Fernández",
    "email": "lucia.fernandez@example.net",
    "phone": "+34 612 345 678",
    "title": "Contable",
    "employer": "Grupo Mediterráneo S.A.",
    "location": "28001 Madrid",
    "linkedin": "https://www.linkedin.com/in/lucia-fernandez-100",
    "skills": [
      "SAP",
      "Contaplus",
      "Excel",
      "Fiscalidad"
    ],
    "years_exp": 15.1,
    "confidence": {
      "name": 0.85,
      "email": 0.98,
      "phone": 0.95,
      "title": 0.8,
      "employer": 0.8,
      "location": 0.85,
      "linkedin": 0.97,
      "skills": 0.9,
      "years_exp": 0.75
    }
  },
  'es-03-pdf-table.pdf': {
    "name": "Alejandro Sánchez",
    "email": "alejandro.sanchezruiz@mail.example.org",
    "phone": "+34 699 112 233",
    "title": "Ingeniera de datos",
    "employer": "Nubentia S.L.",
    "location": "Sevilla",
    "linkedin": null,
    "skills": [
      "Apache Spark",
      "Python",
      "SQL",
      "Airflow",
      "Kafka"
    ],
    "years_exp": 15.8,
    "confidence": {
      "name": 0.85,
      "email": 0.9,
      "phone": 0.95,
      "title": 0.8,
      "employer": 0.8,
      "location": 0.8,
      "linkedin": 0,
      "skills": 0.9,
      "years_exp": 0.75
    }
  },
  'nl-07-docx-table.docx': {
    "name": "Femke Smit",
    "email": "femke.smit@example.net",
    "phone": "+32 9 123 45 67",
    "title": "Projectleider",
    "employer": "Zuidas Consultancy B.V.",
    "location": "Gent, België",
    "linkedin": "https://www.linkedin.com/in/femke-smit",
    "skills": [
      "Prince2",
      "Scrum",
      "Jira",
      "Stakeholdermanagement"
    ],
    "years_exp": 13.8,
    "confidence": {
      "name": 0.85,
      "email": 0.98,
      "phone": 0.95,
      "title": 0.8,
      "employer": 0.8,
      "location": 0.9,
      "linkedin": 0.97,
      "skills": 0.9,
      "years_exp": 0.75
    }
  },
  'nl-04-pdf-frame.pdf': {
    "name": "Jeroen de Jong",
    "email": "jeroen.dejong@mail.example.org",
    "phone": "+31 6 12345678",
    "title": "Data-analist",
    "employer": "Philips",
    "location": "1012 AB Amsterdam",
    "linkedin": "https://www.linkedin.com/in/jeroen-dejong",
    "skills": [
      "Python",
      "SQL",
      "Power BI",
      "Excel"
    ],
    "years_exp": 13.2,
    "confidence": {
      "name": 0.85,
      "email": 0.98,
      "phone": 0.95,
      "title": 0.75,
      "employer": 0.75,
      "location": 0.85,
      "linkedin": 0.97,
      "skills": 0.9,
      "years_exp": 0.75
    }
  },
  'it-08-doc-table.doc': {
    "name": "Valentina Conti",
    "email": "valentina.conti@example.net",
    "phone": "+39 347 123 4567",
    "title": "Ingegnere meccanico",
    "employer": "Meccanica Lombarda S.r.l.",
    "location": "Milano, Italia",
    "linkedin": null,
    "skills": [
      "SolidWorks",
      "AutoCAD",
      "MATLAB",
      "Lean Manufacturing"
    ],
    "years_exp": 12.1,
    "confidence": {
      "name": 0.85,
      "email": 0.98,
      "phone": 0.95,
      "title": 0.8,
      "employer": 0.8,
      "location": 0.85,
      "linkedin": 0,
      "skills": 0.9,
      "years_exp": 0.75
    }
  },
  'it-01-pdf-single.pdf': {
    "name": "Marco Gallo",
    "email": "marco.gallo@mail.example.org",
    "phone": "+39 02 1234 5678",
    "title": "Project manager",
    "employer": "Soluzioni Informatiche S.r.l.",
    "location": "Roma, Italia",
    "linkedin": "https://www.linkedin.com/in/marco-gallo",
    "skills": [
      "Scrum",
      "Jira",
      "Gestione del rischio",
      "MS Project"
    ],
    "years_exp": 6.8,
    "confidence": {
      "name": 0.85,
      "email": 0.98,
      "phone": 0.95,
      "title": 0.85,
      "employer": 0.85,
      "location": 0.9,
      "linkedin": 0.97,
      "skills": 0.9,
      "years_exp": 0.75
    }
  },
  'pt-05-pdf-frame.pdf': {
    "name": "Tiago Santos",
    "email": "tiago.santos@example.com",
    "phone": "+351 21 123 4567",
    "title": "Gestora de projetos",
    "employer": "Farfetch",
    "location": "Porto, Portugal",
    "linkedin": "https://www.linkedin.com/in/tiago-santos",
    "skills": [
      "Scrum",
      "Jira",
      "Gestão de riscos",
      "MS",
      "Project"
    ],
    "years_exp": 7.9,
    "confidence": {
      "name": 0.85,
      "email": 0.98,
      "phone": 0.95,
      "title": 0.85,
      "employer": 0.85,
      "location": 0.85,
      "linkedin": 0.9,
      "skills": 0.9,
      "years_exp": 0.75
    }
  },
  'pt-07-docx-table.docx': {
    "name": "Rafael Martins",
    "email": "rafael.martins@mail.example.org",
    "phone": "912 345 678",
    "title": "Analista de dados",
    "employer": "Soluções Digitais Lda.",
    "location": "Braga",
    "linkedin": "https://www.linkedin.com/in/rafael-martins",
    "skills": [
      "Python",
      "SQL",
      "Power BI",
      "Excel"
    ],
    "years_exp": 15.1,
    "confidence": {
      "name": 0.85,
      "email": 0.98,
      "phone": 0.95,
      "title": 0.8,
      "employer": 0.8,
      "location": 0.8,
      "linkedin": 0.97,
      "skills": 0.9,
      "years_exp": 0.75
    }
  },
};

describe('parse-cv on the bench corpus', () => {
  for (const [file, expected] of Object.entries(PINNED)) {
    it(file, async () => {
      const format = file.endsWith('.docx') ? 'docx' : file.endsWith('.doc') ? 'doc' : 'pdf';
      const run = await runPlugin(parseCvPlugin, [{ path: path.join(FILES, file), format }]);
      if (isFileResult(run.result)) throw new Error('expected a row');
      expect(run.result.row).toEqual(expected);
    }, 120_000);
  }
});
