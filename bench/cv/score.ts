/**
 * Scores a parse-cv row against the truth as a recruiter would: exact e-mail, phone by its
 * digits, token F1 for name / title / employer / location, set F1 for skills, years within
 * ±1, LinkedIn exact. `right` is the stricter yes/no used to check that confidences are honest.
 */
import type { CvField as Field, CvRow as Row } from '../../plugins/cv/shared/parse.js';
import { yearsOn, type CvTruth, type Month } from './corpus/model.js';

export { CV_FIELDS as FIELDS, type CvField as Field, type CvRow as Row } from '../../plugins/cv/shared/parse.js';

export interface FieldScore {
  field: Field;
  /** 0..1 */
  score: number;
  /** The value is what the recruiter would have entered (exact tokens, F1 >= 0.8 for skills). */
  right: boolean;
  /** A value was returned (not null / []). */
  found: boolean;
  confidence: number;
}

const tokens = (text: string) =>
  text
    .normalize('NFKC')
    .toLocaleLowerCase('und')
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);

function f1<T>(predicted: readonly T[], truth: readonly T[]): number {
  if (!predicted.length && !truth.length) return 1;
  if (!predicted.length || !truth.length) return 0;
  const pool = [...truth];
  let hits = 0;
  for (const item of predicted) {
    const at = pool.indexOf(item);
    if (at >= 0) {
      hits++;
      pool.splice(at, 1);
    }
  }
  if (!hits) return 0;
  const precision = hits / predicted.length;
  const recall = hits / truth.length;
  return (2 * precision * recall) / (precision + recall);
}

export const tokenF1 = (predicted: string | null, truth: string | null) =>
  truth === null ? (predicted === null ? 1 : 0) : predicted === null ? 0 : f1(tokens(predicted), tokens(truth));

const skillKey = (skill: string) => tokens(skill).join(' ');
export const skillsF1 = (predicted: readonly string[], truth: readonly string[]) =>
  f1([...new Set(predicted.map(skillKey))], [...new Set(truth.map(skillKey))]);

const digits = (text: string | null) => (text ?? '').replace(/\D/g, '');

export function scoreRow(row: Row, truth: CvTruth, now: Month): FieldScore[] {
  const years = yearsOn(truth.experience, now);
  const one = (field: Field, score: number, right: boolean, found: boolean): FieldScore => ({
    field,
    score,
    right,
    found,
    confidence: row.confidence[field] ?? 0,
  });
  const exact = (field: Field, score: number) => one(field, score, score === 1, true);
  return [
    exact('name', tokenF1(row.name, truth.name)),
    exact('email', row.email !== null && row.email.toLowerCase() === truth.email.toLowerCase() ? 1 : 0),
    exact('phone', row.phone !== null && digits(row.phone) === digits(truth.phone) ? 1 : 0),
    exact('title', tokenF1(row.title, truth.title)),
    exact('employer', tokenF1(row.employer, truth.employer)),
    exact('location', tokenF1(row.location, truth.location)),
    exact('linkedin', (row.linkedin?.toLowerCase() ?? null) === (truth.linkedin?.toLowerCase() ?? null) ? 1 : 0),
    (() => {
      const score = skillsF1(row.skills, truth.skills);
      return one('skills', score, score >= 0.8, true);
    })(),
    exact('years_exp', row.years_exp !== null && Math.abs(row.years_exp - years) <= 1 ? 1 : 0),
  ].map((score) => ({ ...score, found: foundValue(row, score.field) }));
}

function foundValue(row: Row, field: Field): boolean {
  const value = row[field];
  return Array.isArray(value) ? value.length > 0 : value !== null;
}
