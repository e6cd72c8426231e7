import { postgresUnavailable, startPostgres, type RunningPostgres } from '@fxdesk/core/testing';
import { afterAll, beforeAll } from 'vitest';

/**
 * One PostgreSQL server for the test file that calls this at its top (started before its tests,
 * stopped after them), or why there can be none (`unavailable`: skip the tests, saying it).
 * `database()` gives each test an empty database of its own, sorted by an ICU locale (en-US) so
 * that a query relying on the database's collation for its order would show it.
 */
export function postgresForFile(): { unavailable: string | undefined; database: () => Promise<string> } {
  const unavailable = postgresUnavailable();
  let server: RunningPostgres | undefined;
  beforeAll(async () => {
    if (!unavailable) server = await startPostgres();
  }, 300_000);
  afterAll(() => server?.stop());
  return { unavailable, database: () => (server as RunningPostgres).createDatabase({ icuLocale: 'en-US' }) };
}
