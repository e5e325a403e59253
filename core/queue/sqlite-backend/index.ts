import type { AgendaBackend } from 'agenda';
import { SqliteJobRepository, type SqliteBackendOptions } from './repository.js';

export { SqliteJobRepository, type SqliteBackendOptions, type SqliteConnectionOptions } from './repository.js';

/**
 * Agenda 6 backend storing jobs in one SQLite table. Several processes may share the
 * file (WAL mode): job locking is atomic across them. No notification channel: Agenda
 * polls every `processEvery`.
 *
 * @example
 * const agenda = new Agenda({ backend: new SqliteBackend({ path: 'data/queue.db' }) });
 * const shared = new SqliteBackend({ database: appDb, tableName: 'jobs' });
 */
export class SqliteBackend implements AgendaBackend {
  readonly name = 'SQLite';
  readonly repository: SqliteJobRepository;
  /** False when the database handle was passed in: Agenda.stop() then leaves it open. */
  readonly ownsConnection: boolean;

  constructor(options: SqliteBackendOptions) {
    this.repository = new SqliteJobRepository(options);
    this.ownsConnection = this.repository.ownsConnection;
  }

  connect(): Promise<void> {
    return this.repository.connect();
  }

  disconnect(): Promise<void> {
    return this.repository.disconnect();
  }
}
