/** Row conversions shared by the SQLite repositories: times are epoch milliseconds, JSON columns text. */
export type Row = Record<string, unknown>;

export const toDate = (v: unknown): Date | null => (v === null || v === undefined ? null : new Date(Number(v)));
export const ms = (d: Date | null | undefined): number | null => (d ? d.getTime() : null);
export const json = <T>(v: unknown): T => JSON.parse(String(v)) as T;
