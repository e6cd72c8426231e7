import { PostgresStoreDatabase, type PostgresDatabaseOptions } from './postgres-db.js';
import type { Database, Schema } from './port.js';
import { SqliteStoreDatabase, type SqliteDatabaseOptions } from './sqlite-db.js';

export interface StoreDatabaseOptions {
  /** DATABASE_URL: PostgreSQL when set, else the SQLite `file`. */
  databaseUrl: string | undefined;
  /** The SQLite file (databasePath(DATA_DIR, service)), or `:memory:`. */
  file: string;
  schema: Schema;
  sqlite?: SqliteDatabaseOptions;
  postgres?: PostgresDatabaseOptions;
}

/** The one place that picks a store's engine: PostgreSQL when DATABASE_URL names one, else SQLite. Migrated first. */
export async function openStoreDatabase(options: StoreDatabaseOptions): Promise<Database> {
  if (options.databaseUrl !== undefined) return PostgresStoreDatabase.open(options.databaseUrl, options.schema, options.postgres);
  return SqliteStoreDatabase.open(options.file, options.schema, options.sqlite);
}
