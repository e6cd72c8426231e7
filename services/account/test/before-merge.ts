import fs from 'node:fs';
import type { AccountSnapshot } from '@fxdesk/schemas';

/** The databases the per-engine stores of before the merge left (commit e53e363; see fixtures/README.md). */
export const BEFORE_MERGE = {
  /** account.db of SqliteSnapshotStore. */
  sqliteFile: new URL('fixtures/account-e53e363.db', import.meta.url),
  /** The schema, fxdesk_schema row and rows of PostgresSnapshotStore, as SQL. */
  postgresScript: new URL('fixtures/account-e53e363.postgres.sql', import.meta.url),
  /** What each store of before read back from its database (the same seven adds, a retention of 4), newest first. */
  snapshots: (): AccountSnapshot[] =>
    JSON.parse(fs.readFileSync(new URL('fixtures/account-e53e363.snapshots.json', import.meta.url), 'utf8')) as AccountSnapshot[],
};
