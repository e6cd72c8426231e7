import { inTransaction, openPostgres, type PostgresClient, type PostgresPool } from '@fxdesk/core';
import type { DownstreamService, DownstreamState, SignalExecution, SignalNotification, StrategySignal } from '@fxdesk/schemas';
import {
  deliveryEvent,
  downstreamStatesOf,
  EVENT_LOG_KEEP,
  eventsOf,
  orderEvent,
  pageOf,
  paperTradeColumns,
  paperTradeOf,
  runStateOf,
  signalColumns,
  signalOf,
  storedSessionOf,
  type DeskEvent,
  type DeskEventRow,
  type NewDeskEvent,
  type PageOptions,
  type PaperTrade,
  type PaperTradeRow,
  type RunChange,
  type RunRow,
  type RunState,
  type SignalPage,
  type SessionRow,
  type SignalRef,
  type SignalRow,
  type StoredSession,
  type StrategyStore,
  type StrategyStoreOptions,
} from './store.js';

/**
 * The strategy's schema in PostgreSQL (counted as store `strategy` in fxdesk_schema). The tables
 * mirror strategy.db's under a `strategy_` prefix, so the services may share one database (the
 * execution service has a `signals` table of its own); text compared or sorted uses the "C"
 * collation, SQLite's byte order.
 */
export const POSTGRES_MIGRATIONS = [
  `CREATE TABLE strategy_signals (
     seq           BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
     signal_id     TEXT COLLATE "C" NOT NULL UNIQUE,
     instrument    TEXT COLLATE "C" NOT NULL,
     generated_at  TEXT COLLATE "C" NOT NULL,
     generated_day TEXT COLLATE "C" NOT NULL,
     body          TEXT NOT NULL,
     execution     TEXT NOT NULL,
     notification  TEXT NOT NULL
   );
   CREATE INDEX strategy_signals_by_instrument ON strategy_signals (instrument, seq);
   CREATE INDEX strategy_signals_by_day ON strategy_signals (generated_day);
   CREATE INDEX strategy_signals_by_time ON strategy_signals (generated_at);
   CREATE INDEX strategy_signals_unfinished ON strategy_signals (seq)
     WHERE (execution::jsonb ->> 'status') = 'pending' OR (notification::jsonb ->> 'status') = 'pending';
   CREATE TABLE strategy_paper_trades (
     signal_id   TEXT COLLATE "C" PRIMARY KEY,
     instrument  TEXT COLLATE "C" NOT NULL,
     side        INTEGER NOT NULL,
     units       DOUBLE PRECISION NOT NULL,
     entry       DOUBLE PRECISION NOT NULL,
     stop_loss   DOUBLE PRECISION NOT NULL,
     take_profit DOUBLE PRECISION NOT NULL,
     candle_time BIGINT NOT NULL,
     opened_at   TEXT COLLATE "C" NOT NULL,
     closed_at   TEXT,
     exit_price  DOUBLE PRECISION,
     pnl         DOUBLE PRECISION
   );
   CREATE INDEX strategy_paper_trades_open ON strategy_paper_trades (opened_at, signal_id) WHERE closed_at IS NULL;
   CREATE TABLE strategy_run_state (
     id          INTEGER PRIMARY KEY CHECK (id = 1),
     running     BOOLEAN NOT NULL,
     instruments TEXT NOT NULL,
     dry_run     BOOLEAN NOT NULL,
     started_at  TEXT NOT NULL,
     updated_at  TEXT NOT NULL,
     generation  INTEGER NOT NULL
   );`,
  // The console's logins and the secret that signs their cookie, so a login holds on every replica.
  `CREATE TABLE strategy_console_sessions (
     seq        BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
     id_hash    TEXT COLLATE "C" NOT NULL UNIQUE,
     csrf_token TEXT NOT NULL,
     expires_at TEXT COLLATE "C" NOT NULL
   );
   CREATE INDEX strategy_console_sessions_by_expiry ON strategy_console_sessions (expires_at);
   CREATE TABLE strategy_console_secret (
     id     INTEGER PRIMARY KEY CHECK (id = 1),
     secret TEXT NOT NULL
   );`,
  // The desk's event log, one for every replica's /events, numbered by a counter row whose lock
  // makes appends take turns: 1, 2, 3… with no gap, each readable only after those before it.
  // And the leader's view of the services it calls, for the followers' status.
  `CREATE TABLE strategy_events (
     seq       BIGINT PRIMARY KEY,
     name      TEXT NOT NULL,
     event_key TEXT COLLATE "C" UNIQUE,
     data      TEXT NOT NULL
   );
   CREATE TABLE strategy_event_seq (
     id   INTEGER PRIMARY KEY CHECK (id = 1),
     last BIGINT NOT NULL
   );
   INSERT INTO strategy_event_seq (id, last) VALUES (1, 0);
   CREATE TABLE strategy_downstream_states (
     service TEXT PRIMARY KEY,
     state   TEXT NOT NULL
   );`,
];

/** The channel a recorded change of the run is announced on (NOTIFY), so every replica runs it at once. */
export const RUN_CHANNEL = 'fxdesk_strategy_run';

const SIGNAL = 'SELECT seq, body, execution, notification FROM strategy_signals';
const PAPER_TRADE = 'signal_id, instrument, side, units, entry, stop_loss, take_profit, candle_time, opened_at';

// One statement, so atomic: the paper trade ($9…$16) is written only with the signal it belongs to, when there is one ($8).
const INSERT = `WITH signal AS (
    INSERT INTO strategy_signals (signal_id, instrument, generated_at, generated_day, body, execution, notification)
    VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (signal_id) DO NOTHING RETURNING signal_id
  ), trade AS (
    INSERT INTO strategy_paper_trades (${PAPER_TRADE})
    SELECT signal_id, $9::text, $10::integer, $11::double precision, $12::double precision, $13::double precision, $14::double precision, $15::bigint, $16::text
    FROM signal WHERE $8::boolean ON CONFLICT (signal_id) DO NOTHING
  )
  SELECT count(*)::integer AS inserted FROM signal`;
// Run by the transaction that holds the counter's row (EVENT_TURN), so it sees every event logged
// before: an event whose key is already logged is not logged again, and takes no number.
const LOG_EVENT = `WITH fresh AS (
    SELECT 1 WHERE $2::text IS NULL OR NOT EXISTS (SELECT 1 FROM strategy_events WHERE event_key = $2)
  ), counted AS (
    UPDATE strategy_event_seq SET last = last + 1 WHERE id = 1 AND EXISTS (SELECT 1 FROM fresh) RETURNING last
  ), logged AS (
    INSERT INTO strategy_events (seq, name, event_key, data) SELECT last, $1, $2, $3 FROM counted RETURNING seq
  )
  DELETE FROM strategy_events WHERE seq <= (SELECT seq FROM logged) - $4`;
const EVENT_TURN = 'SELECT last FROM strategy_event_seq WHERE id = 1 FOR UPDATE';
const UNFINISHED = `${SIGNAL} WHERE (execution::jsonb ->> 'status') = 'pending' OR (notification::jsonb ->> 'status') = 'pending' ORDER BY seq`;
const RUN = 'SELECT running, instruments, dry_run, started_at, updated_at, generation FROM strategy_run_state WHERE id = 1';
// The upsert re-checks the generation on the row as the last writer left it, so of any number of
// changes made over one generation, on any replica, exactly one is recorded; the NOTIFY goes out
// at its commit.
const RECORD_RUN = `WITH run AS (
    INSERT INTO strategy_run_state (id, running, instruments, dry_run, started_at, updated_at, generation) VALUES (1, $1, $2, $3, $4, $5, 1)
    ON CONFLICT (id) DO UPDATE SET running = EXCLUDED.running, instruments = EXCLUDED.instruments, dry_run = EXCLUDED.dry_run,
      started_at = EXCLUDED.started_at, updated_at = EXCLUDED.updated_at, generation = strategy_run_state.generation + 1
    WHERE strategy_run_state.generation = $6
    RETURNING running, instruments, dry_run, started_at, updated_at, generation
  )
  SELECT run.*, pg_notify('${RUN_CHANNEL}', run.generation::text) FROM run`;

/**
 * The strategy's records in PostgreSQL (DATABASE_URL), for several replicas on one database. A
 * signal's insert is one statement, INSERT … ON CONFLICT (signal_id) DO NOTHING with its paper
 * trade: of any number of replicas producing one signal, exactly one stores it, and only that one
 * sends it on. Each write is its own transaction, durable when it returns (the server's
 * synchronous_commit). Statements are named, so each connection of the pool prepares them once.
 */
export class PostgresStrategyStore implements StrategyStore {
  private closed = false;
  private readonly eventLogKeep: number;

  constructor(
    private readonly pool: PostgresPool,
    { eventLogKeep = EVENT_LOG_KEEP }: StrategyStoreOptions = {},
  ) {
    this.eventLogKeep = eventLogKeep;
  }

  /** Connects to the database and brings its schema up to date (safe when replicas start at once). */
  static async open(url: string, options?: StrategyStoreOptions): Promise<PostgresStrategyStore> {
    return new PostgresStrategyStore(await openPostgres({ url, store: 'strategy', migrations: POSTGRES_MIGRATIONS }), options);
  }

  private async rows<R>(name: string, text: string, values: unknown[] = []): Promise<R[]> {
    return (await this.pool.query({ name, text, values })).rows as R[];
  }

  private async write(name: string, text: string, values: unknown[]): Promise<void> {
    await this.pool.query({ name, text, values });
  }

  /**
   * A write and the events it logs, in one transaction that first takes the log's turn; false
   * when the write changed nothing (nothing logged).
   */
  private logged(write: (client: PostgresClient) => Promise<readonly NewDeskEvent[] | undefined>): Promise<boolean> {
    return inTransaction(this.pool, async (client) => {
      await client.query({ name: 'event_turn', text: EVENT_TURN });
      const events = await write(client);
      if (!events) return false;
      for (const event of events) {
        await client.query({ name: 'log_event', text: LOG_EVENT, values: [event.name, event.key ?? null, event.data, this.eventLogKeep] });
      }
      return true;
    });
  }

  async insert(signal: StrategySignal, paperTrade?: PaperTrade): Promise<boolean> {
    const trade = paperTrade ? paperTradeColumns(paperTrade).slice(1) : Array<null>(8).fill(null);
    const values = [...signalColumns(signal), paperTrade !== undefined, ...trade];
    return this.logged(async (client) => {
      const [row] = (await client.query<{ inserted: number }>({ name: 'insert', text: INSERT, values })).rows;
      return row?.inserted === 1 ? [{ name: 'signal', data: JSON.stringify(signal) }] : undefined;
    });
  }

  async find(signalId: string): Promise<StrategySignal | undefined> {
    const [row] = await this.rows<SignalRow>('find', `${SIGNAL} WHERE signal_id = $1`, [signalId]);
    return row && signalOf(row);
  }

  async latest(instrument: string): Promise<StrategySignal | undefined> {
    const [row] = await this.rows<SignalRow>('latest', `${SIGNAL} WHERE instrument = $1 ORDER BY seq DESC LIMIT 1`, [instrument]);
    return row && signalOf(row);
  }

  async lastSignalTime(): Promise<string | undefined> {
    const [row] = await this.rows<{ generated_at: string }>('last_signal_time', 'SELECT generated_at FROM strategy_signals ORDER BY seq DESC LIMIT 1');
    return row?.generated_at;
  }

  async countOnDay(day: string): Promise<number> {
    return this.count('count_on_day', 'SELECT count(*)::integer AS n FROM strategy_signals WHERE generated_day = $1', day);
  }

  async countSince(at: string): Promise<number> {
    return this.count('count_since', 'SELECT count(*)::integer AS n FROM strategy_signals WHERE generated_at >= $1', at);
  }

  private async count(name: string, text: string, value: string): Promise<number> {
    const [row] = await this.rows<{ n: number }>(name, text, [value]);
    return row?.n ?? 0;
  }

  async hasInstrument(instrument: string): Promise<boolean> {
    return (await this.rows('has_instrument', 'SELECT 1 FROM strategy_signals WHERE instrument = $1 LIMIT 1', [instrument])).length > 0;
  }

  async page(options: PageOptions): Promise<SignalPage> {
    const values: unknown[] = [];
    const where: string[] = [];
    if (options.instrument !== undefined) where.push(`instrument = $${values.push(options.instrument)}`);
    if (options.before !== undefined) where.push(`seq < $${values.push(options.before)}`);
    const limit = `$${values.push(options.limit + 1)}`;
    const text = `${SIGNAL} ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY seq DESC LIMIT ${limit}`;
    const name = `page${options.instrument === undefined ? '' : '_instrument'}${options.before === undefined ? '' : '_before'}`;
    return pageOf(await this.rows<SignalRow>(name, text, values), options.limit);
  }

  async updateExecution(signal: SignalRef, execution: SignalExecution): Promise<void> {
    await this.logged(async (client) => {
      const text = 'UPDATE strategy_signals SET execution = $2 WHERE signal_id = $1';
      const { rowCount } = await client.query({ name: 'update_execution', text, values: [signal.signal_id, JSON.stringify(execution)] });
      return rowCount === 1 ? [orderEvent(signal, execution)] : undefined;
    });
  }

  async updateNotification(signal: SignalRef, notification: SignalNotification): Promise<void> {
    await this.logged(async (client) => {
      const text = 'UPDATE strategy_signals SET notification = $2 WHERE signal_id = $1';
      const { rowCount } = await client.query({ name: 'update_notification', text, values: [signal.signal_id, JSON.stringify(notification)] });
      return rowCount === 1 ? [deliveryEvent(signal, notification)] : undefined;
    });
  }

  async unfinished(): Promise<StrategySignal[]> {
    return (await this.rows<SignalRow>('unfinished', UNFINISHED)).map(signalOf);
  }

  async runState(): Promise<RunState | undefined> {
    const [row] = await this.rows<RunRow>('run_state', RUN);
    return row && runStateOf(row);
  }

  async recordRun(change: RunChange, at: string, expected: number): Promise<RunState | undefined> {
    const values = [change.running, JSON.stringify(change.instruments), change.dryRun, change.startedAt, at, expected];
    const [row] = await this.rows<RunRow>('record_run', RECORD_RUN, values);
    return row && runStateOf(row);
  }

  async openPaperTrades(): Promise<PaperTrade[]> {
    const rows = await this.rows<PaperTradeRow>(
      'open_paper_trades',
      `SELECT ${PAPER_TRADE} FROM strategy_paper_trades WHERE closed_at IS NULL ORDER BY opened_at, signal_id`,
    );
    return rows.map(paperTradeOf);
  }

  async closePaperTrade(signalId: string, exitPrice: number, pnl: number, closedAt: string): Promise<void> {
    await this.write(
      'close_paper_trade',
      'UPDATE strategy_paper_trades SET closed_at = $2, exit_price = $3, pnl = $4 WHERE signal_id = $1 AND closed_at IS NULL',
      [signalId, closedAt, exitPrice, pnl],
    );
  }

  async realizedPaperPnl(): Promise<number> {
    const [row] = await this.rows<{ total: number }>(
      'realized_paper_pnl',
      'SELECT COALESCE(SUM(pnl), 0)::double precision AS total FROM strategy_paper_trades WHERE closed_at IS NOT NULL',
    );
    return row?.total ?? 0;
  }

  async openSession(session: StoredSession, now: string, max: number): Promise<void> {
    await inTransaction(this.pool, async (client) => {
      // Logins on several replicas at once take turns, so together they never leave more than `max`.
      await client.query('LOCK TABLE strategy_console_sessions IN SHARE ROW EXCLUSIVE MODE');
      await client.query({ name: 'drop_expired_sessions', text: 'DELETE FROM strategy_console_sessions WHERE expires_at <= $1', values: [now] });
      await client.query({
        name: 'open_session',
        text: 'INSERT INTO strategy_console_sessions (id_hash, csrf_token, expires_at) VALUES ($1, $2, $3)',
        values: [session.idHash, session.csrfToken, session.expiresAt],
      });
      await client.query({
        name: 'drop_oldest_sessions',
        text: 'DELETE FROM strategy_console_sessions WHERE seq <= (SELECT seq FROM strategy_console_sessions ORDER BY seq DESC LIMIT 1 OFFSET $1)',
        values: [max],
      });
    });
  }

  async findSession(idHash: string, now: string): Promise<StoredSession | undefined> {
    const [row] = await this.rows<SessionRow>(
      'find_session',
      'SELECT id_hash, csrf_token, expires_at FROM strategy_console_sessions WHERE id_hash = $1 AND expires_at > $2',
      [idHash, now],
    );
    return row && storedSessionOf(row);
  }

  async endSession(idHash: string): Promise<void> {
    await this.write('end_session', 'DELETE FROM strategy_console_sessions WHERE id_hash = $1', [idHash]);
  }

  async consoleSecret(candidate: string): Promise<string> {
    await this.write('store_secret', 'INSERT INTO strategy_console_secret (id, secret) VALUES (1, $1) ON CONFLICT (id) DO NOTHING', [candidate]);
    // A statement of its own: it sees the secret another replica committed while the insert above waited for it.
    const [row] = await this.rows<{ secret: string }>('console_secret', 'SELECT secret FROM strategy_console_secret WHERE id = 1');
    return (row as { secret: string }).secret;
  }

  async appendEvents(events: readonly NewDeskEvent[]): Promise<void> {
    await this.logged(async () => events);
  }

  async eventsAfter(seq: number, limit: number): Promise<DeskEvent[] | undefined> {
    const rows = await this.rows<DeskEventRow>('events_after', 'SELECT seq, name, data FROM strategy_events WHERE seq > $1 ORDER BY seq LIMIT $2', [
      seq,
      limit,
    ]);
    return eventsOf(rows, seq);
  }

  async lastEventSeq(): Promise<number> {
    const [row] = await this.rows<{ last: string }>('last_event_seq', 'SELECT last FROM strategy_event_seq WHERE id = 1');
    return Number(row?.last ?? 0);
  }

  async saveDownstream(service: DownstreamService, state: DownstreamState): Promise<void> {
    await this.write(
      'save_downstream',
      'INSERT INTO strategy_downstream_states (service, state) VALUES ($1, $2) ON CONFLICT (service) DO UPDATE SET state = EXCLUDED.state',
      [service, JSON.stringify(state)],
    );
  }

  async downstreamStates(): Promise<Partial<Record<DownstreamService, DownstreamState>>> {
    return downstreamStatesOf(await this.rows('downstream_states', 'SELECT service, state FROM strategy_downstream_states'));
  }

  async health(): Promise<{ ok: boolean; detail: string }> {
    try {
      await this.pool.query('SELECT 1');
      return { ok: true, detail: 'PostgreSQL answers' };
    } catch (err) {
      return { ok: false, detail: `PostgreSQL does not answer: ${err instanceof Error ? err.message : String(err)}` };
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }
}
