import type { Dialect, Schema } from '@fxdesk/core';

/**
 * strategy.db's tables until migration 6, and the names they have had in PostgreSQL from the
 * start, where the services may share one database (the execution service has a `signals`
 * table of its own). Migration 6 gives strategy.db these names too, so every query is one text.
 */
const RENAMED = {
  signals: 'strategy_signals',
  paper_trades: 'strategy_paper_trades',
  run_state: 'strategy_run_state',
  console_sessions: 'strategy_console_sessions',
  console_secret: 'strategy_console_secret',
  desk_events: 'strategy_events',
  desk_event_seq: 'strategy_event_seq',
  downstream_states: 'strategy_downstream_states',
} as const;

/**
 * How migrations 1 to 6, written before the stores were one, name a table (strategy.db's own, or
 * PostgreSQL's `strategy_…`; an index the same), which the port's Dialect has no word for: the
 * one place the schema asks which engine it is rendered for.
 */
function before(d: Dialect) {
  const isFile = d.engine === 'SQLite';
  const table = (name: keyof typeof RENAMED) => (isFile ? name : RENAMED[name]);
  return {
    table,
    index: (name: string) => (isFile ? name : `strategy_${name}`),
    /** Migration 6: strategy.db's tables take the PostgreSQL names (nothing to do in PostgreSQL). */
    renames: Object.entries(RENAMED)
      .filter(([name, to]) => table(name as keyof typeof RENAMED) !== to)
      .map(([name, to]) => `ALTER TABLE ${name} RENAME TO ${to};`)
      .join('\n'),
  };
}

/**
 * A live signal's order filled, the signal announced (or done trying) and its fill not announced
 * yet: the predicate of strategy_signals_fills_unannounced, word for word.
 */
export function unannouncedLiveFill(d: Pick<Dialect, 'jsonText'>): string {
  return `fill_announced IS NULL AND ${d.jsonText('execution', 'status')} IN ('filled', 'partially_filled') AND ${d.jsonText('notification', 'status')} <> 'pending'`;
}

/** A paper trade entered and its fill not announced yet: the predicate of strategy_paper_trades_fills_unannounced. */
export const UNANNOUNCED_PAPER_FILL = 'fill_announced IS NULL AND entry_time IS NOT NULL';

/**
 * The strategy's records, in strategy.db (`user_version` counts the migrations applied) or in
 * PostgreSQL (DATABASE_URL; counted in fxdesk_migrations as `strategy`). Migrations 1 to 5 are
 * strategy.db's history, step for step; a PostgreSQL database made by the store of before (store
 * `strategy` in fxdesk_schema, at its version 1, 2 or 3) holds what steps 3, 4 and 5 make, its
 * run flags BOOLEAN where these make INTEGER (bound as 1 and 0, read as truthy, both work).
 */
export const STRATEGY_SCHEMA: Schema = {
  name: 'strategy',
  postgresBefore: { store: 'strategy', versions: { 1: 3, 2: 4, 3: 5 } },
  migrations: [
    (d) => {
      const { table, index } = before(d);
      return `CREATE TABLE ${table('signals')} (
         seq ${d.types.increasingKey},
         signal_id ${d.types.key} NOT NULL UNIQUE,
         instrument ${d.types.key} NOT NULL,
         generated_at ${d.types.key} NOT NULL,
         generated_day ${d.types.key} NOT NULL,
         body ${d.types.text} NOT NULL,
         execution ${d.types.text} NOT NULL,
         notification ${d.types.text} NOT NULL
       );
       CREATE INDEX ${index('signals_by_instrument')} ON ${table('signals')} (instrument, seq);
       CREATE INDEX ${index('signals_by_day')} ON ${table('signals')} (generated_day);
       CREATE TABLE ${table('paper_trades')} (
         signal_id ${d.types.key} PRIMARY KEY,
         instrument ${d.types.key} NOT NULL,
         side ${d.types.integer} NOT NULL,
         units ${d.types.real} NOT NULL,
         entry ${d.types.real} NOT NULL,
         stop_loss ${d.types.real} NOT NULL,
         take_profit ${d.types.real} NOT NULL,
         candle_time ${d.types.bigint} NOT NULL,
         opened_at ${d.types.key} NOT NULL,
         closed_at ${d.types.text},
         exit_price ${d.types.real},
         pnl ${d.types.real}
       );
       CREATE INDEX ${index('paper_trades_open')} ON ${table('paper_trades')} (closed_at);`;
    },
    // The last start and whether the strategy was running, so a restarted process can resume it.
    (d) => `CREATE TABLE ${before(d).table('run_state')} (
       id ${d.types.integer} PRIMARY KEY CHECK (id = 1),
       running ${d.types.integer} NOT NULL,
       instruments ${d.types.text} NOT NULL,
       dry_run ${d.types.integer} NOT NULL,
       updated_at ${d.types.text} NOT NULL
     );`,
    // The run's start time and a count of its changes (issue 15); a row from before has neither:
    // its start time reads as its last update.
    (d) => {
      const { table, index } = before(d);
      return `ALTER TABLE ${table('run_state')} ADD COLUMN started_at ${d.types.text};
       ALTER TABLE ${table('run_state')} ADD COLUMN generation ${d.types.integer} NOT NULL DEFAULT 0;
       CREATE INDEX ${index('signals_by_time')} ON ${table('signals')} (generated_at);`;
    },
    // The console's logins and the secret that signs their cookie, shared by every replica.
    (d) => {
      const { table, index } = before(d);
      return `CREATE TABLE ${table('console_sessions')} (
         seq ${d.types.increasingKey},
         id_hash ${d.types.key} NOT NULL UNIQUE,
         csrf_token ${d.types.text} NOT NULL,
         expires_at ${d.types.key} NOT NULL
       );
       CREATE INDEX ${index('console_sessions_by_expiry')} ON ${table('console_sessions')} (expires_at);
       CREATE TABLE ${table('console_secret')} (
         id ${d.types.integer} PRIMARY KEY CHECK (id = 1),
         secret ${d.types.text} NOT NULL
       );`;
    },
    // The desk's event log (the same ids on every replica's /events), numbered by a counter that
    // gives 1, 2, 3… with no gap; and the leader's view of the services it calls.
    (d) => {
      const { table } = before(d);
      return `CREATE TABLE ${table('desk_events')} (
         seq ${d.types.bigint} PRIMARY KEY,
         name ${d.types.text} NOT NULL,
         event_key ${d.types.key} UNIQUE,
         data ${d.types.text} NOT NULL
       );
       CREATE TABLE ${table('desk_event_seq')} (
         id ${d.types.integer} PRIMARY KEY CHECK (id = 1),
         last ${d.types.bigint} NOT NULL
       );
       INSERT INTO ${table('desk_event_seq')} (id, last) VALUES (1, 0);
       CREATE TABLE ${table('downstream_states')} (
         service ${d.types.text} PRIMARY KEY,
         state ${d.types.text} NOT NULL
       );`;
    },
    // One store for both engines (issue 22): strategy.db's tables take the names PostgreSQL's have.
    (d) => before(d).renames,
    // The indexes PostgreSQL's store had, now on both: the open paper trades in the order they are
    // read, and the signals whose order or announcement is still pending (read when a leader starts).
    (d) => `DROP INDEX IF EXISTS paper_trades_open;
     DROP INDEX IF EXISTS strategy_paper_trades_open;
     CREATE INDEX strategy_paper_trades_open ON strategy_paper_trades (opened_at, signal_id) WHERE closed_at IS NULL;
     CREATE INDEX IF NOT EXISTS strategy_signals_unfinished ON strategy_signals (seq)
       WHERE ${d.jsonText('execution', 'status')} = 'pending' OR ${d.jsonText('notification', 'status')} = 'pending';`,
    // The paper account trades as the lab does (issue 23): a signal's trade waits for the next
    // candle's open (entry_time NULL until then), its stop moves with the exit rules (stop and the
    // rule that set it), the candles applied and held, an exit decided at a close to fill at the
    // next open (closing), and how it closed. A trade of before entered at its signal's candle.
    (d) => `ALTER TABLE strategy_paper_trades ADD COLUMN entry_time ${d.types.bigint};
     ALTER TABLE strategy_paper_trades ADD COLUMN stop ${d.types.real};
     ALTER TABLE strategy_paper_trades ADD COLUMN stop_reason ${d.types.text} NOT NULL DEFAULT 'stop';
     ALTER TABLE strategy_paper_trades ADD COLUMN candles_held ${d.types.integer} NOT NULL DEFAULT 0;
     ALTER TABLE strategy_paper_trades ADD COLUMN last_candle_time ${d.types.bigint};
     ALTER TABLE strategy_paper_trades ADD COLUMN closing ${d.types.text};
     ALTER TABLE strategy_paper_trades ADD COLUMN volume_lots ${d.types.real};
     ALTER TABLE strategy_paper_trades ADD COLUMN exit_reason ${d.types.text};
     ALTER TABLE strategy_paper_trades ADD COLUMN exit_time ${d.types.bigint};
     ALTER TABLE strategy_paper_trades ADD COLUMN commission ${d.types.real};
     ALTER TABLE strategy_paper_trades ADD COLUMN r_multiple ${d.types.real};
     UPDATE strategy_paper_trades SET entry_time = candle_time, stop = stop_loss, last_candle_time = candle_time;`,
    // The trade journal (issue 23): every closed trade of the live and the paper account, once
    // under its id; read newest exit first, by account or not.
    (d) => `CREATE TABLE strategy_journal (
       seq ${d.types.serialKey},
       id ${d.types.key} NOT NULL UNIQUE,
       account ${d.types.key} NOT NULL,
       signal_id ${d.types.key},
       position ${d.types.key},
       instrument ${d.types.key} NOT NULL,
       side ${d.types.key} NOT NULL,
       volume_lots ${d.types.real} NOT NULL,
       entry_ms ${d.types.bigint} NOT NULL,
       entry_price ${d.types.real} NOT NULL,
       exit_ms ${d.types.bigint} NOT NULL,
       exit_price ${d.types.real} NOT NULL,
       exit_reason ${d.types.key} NOT NULL,
       pnl ${d.types.real} NOT NULL,
       commission ${d.types.real} NOT NULL,
       swap ${d.types.real} NOT NULL,
       r_multiple ${d.types.real}
     );
     CREATE INDEX strategy_journal_by_exit ON strategy_journal (exit_ms, seq);
     CREATE INDEX strategy_journal_by_account ON strategy_journal (account, exit_ms, seq);`,
    // The announcements of fills, exits and each day's summary (issue 23): what each fill and exit
    // came to (NULL until the leader announced it, or found its kind switched off), each day
    // summarized; the fills and exits of before are taken as announced, so an upgrade sends no backlog.
    (d) => `ALTER TABLE strategy_signals ADD COLUMN fill_announced ${d.types.key};
     ALTER TABLE strategy_paper_trades ADD COLUMN fill_announced ${d.types.key};
     ALTER TABLE strategy_journal ADD COLUMN announced ${d.types.key};
     UPDATE strategy_signals SET fill_announced = 'before' WHERE ${d.jsonText('execution', 'status')} IN ('filled', 'partially_filled');
     UPDATE strategy_paper_trades SET fill_announced = 'before' WHERE entry_time IS NOT NULL;
     UPDATE strategy_journal SET announced = 'before';
     CREATE INDEX strategy_signals_fills_unannounced ON strategy_signals (seq) WHERE ${unannouncedLiveFill(d)};
     CREATE INDEX strategy_paper_trades_fills_unannounced ON strategy_paper_trades (entry_time, signal_id) WHERE ${UNANNOUNCED_PAPER_FILL};
     CREATE INDEX strategy_journal_unannounced ON strategy_journal (seq) WHERE announced IS NULL;
     CREATE TABLE strategy_daily_summaries (
       day ${d.types.key} PRIMARY KEY,
       outcome ${d.types.key} NOT NULL,
       decided_at ${d.types.text} NOT NULL
     );`,
    // The desk's risk state per account (issue 24): the RiskBook's state (the halt, the peak, the
    // day and its start, the losses in a row, the cooldown) and the open positions it counts, the
    // last equity marked, and a count of resumes that a leader's write must match (a resume on
    // another replica is never overwritten); and the halts and resumes to announce.
    (d) => `CREATE TABLE strategy_risk_states (
       account ${d.types.key} PRIMARY KEY,
       state ${d.types.text} NOT NULL,
       open_positions ${d.types.text} NOT NULL,
       equity ${d.types.real},
       equity_ms ${d.types.bigint},
       resumes ${d.types.integer} NOT NULL,
       updated_at ${d.types.text} NOT NULL
     );
     CREATE TABLE strategy_risk_announcements (
       seq ${d.types.serialKey},
       announcement_key ${d.types.key} NOT NULL UNIQUE,
       account ${d.types.key} NOT NULL,
       subject ${d.types.text} NOT NULL,
       message ${d.types.text} NOT NULL,
       announced ${d.types.key}
     );
     CREATE INDEX strategy_risk_announcements_unannounced ON strategy_risk_announcements (seq) WHERE announced IS NULL;`,
    // The halt whose HALT_FLATTEN the execution service answered (its `at`): a leader taking over a
    // halt not yet flattened sends the flatten again, under the same key (it replays, never closes twice).
    (d) => `ALTER TABLE strategy_risk_states ADD COLUMN halt_flattened_at ${d.types.bigint};`,
    // The position a signal's order opened, as a column with its index: the live journal, exits and
    // risk book find a position's signal at once, however old, instead of paging back 31 days of signals.
    (d) => `ALTER TABLE strategy_signals ADD COLUMN position_ticket ${d.types.key};
     UPDATE strategy_signals SET position_ticket = ${d.jsonText('execution', 'tickets.position')};
     CREATE INDEX strategy_signals_position ON strategy_signals (position_ticket) WHERE position_ticket IS NOT NULL;`,
  ],
};
