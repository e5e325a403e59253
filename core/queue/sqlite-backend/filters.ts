import type { RemoveJobsOptions } from 'agenda';
import { UNIQUE_KEY_COLUMNS, type SqlValue } from './schema.js';

/** Accumulates AND-ed SQL conditions and their positional parameters. */
export class Conditions {
  private readonly clauses: string[] = [];
  readonly params: SqlValue[] = [];

  add(clause: string, ...params: SqlValue[]): this {
    this.clauses.push(clause);
    this.params.push(...params);
    return this;
  }

  get isEmpty(): boolean {
    return this.clauses.length === 0;
  }

  toWhere(): string {
    return this.isEmpty ? '' : `WHERE ${this.clauses.join(' AND ')}`;
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

function jsonPath(keys: string[]): string {
  return keys.reduce((path, key) => {
    // SQLite JSON paths cannot escape a double quote inside a quoted label.
    if (key.includes('"')) throw new Error(`Unsupported key in data filter: ${JSON.stringify(key)}`);
    return `${path}."${key}"`;
  }, '$');
}

/**
 * `data -> path` yields the JSON text of the value at path, so comparing it with
 * JSON.stringify(expected) is type-exact ("1" differs from 1, true from 1).
 * Null matches both an explicit null and a missing key, as in MongoDB.
 */
function addJsonEquals(conditions: Conditions, keys: string[], expected: unknown): void {
  const path = jsonPath(keys);
  if (expected === null || expected === undefined) {
    conditions.add('json_extract(data, ?) IS NULL', path);
  } else {
    conditions.add('data -> ? = ?', path, JSON.stringify(expected));
  }
}

/**
 * Partial match on the job's data, like the MongoDB backend: a plain object matches
 * every job whose data contains those (nested) fields; any other value must equal data.
 */
export function addDataFilter(conditions: Conditions, expected: unknown, keys: string[] = []): void {
  if (!isPlainObject(expected)) {
    addJsonEquals(conditions, keys, expected);
    return;
  }
  for (const [key, value] of Object.entries(expected)) {
    addDataFilter(conditions, value, [...keys, key]);
  }
}

function toColumnValue(value: unknown, key: string): SqlValue {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value.getTime();
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'string' || typeof value === 'number') return value;
  throw new Error(`Unsupported value for unique key "${key}": only scalars and dates are allowed`);
}

/**
 * Translates a `unique` query ({ 'data.userId': 5, name: 'x' }) into conditions.
 * Keys are either `data.<path>` or a job field from a fixed allowlist (column names are
 * interpolated, so nothing caller-controlled reaches the SQL text). MongoDB operators
 * (`{ $gt: ... }`) have no equivalent here and are rejected rather than silently ignored.
 */
export function addUniqueFilter(conditions: Conditions, unique: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(unique)) {
    if (key.startsWith('$') || (isPlainObject(value) && Object.keys(value).some((k) => k.startsWith('$')))) {
      throw new Error(`Query operators are not supported in unique(): "${key}"`);
    }
    if (key === 'data' || key.startsWith('data.')) {
      addJsonEquals(conditions, key.split('.').slice(1), value);
      continue;
    }
    const column = UNIQUE_KEY_COLUMNS[key];
    if (column === undefined) throw new Error(`Unsupported unique key "${key}"`);
    const columnValue = toColumnValue(value, key);
    conditions.add(
      columnValue === null ? `${column} IS NULL` : `${column} = ?`,
      ...(columnValue === null ? [] : [columnValue]),
    );
  }
}

/** Lists are bound as one JSON array so each statement's SQL text stays the same whatever the list length. */
function addInList(conditions: Conditions, column: string, values: readonly unknown[], negate = false): void {
  conditions.add(
    `${column} ${negate ? 'NOT IN' : 'IN'} (SELECT value FROM json_each(?))`,
    JSON.stringify(values.map(String)),
  );
}

export function addIdFilters(conditions: Conditions, options: { id?: string; ids?: readonly string[] }): void {
  if (options.id) {
    conditions.add('id = ?', options.id);
  } else if (options.ids && options.ids.length > 0) {
    addInList(conditions, 'id', options.ids);
  }
}

export function addNameFilters(
  conditions: Conditions,
  options: { name?: string; names?: string[]; notNames?: string[]; search?: string },
): void {
  if (options.name) {
    conditions.add('name = ?', options.name);
  } else if (options.names && options.names.length > 0) {
    addInList(conditions, 'name', options.names);
  } else if (options.notNames && options.notNames.length > 0) {
    addInList(conditions, 'name', options.notNames, true);
  }
  if (options.search) {
    // LIKE is case-insensitive for ASCII, like the MongoDB backend's /search/i.
    conditions.add(`name LIKE ? ESCAPE '\\'`, `%${options.search.replace(/[\\%_]/g, '\\$&')}%`);
  }
}

/** Shared by removeJobs, disableJobs and enableJobs. Empty when no criterion is given. */
export function selectionConditions(options: RemoveJobsOptions): Conditions {
  const conditions = new Conditions();
  addIdFilters(conditions, options);
  addNameFilters(conditions, options);
  if (options.data !== undefined) addDataFilter(conditions, options.data);
  return conditions;
}
