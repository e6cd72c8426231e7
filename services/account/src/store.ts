import { openDatabase, StorageHealth, type SqliteDatabase, type StorageHealthOptions } from '@fxdesk/core';
import type { AccountSnapshot, AccountSnapshotKind } from '@fxdesk/schemas';

/** The summary or details read a snapshot holds. */
export type SnapshotAccount = AccountSnapshot['account'];

/**
 * The snapshot repository. Two implementations pass one contract (test/snapshot-store.contract.ts):
 * SQLite, the embedded default (this file), and PostgreSQL for several replicas on one database
 * (postgres-store.ts). Either keeps the newest `retention` snapshots exactly, whoever writes them.
 */
export interface SnapshotStore {
  /** Stores one snapshot, durably, and deletes what falls out of the retention. */
  add(kind: AccountSnapshotKind, broker: string, account: SnapshotAccount, takenAt: string): Promise<AccountSnapshot>;
  /** Newest first; `kind` narrows to one endpoint's snapshots. */
  recent(limit: number, kind?: AccountSnapshotKind): Promise<AccountSnapshot[]>;
  /** Whether the database answers now (readiness), and which one it is. */
  health(): Promise<{ ok: boolean; detail: string }>;
  close(): Promise<void>;
}

const MIGRATIONS = [
  `CREATE TABLE snapshots (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     kind TEXT NOT NULL CHECK (kind IN ('summary', 'details')),
     taken_at TEXT NOT NULL,
     broker TEXT NOT NULL,
     account_id TEXT NOT NULL,
     last_transaction_id TEXT NOT NULL,
     as_of TEXT NOT NULL,
     account TEXT NOT NULL
   );
   CREATE INDEX snapshots_by_kind ON snapshots (kind, id);`,
];

/** The columns as a snapshot names its fields, in both databases; `account` is still its JSON text. */
export const SNAPSHOT_COLUMNS =
  'id, kind, taken_at AS "takenAt", broker, account_id AS "accountId", last_transaction_id AS "lastTransactionId", as_of AS "asOf", account';

/** A row as read; PostgreSQL's BIGINT id comes as a string. */
export type SnapshotRow = Omit<AccountSnapshot, 'account' | 'id'> & { id: number | string; account: string };

export function snapshotOf(row: SnapshotRow): AccountSnapshot {
  return { ...row, id: Number(row.id), account: JSON.parse(row.account) as SnapshotAccount };
}

/** The service's statements, prepared once per database. */
function prepareStatements(db: SqliteDatabase) {
  return {
    insert: db.prepare<[string, string, string, string, string, string, string], SnapshotRow>(
      `INSERT INTO snapshots (kind, taken_at, broker, account_id, last_transaction_id, as_of, account)
       VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING ${SNAPSHOT_COLUMNS}`,
    ),
    // AUTOINCREMENT ids only grow, so "all but the newest N" is an id range.
    prune: db.prepare<[number]>('DELETE FROM snapshots WHERE id <= (SELECT MAX(id) FROM snapshots) - ?'),
    newest: db.prepare<[number], SnapshotRow>(`SELECT ${SNAPSHOT_COLUMNS} FROM snapshots ORDER BY id DESC LIMIT ?`),
    newestOfKind: db.prepare<[string, number], SnapshotRow>(`SELECT ${SNAPSHOT_COLUMNS} FROM snapshots WHERE kind = ? ORDER BY id DESC LIMIT ?`),
    ping: db.prepare('SELECT 1 AS ok'),
  };
}

/**
 * The snapshots in `<DATA_DIR>/account.db`. Its calls are synchronous underneath (one process
 * writes the file, one statement at a time), so they settle at once.
 */
export class SqliteSnapshotStore implements SnapshotStore {
  /** The connection, for tests that set its limits. */
  readonly db: SqliteDatabase;
  private readonly sql: ReturnType<typeof prepareStatements>;
  private readonly addAndPrune: (kind: AccountSnapshotKind, broker: string, account: SnapshotAccount, takenAt: string) => SnapshotRow;
  private readonly storage: StorageHealth;

  /** `retention`: newest snapshots kept (0 keeps all). `:memory:` for a private test database. `health`: its clock, in tests. */
  constructor(file: string, retention = 0, health: StorageHealthOptions = {}) {
    // synchronous=FULL (the default): a snapshot the endpoint reported stored is on disk.
    this.db = openDatabase(file, { migrations: MIGRATIONS });
    this.storage = new StorageHealth(this.db, health);
    this.sql = prepareStatements(this.db);
    this.addAndPrune = this.db.transaction((kind: AccountSnapshotKind, broker: string, account: SnapshotAccount, takenAt: string) => {
      const row = this.sql.insert.get(kind, takenAt, broker, account.id, account.lastTransactionId, account.asOf, JSON.stringify(account)) as SnapshotRow;
      if (retention > 0) this.sql.prune.run(retention);
      return row;
    });
  }

  async add(kind: AccountSnapshotKind, broker: string, account: SnapshotAccount, takenAt: string): Promise<AccountSnapshot> {
    return snapshotOf(this.storage.guard(() => this.addAndPrune(kind, broker, account, takenAt)));
  }

  async recent(limit: number, kind?: AccountSnapshotKind): Promise<AccountSnapshot[]> {
    const rows = kind ? this.sql.newestOfKind.all(kind, limit) : this.sql.newest.all(limit);
    return rows.map(snapshotOf);
  }

  /** Not ok when the file does not answer, or once a snapshot could not be written for want of storage (see StorageHealth). */
  async health(): Promise<{ ok: boolean; detail: string }> {
    try {
      if (this.sql.ping.get() === undefined) return { ok: false, detail: 'SQLite does not answer' };
      const writable = this.storage.check();
      return writable.ok ? { ok: true, detail: 'SQLite' } : writable;
    } catch (err) {
      return { ok: false, detail: `SQLite does not answer: ${err instanceof Error ? err.message : String(err)}` };
    }
  }

  async close(): Promise<void> {
    this.db.close();
  }
}
