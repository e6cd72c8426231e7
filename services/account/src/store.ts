import type { Database, Schema } from '@fxdesk/core';
import type { AccountSnapshot, AccountSnapshotKind } from '@fxdesk/schemas';

/** The summary or details read a snapshot holds. */
export type SnapshotAccount = AccountSnapshot['account'];

/**
 * The snapshots' schema on either engine. Step 1 is account.db's one step of before, spelt so that
 * PostgreSQL takes it too: no AUTOINCREMENT (the counter of step 3 numbers snapshots now; a file of
 * before keeps its AUTOINCREMENT key, which changes nothing the store does), and constraints named
 * as PostgreSQL's store of before named them (SQLite ignores the names). Step 2 gives the table
 * PostgreSQL's name, so that services can share one database. Step 3 brings PostgreSQL's id
 * counter, taking up where the snapshots' ids are. A PostgreSQL database of the per-engine store
 * (`account` version 1 in fxdesk_schema) is the schema of step 3.
 */
export const SNAPSHOT_SCHEMA: Schema = {
  name: 'account',
  migrations: [
    (d) => `CREATE TABLE snapshots (
       id ${d.types.bigint} CONSTRAINT account_snapshots_pkey PRIMARY KEY,
       kind TEXT NOT NULL CONSTRAINT account_snapshots_kind_check CHECK (kind IN ('summary', 'details')),
       taken_at TEXT NOT NULL,
       broker TEXT NOT NULL,
       account_id TEXT NOT NULL,
       last_transaction_id TEXT NOT NULL,
       as_of TEXT NOT NULL,
       account TEXT NOT NULL
     );
     CREATE INDEX snapshots_by_kind ON snapshots (kind, id);`,
    `ALTER TABLE snapshots RENAME TO account_snapshots;
     DROP INDEX snapshots_by_kind;
     CREATE INDEX account_snapshots_by_kind ON account_snapshots (kind, id);`,
    (d) => `CREATE TABLE account_snapshot_ids (
       only_row BOOLEAN PRIMARY KEY DEFAULT true CHECK (only_row),
       last_id  ${d.types.bigint} NOT NULL
     );
     INSERT INTO account_snapshot_ids (last_id) SELECT COALESCE(MAX(id), 0) FROM account_snapshots;`,
  ],
  postgresBefore: { store: 'account', versions: { 1: 3 } },
};

/** The columns as a snapshot names its fields; `account` is still its JSON text. */
const COLUMNS = 'id, kind, taken_at AS "takenAt", broker, account_id AS "accountId", last_transaction_id AS "lastTransactionId", as_of AS "asOf", account';

type SnapshotRow = Omit<AccountSnapshot, 'account'> & { account: string };

// Ids come from a one-row counter rather than a sequence or SQLite's rowid: without gaps (a
// refused add takes its number back with it, which a sequence does not), so the newest N are an
// id range, and never reused. Its row lock is held until the add commits: adds on every replica
// take their turn there (a row lock measured faster under contention than an advisory lock), so
// each one's prune sees every snapshot committed before it, and none is in flight.
const NEXT_ID = 'UPDATE account_snapshot_ids SET last_id = last_id + 1 RETURNING last_id AS id';
const INSERT = `INSERT INTO account_snapshots (id, kind, taken_at, broker, account_id, last_transaction_id, as_of, account)
  VALUES (@id, @kind, @takenAt, @broker, @accountId, @lastTransactionId, @asOf, @account) RETURNING ${COLUMNS}`;
const PRUNE = 'DELETE FROM account_snapshots WHERE id <= @newestPruned';
const NEWEST = `SELECT ${COLUMNS} FROM account_snapshots ORDER BY id DESC LIMIT @limit`;
const NEWEST_OF_KIND = `SELECT ${COLUMNS} FROM account_snapshots WHERE kind = @kind ORDER BY id DESC LIMIT @limit`;

function snapshotOf(row: SnapshotRow): AccountSnapshot {
  return { ...row, account: JSON.parse(row.account) as SnapshotAccount };
}

/**
 * The snapshot repository, on the database openStoreDatabase picks: `<DATA_DIR>/account.db`
 * (SQLite, the embedded default) or PostgreSQL for several replicas on one database. It keeps
 * the newest `retention` snapshots exactly, however many replicas write at once. The contract it
 * keeps on both engines is test/snapshot-store.contract.ts.
 */
export class SnapshotStore {
  private isClosed = false;

  /** `retention`: newest snapshots kept (0 keeps all). */
  constructor(
    private readonly db: Database,
    private readonly retention = 0,
  ) {}

  /** Stores one snapshot, durably, and deletes what falls out of the retention: one transaction (number, insert, prune). */
  async add(kind: AccountSnapshotKind, broker: string, account: SnapshotAccount, takenAt: string): Promise<AccountSnapshot> {
    const row = await this.db.transaction(async (tx) => {
      const { id } = (await tx.one<{ id: number }>(NEXT_ID)) as { id: number };
      const added = (await tx.one<SnapshotRow>(INSERT, {
        id,
        kind,
        takenAt,
        broker,
        accountId: account.id,
        lastTransactionId: account.lastTransactionId,
        asOf: account.asOf,
        account: JSON.stringify(account),
      })) as SnapshotRow;
      if (this.retention > 0 && id > this.retention) await tx.run(PRUNE, { newestPruned: id - this.retention });
      return added;
    });
    return snapshotOf(row);
  }

  /** Newest first; `kind` narrows to one endpoint's snapshots. */
  async recent(limit: number, kind?: AccountSnapshotKind): Promise<AccountSnapshot[]> {
    const rows = kind ? await this.db.query<SnapshotRow>(NEWEST_OF_KIND, { kind, limit }) : await this.db.query<SnapshotRow>(NEWEST, { limit });
    return rows.map(snapshotOf);
  }

  /**
   * For readiness, detail the engine: SQLite not ok once a snapshot could not be written for want
   * of storage (see StorageHealth), PostgreSQL not ok when `SELECT 1` fails; neither once closed.
   */
  async health(): Promise<{ ok: boolean; detail: string }> {
    const engine = this.db.dialect.engine;
    if (this.isClosed) return { ok: false, detail: `${engine} does not answer: the store is closed` };
    const database = await this.db.health();
    return database.ok ? { ok: true, detail: engine } : database;
  }

  async close(): Promise<void> {
    this.isClosed = true;
    await this.db.close();
  }
}
