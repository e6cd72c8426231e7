import { SqliteStoreDatabase, type Schema, type SqliteDatabaseOptions } from '@fxdesk/core';

/**
 * The execution service's tables, in the order they grew, for either engine. On SQLite
 * (`execution.db`, counted by `user_version`) the list is the file's history step for step; on
 * PostgreSQL it is counted as store `execution` in `fxdesk_migrations`. Keys and timestamps
 * compared as text use the dialect's key type ("C" collation on PostgreSQL, the byte order SQLite
 * compares in), so the list's order does not depend on the database's locale.
 */
export const EXECUTION_SCHEMA: Schema = {
  name: 'execution',
  migrations: [
    ({ types: t }) => `CREATE TABLE signals (
       signal_id       ${t.key} PRIMARY KEY,
       payload_hash    ${t.text} NOT NULL,
       state           ${t.text} NOT NULL CHECK (state IN ('processing','filled','partially_filled','placed','rejected','unknown')),
       request_json    ${t.text} NOT NULL,
       request_id      ${t.text} NOT NULL,
       order_comment   ${t.text} NOT NULL,
       http_status     ${t.integer},
       response_body   ${t.text},
       order_ticket    ${t.text},
       deal_ticket     ${t.text},
       position_ticket ${t.text},
       result_json     ${t.text},
       error_json      ${t.text},
       reconciliation_json ${t.text},
       received_at     ${t.key} NOT NULL,
       completed_at    ${t.text},
       updated_at      ${t.text} NOT NULL
     );
     CREATE INDEX signals_processing ON signals (state) WHERE state = 'processing';`,
    // The simulated terminal's account (terminal-store.ts); an order resting keeps its order
    // record. Read and written only in the SQLite file: on PostgreSQL these tables stay empty.
    ({ types: t }) => `CREATE TABLE sim_account (
       id              ${t.integer} PRIMARY KEY CHECK (id = 1),
       balance         ${t.real} NOT NULL,
       processed_up_to ${t.bigint} NOT NULL,
       next_ticket     ${t.bigint} NOT NULL,
       next_seq        ${t.bigint} NOT NULL
     );
     CREATE TABLE sim_records (
       ticket   ${t.bigint} PRIMARY KEY,
       kind     ${t.text} NOT NULL CHECK (kind IN ('order','deal')),
       symbol   ${t.text} NOT NULL,
       type     ${t.text} NOT NULL,
       volume   ${t.text} NOT NULL,
       price    ${t.text} NOT NULL,
       magic    ${t.bigint} NOT NULL,
       comment  ${t.text} NOT NULL,
       time     ${t.bigint} NOT NULL,
       position ${t.bigint},
       state    ${t.text} NOT NULL
     );
     CREATE TABLE sim_positions (
       ticket      ${t.bigint} PRIMARY KEY,
       seq         ${t.bigint} NOT NULL,
       symbol      ${t.text} NOT NULL,
       side        ${t.text} NOT NULL CHECK (side IN ('buy','sell')),
       volume      ${t.text} NOT NULL,
       open_points ${t.bigint} NOT NULL,
       sl_points   ${t.bigint},
       tp_points   ${t.bigint},
       magic       ${t.bigint} NOT NULL,
       comment     ${t.text} NOT NULL,
       time        ${t.bigint} NOT NULL
     );
     CREATE TABLE sim_resting_orders (
       ticket       ${t.bigint} PRIMARY KEY,
       record_json  ${t.text} NOT NULL,
       seq          ${t.bigint} NOT NULL,
       price_points ${t.bigint} NOT NULL,
       sl_points    ${t.bigint},
       tp_points    ${t.bigint},
       expires_at   ${t.bigint}
     );`,
    // GET /v1/signals: the symbol and source as columns, and one index per filter that also
    // serves the order (received_at, signal_id), so a page is a range read at any depth. The state
    // index takes over the start-up search for `processing` rows.
    (d) => `ALTER TABLE signals ADD COLUMN symbol ${d.types.text};
     ALTER TABLE signals ADD COLUMN source ${d.types.text};
     UPDATE signals SET symbol = ${d.jsonText('request_json', 'symbol')}, source = ${d.jsonText('request_json', 'source')};
     DROP INDEX signals_processing;
     CREATE INDEX signals_received ON signals (received_at, signal_id);
     CREATE INDEX signals_state ON signals (state, received_at, signal_id);
     CREATE INDEX signals_symbol ON signals (symbol, received_at, signal_id);
     CREATE INDEX signals_source ON signals (source, received_at, signal_id);`,
    // Claims of several replicas (issue 15): the replica that made each claim and until when it
    // answers for it. Rows of before are nobody's and long expired, so a start takes them over.
    ({ types: t }) => `ALTER TABLE signals ADD COLUMN owner ${t.text} NOT NULL DEFAULT '';
     ALTER TABLE signals ADD COLUMN lease_expires_at ${t.key} NOT NULL DEFAULT '';`,
    // Actions on positions and orders (issue 23), idempotent by Idempotency-Key as signals are by
    // signal_id: a close, a modification or a cancel is one row keyed by the key; a flatten is its
    // plan (kind close_all, keyed by the key, the tickets it covers in its request) and one row
    // per position, keyed by the key and the position's ticket.
    ({ types: t }) => `CREATE TABLE actions (
       action_id        ${t.key} PRIMARY KEY,
       idempotency_key  ${t.key} NOT NULL,
       kind             ${t.text} NOT NULL CHECK (kind IN ('close','modify','cancel','close_all')),
       ticket           ${t.text} NOT NULL,
       payload_hash     ${t.text} NOT NULL,
       state            ${t.text} NOT NULL CHECK (state IN ('processing','done','rejected','unknown')),
       request_json     ${t.text} NOT NULL,
       request_id       ${t.text} NOT NULL,
       order_comment    ${t.text} NOT NULL,
       http_status      ${t.integer},
       response_body    ${t.text},
       result_json      ${t.text},
       error_json       ${t.text},
       received_at      ${t.key} NOT NULL,
       completed_at     ${t.text},
       updated_at       ${t.text} NOT NULL,
       owner            ${t.text} NOT NULL,
       lease_expires_at ${t.key} NOT NULL
     );
     CREATE INDEX actions_received ON actions (received_at, action_id);
     CREATE INDEX actions_processing ON actions (state) WHERE state = 'processing';`,
    // A flatten reads back every record under its Idempotency-Key (one per position).
    'CREATE INDEX actions_key ON actions (idempotency_key, received_at, action_id);',
    // GET /v1/deals: a simulated deal keeps the order that made it, its entry (in/out), its reason
    // (expert/sl/tp) and its realized profit, and deals are found by time. Deals saved before keep
    // these null and are read as terminalDealOf reads them (an SL/TP exit by its comment, else an
    // entry; profit unknown, 0). SQLite only: the simulated terminal's tables are the SQLite file's
    // (a PostgreSQL database of the store of before has none).
    ({ engine, types: t }) =>
      engine === 'PostgreSQL'
        ? 'SELECT 1;'
        : `ALTER TABLE sim_records ADD COLUMN deal_order ${t.bigint};
     ALTER TABLE sim_records ADD COLUMN entry ${t.text};
     ALTER TABLE sim_records ADD COLUMN reason ${t.text};
     ALTER TABLE sim_records ADD COLUMN profit ${t.real} NOT NULL DEFAULT 0;
     CREATE INDEX sim_records_deal_time ON sim_records (time) WHERE kind = 'deal';`,
    // What the terminal showed of an action left `unknown` (recovery.ts), as signals keep theirs.
    ({ types: t }) => `ALTER TABLE actions ADD COLUMN reconciliation_json ${t.text};`,
    // GET /v1/actions?ticket=: one position's or order's actions, newest first, as a range read.
    'CREATE INDEX actions_ticket ON actions (ticket, received_at, action_id);',
  ],
  // The PostgreSQL store of before made, in its one step, the signals table as it stands after
  // all four: the same columns, types, collations and list indexes (only stricter: symbol, source
  // and owner NOT NULL without a default, which every claim fills in).
  postgresBefore: { store: 'execution', versions: { 1: 4 } },
};

/**
 * execution.db: commits durable before they return (synchronous=FULL), and SQLite's own default
 * cache (2 MiB) rather than better-sqlite3's 16 MB: rows are written once and read back by id or a
 * recent page, and the larger cache filled at a megabyte a minute under the soak's load with pages
 * the kernel caches anyway (claims and outcomes ran no slower).
 */
export const EXECUTION_SQLITE: SqliteDatabaseOptions = { synchronous: 'FULL', pageCacheKiB: 2048 };

/** Opens (and migrates) `DATA_DIR/execution.db`, or `:memory:`: the signals' file by default, and the simulated terminal's account always. */
export function openExecutionFile(file: string): SqliteStoreDatabase {
  return SqliteStoreDatabase.open(file, EXECUTION_SCHEMA, EXECUTION_SQLITE);
}
