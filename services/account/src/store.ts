import { openDatabase, type SqliteDatabase } from '@fxdesk/core';
import type { AccountSnapshot, AccountSnapshotKind } from '@fxdesk/schemas';

/** The summary or details read a snapshot holds. */
type SnapshotAccount = AccountSnapshot['account'];

/** The snapshot repository; SQLite here, another database behind the same methods later. */
export interface SnapshotStore {
  add(kind: AccountSnapshotKind, broker: string, account: SnapshotAccount, takenAt: string): AccountSnapshot;
  /** Newest first; `kind` narrows to one endpoint's snapshots. */
  recent(limit: number, kind?: AccountSnapshotKind): AccountSnapshot[];
  /** Whether the database answers (readiness). */
  ping(): boolean;
  close(): void;
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

/** The columns as a snapshot names its fields; `account` is still its JSON text. */
const SNAPSHOT_COLUMNS = 'id, kind, taken_at AS takenAt, broker, account_id AS accountId, last_transaction_id AS lastTransactionId, as_of AS asOf, account';
type SnapshotRow = Omit<AccountSnapshot, 'account'> & { account: string };

function fromRow(row: SnapshotRow): AccountSnapshot {
  return { ...row, account: JSON.parse(row.account) as SnapshotAccount };
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

export class SqliteSnapshotStore implements SnapshotStore {
  private readonly db: SqliteDatabase;
  private readonly sql: ReturnType<typeof prepareStatements>;
  private readonly addAndPrune: (kind: AccountSnapshotKind, broker: string, account: SnapshotAccount, takenAt: string) => SnapshotRow;

  /** `retention`: newest snapshots kept (0 keeps all). `:memory:` for a private test database. */
  constructor(file: string, retention = 0) {
    // synchronous=FULL (the default): a snapshot the endpoint reported stored is on disk.
    this.db = openDatabase(file, { migrations: MIGRATIONS });
    this.sql = prepareStatements(this.db);
    this.addAndPrune = this.db.transaction((kind: AccountSnapshotKind, broker: string, account: SnapshotAccount, takenAt: string) => {
      const row = this.sql.insert.get(kind, takenAt, broker, account.id, account.lastTransactionId, account.asOf, JSON.stringify(account)) as SnapshotRow;
      if (retention > 0) this.sql.prune.run(retention);
      return row;
    });
  }

  add(kind: AccountSnapshotKind, broker: string, account: SnapshotAccount, takenAt: string): AccountSnapshot {
    return fromRow(this.addAndPrune(kind, broker, account, takenAt));
  }

  recent(limit: number, kind?: AccountSnapshotKind): AccountSnapshot[] {
    const rows = kind ? this.sql.newestOfKind.all(kind, limit) : this.sql.newest.all(limit);
    return rows.map(fromRow);
  }

  ping(): boolean {
    return this.sql.ping.get() !== undefined;
  }

  close(): void {
    this.db.close();
  }
}
