import { inTransaction, openPostgres, postgresHealth, type PostgresPool } from '@fxdesk/core';
import type { AccountSnapshot, AccountSnapshotKind } from '@fxdesk/schemas';
import { SNAPSHOT_COLUMNS, snapshotOf, type SnapshotAccount, type SnapshotRow, type SnapshotStore } from './store.js';

/**
 * The schema of the snapshots in PostgreSQL (counted as store `account` in fxdesk_schema): the
 * columns of account.db's, under names of their own so that services can share one database.
 * Ids come from a one-row counter rather than a sequence, as SQLite's AUTOINCREMENT gives them:
 * without gaps (a rolled-back add takes back its number, which a sequence does not), so the
 * newest N are an id range, and never reused.
 */
export const POSTGRES_MIGRATIONS = [
  `CREATE TABLE account_snapshots (
     id                  BIGINT PRIMARY KEY,
     kind                TEXT NOT NULL CHECK (kind IN ('summary', 'details')),
     taken_at            TEXT NOT NULL,
     broker              TEXT NOT NULL,
     account_id          TEXT NOT NULL,
     last_transaction_id TEXT NOT NULL,
     as_of               TEXT NOT NULL,
     account             TEXT NOT NULL
   );
   CREATE INDEX account_snapshots_by_kind ON account_snapshots (kind, id);
   CREATE TABLE account_snapshot_ids (
     only_row BOOLEAN PRIMARY KEY DEFAULT true CHECK (only_row),
     last_id  BIGINT NOT NULL
   );
   INSERT INTO account_snapshot_ids (last_id) VALUES (0);`,
];

// The counter's row lock is held until the add commits: adds on every replica take their turn
// there, so each one's prune sees every snapshot committed before it, and none is in flight.
const NEXT_ID = 'UPDATE account_snapshot_ids SET last_id = last_id + 1 RETURNING last_id';
const INSERT = `INSERT INTO account_snapshots (id, kind, taken_at, broker, account_id, last_transaction_id, as_of, account)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${SNAPSHOT_COLUMNS}`;
const PRUNE = 'DELETE FROM account_snapshots WHERE id <= $1';
const NEWEST = `SELECT ${SNAPSHOT_COLUMNS} FROM account_snapshots ORDER BY id DESC LIMIT $1`;
const NEWEST_OF_KIND = `SELECT ${SNAPSHOT_COLUMNS} FROM account_snapshots WHERE kind = $2 ORDER BY id DESC LIMIT $1`;

/**
 * The snapshots in PostgreSQL (DATABASE_URL), for several replicas on one database. An add is one
 * transaction (number, insert, prune), durable when it returns (the server's synchronous_commit):
 * after each commit the table holds exactly the newest `retention` snapshots, however many
 * replicas write at once.
 */
export class PostgresSnapshotStore implements SnapshotStore {
  private closed = false;

  /** `retention`: newest snapshots kept (0 keeps all). */
  constructor(
    private readonly pool: PostgresPool,
    private readonly retention = 0,
  ) {}

  /** Connects to the database and brings its schema up to date (safe when replicas start at once). */
  static async open(url: string, retention = 0): Promise<PostgresSnapshotStore> {
    const pool = await openPostgres({ url, store: 'account', migrations: POSTGRES_MIGRATIONS });
    return new PostgresSnapshotStore(pool, retention);
  }

  async add(kind: AccountSnapshotKind, broker: string, account: SnapshotAccount, takenAt: string): Promise<AccountSnapshot> {
    const row = await inTransaction(this.pool, async (client) => {
      const { rows: ids } = await client.query<{ last_id: string }>({ name: 'next_id', text: NEXT_ID });
      const id = Number(ids[0]?.last_id);
      const values = [id, kind, takenAt, broker, account.id, account.lastTransactionId, account.asOf, JSON.stringify(account)];
      const { rows } = await client.query<SnapshotRow>({ name: 'insert', text: INSERT, values });
      if (this.retention > 0 && id > this.retention) await client.query({ name: 'prune', text: PRUNE, values: [id - this.retention] });
      return rows[0] as SnapshotRow;
    });
    return snapshotOf(row);
  }

  async recent(limit: number, kind?: AccountSnapshotKind): Promise<AccountSnapshot[]> {
    const query = kind ? { name: 'newest_of_kind', text: NEWEST_OF_KIND, values: [limit, kind] } : { name: 'newest', text: NEWEST, values: [limit] };
    const { rows } = await this.pool.query<SnapshotRow>(query);
    return rows.map(snapshotOf);
  }

  health(): Promise<{ ok: boolean; detail: string }> {
    return postgresHealth(this.pool);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }
}
