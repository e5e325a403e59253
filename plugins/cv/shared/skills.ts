/** Skills: the items of a "Skills" section, plus known skills mentioned anywhere in the text. */
import { notFound, type Finding } from './finding.js';
import type { Section } from './sections.js';

// Commas, semicolons, pipes, bullets, tabs and layout gaps separate items; "/" does not (CI/CD).
const ITEM_SEPARATOR = /[,;|•·▪●■◦►✓]|\t|\s{2,}/;
const LEADING_BULLET = /^[-*–—>]\s+/;
// "Languages: TypeScript, Go": a short label before a colon groups items, it is not one.
const GROUP_LABEL = /^[\p{L} &/]{2,30}:\s*/u;
const MAX_ITEM_WORDS = 4;
const MAX_ITEM_LENGTH = 40;

/** The skill items of section lines, in order, without duplicates (case-insensitive). */
export function splitSkills(lines: readonly string[]): string[] {
  const items = lines
    .map((line) => line.replace(LEADING_BULLET, '').replace(GROUP_LABEL, ''))
    .flatMap((line) => line.split(ITEM_SEPARATOR))
    .map((item) => item.replace(LEADING_BULLET, '').replace(/\.$/, '').trim())
    .filter(
      (item) => /\p{L}/u.test(item) && item.length <= MAX_ITEM_LENGTH && item.split(/\s+/).length <= MAX_ITEM_WORDS,
    );
  return dedupe(items);
}

/**
 * Skills common enough to spot in running text. Matched case-insensitively except the ones
 * that are also ordinary words (case-sensitive, so "excel at" is not Excel).
 */
const DICTIONARY: ReadonlyArray<{ name: string; caseSensitive?: boolean; aliases?: string[] }> = [
  { name: 'JavaScript' },
  { name: 'TypeScript' },
  { name: 'Python' },
  { name: 'Java' },
  { name: 'C++' },
  { name: 'C#' },
  { name: 'Golang' },
  { name: 'Rust', caseSensitive: true },
  { name: 'Ruby' },
  { name: 'PHP' },
  { name: 'Kotlin' },
  { name: 'Swift', caseSensitive: true },
  { name: 'Scala' },
  { name: 'SQL', caseSensitive: true },
  { name: 'PostgreSQL', aliases: ['Postgres'] },
  { name: 'MySQL' },
  { name: 'MongoDB' },
  { name: 'Redis' },
  { name: 'Elasticsearch' },
  { name: 'GraphQL' },
  { name: 'REST', caseSensitive: true },
  { name: 'React', aliases: ['React.js', 'ReactJS'] },
  { name: 'Angular' },
  { name: 'Vue.js', aliases: ['Vue', 'VueJS'] },
  { name: 'Node.js', aliases: ['NodeJS'] },
  { name: 'Django' },
  { name: 'Flask' },
  { name: 'Spring Boot' },
  { name: '.NET' },
  { name: 'HTML', caseSensitive: true },
  { name: 'CSS', caseSensitive: true },
  { name: 'Docker' },
  { name: 'Kubernetes', aliases: ['K8s'] },
  { name: 'Terraform' },
  { name: 'Ansible' },
  { name: 'AWS', caseSensitive: true },
  { name: 'Azure' },
  { name: 'GCP', caseSensitive: true },
  { name: 'Linux' },
  { name: 'Git', caseSensitive: true },
  { name: 'CI/CD' },
  { name: 'Jenkins' },
  { name: 'Kafka' },
  { name: 'RabbitMQ' },
  { name: 'Apache Spark' },
  { name: 'Pandas' },
  { name: 'NumPy' },
  { name: 'TensorFlow' },
  { name: 'PyTorch' },
  { name: 'Machine Learning' },
  { name: 'Excel', caseSensitive: true },
  { name: 'Power BI' },
  { name: 'Tableau' },
  { name: 'Figma' },
  { name: 'Photoshop' },
  { name: 'Agile', caseSensitive: true },
  { name: 'Scrum', caseSensitive: true },
  { name: 'Jira' },
  { name: 'SAP', caseSensitive: true },
  { name: 'Salesforce' },
  { name: 'Microservices' },
  { name: 'Bash' },
  { name: 'MATLAB' },
];

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
// Not inside a longer token, an email address or a URL ("jane@react.dev" is not React).
const wordPattern = (term: string, caseSensitive: boolean) =>
  new RegExp(
    String.raw`(?<![\p{L}\p{N}+#.@/])${escapeRegExp(term)}(?![\p{L}\p{N}+#]|\.\p{L})`,
    caseSensitive ? 'u' : 'iu',
  );

const DICTIONARY_PATTERNS = DICTIONARY.map((skill) => ({
  name: skill.name,
  patterns: [skill.name, ...(skill.aliases ?? [])].map((term) => wordPattern(term, skill.caseSensitive ?? false)),
}));

/** Dictionary skills mentioned in `text`, in order of first mention. */
export function dictionarySkills(text: string): string[] {
  const hits = DICTIONARY_PATTERNS.flatMap(({ name, patterns }) => {
    const positions = patterns.map((pattern) => pattern.exec(text)?.index).filter((index) => index !== undefined);
    return positions.length ? [{ name, position: Math.min(...positions) }] : [];
  });
  return hits.sort((a, b) => a.position - b.position || a.name.localeCompare(b.name)).map((hit) => hit.name);
}

/** Section items first (the CV's own words), then dictionary skills it did not list. */
export function findSkills(section: Section | undefined, text: string): Finding<string[]> {
  const listed = section ? splitSkills([section.inline, ...section.lines].filter(Boolean)) : [];
  // A listed "Postgres" already is the dictionary's PostgreSQL.
  const alreadyListed = new Set(dictionarySkills(listed.join('\n')));
  const skills = dedupe([...listed, ...dictionarySkills(text).filter((name) => !alreadyListed.has(name))]);
  if (listed.length) return { value: skills, confidence: 0.9 };
  return skills.length ? { value: skills, confidence: 0.6 } : notFound([]);
}

function dedupe(items: readonly string[]): string[] {
  const seen = new Set<string>();
  return items.filter((item) => {
    const key = item.toLowerCase().replace(/\s+/g, ' ');
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
