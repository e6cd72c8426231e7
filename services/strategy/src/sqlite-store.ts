import { openDatabase, StorageHealth, type SqliteDatabase, type StorageHealthOptions } from '@fxdesk/core';
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
  storedSessionOf,
  signalColumns,
  signalOf,
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

/** The schema of strategy.db, in the order it grew (`user_version` counts those applied). */
export const MIGRATIONS = [
  `CREATE TABLE signals (
     seq INTEGER PRIMARY KEY AUTOINCREMENT,
     signal_id TEXT NOT NULL UNIQUE,
     instrument TEXT NOT NULL,
     generated_at TEXT NOT NULL,
     generated_day TEXT NOT NULL,
     body TEXT NOT NULL,
     execution TEXT NOT NULL,
     notification TEXT NOT NULL
   );
   CREATE INDEX signals_by_instrument ON signals (instrument, seq);
   CREATE INDEX signals_by_day ON signals (generated_day);
   CREATE TABLE paper_trades (
     signal_id TEXT PRIMARY KEY,
     instrument TEXT NOT NULL,
     side INTEGER NOT NULL,
     units REAL NOT NULL,
     entry REAL NOT NULL,
     stop_loss REAL NOT NULL,
     take_profit REAL NOT NULL,
     candle_time INTEGER NOT NULL,
     opened_at TEXT NOT NULL,
     closed_at TEXT,
     exit_price REAL,
     pnl REAL
   );
   CREATE INDEX paper_trades_open ON paper_trades (closed_at);`,
  // The last start and whether the strategy was running, so a restarted process can resume it.
  `CREATE TABLE run_state (
     id INTEGER PRIMARY KEY CHECK (id = 1),
     running INTEGER NOT NULL,
     instruments TEXT NOT NULL,
     dry_run INTEGER NOT NULL,
     updated_at TEXT NOT NULL
   );`,
  // The run's start time and a count of its changes (issue 15); a row from before has neither:
  // its start time reads as its last update.
  `ALTER TABLE run_state ADD COLUMN started_at TEXT;
   ALTER TABLE run_state ADD COLUMN generation INTEGER NOT NULL DEFAULT 0;
   CREATE INDEX signals_by_time ON signals (generated_at);`,
  // The console's logins and the secret that signs their cookie, shared by whatever reads the file.
  `CREATE TABLE console_sessions (
     seq INTEGER PRIMARY KEY AUTOINCREMENT,
     id_hash TEXT NOT NULL UNIQUE,
     csrf_token TEXT NOT NULL,
     expires_at TEXT NOT NULL
   );
   CREATE INDEX console_sessions_by_expiry ON console_sessions (expires_at);
   CREATE TABLE console_secret (
     id INTEGER PRIMARY KEY CHECK (id = 1),
     secret TEXT NOT NULL
   );`,
  // The desk's event log (the same ids on every replica's /events), numbered by a counter that
  // gives 1, 2, 3… with no gap; and the leader's view of the services it calls.
  `CREATE TABLE desk_events (
     seq INTEGER PRIMARY KEY,
     name TEXT NOT NULL,
     event_key TEXT UNIQUE,
     data TEXT NOT NULL
   );
   CREATE TABLE desk_event_seq (
     id INTEGER PRIMARY KEY CHECK (id = 1),
     last INTEGER NOT NULL
   );
   INSERT INTO desk_event_seq (id, last) VALUES (1, 0);
   CREATE TABLE downstream_states (
     service TEXT PRIMARY KEY,
     state TEXT NOT NULL
   );`,
];

const SIGNAL = 'SELECT seq, body, execution, notification FROM signals';
const RUN = 'SELECT running, instruments, dry_run, COALESCE(started_at, updated_at) AS started_at, updated_at, generation FROM run_state';

/**
 * The strategy's SQLite file (DATA_DIR/strategy.db, WAL, synchronous=FULL): one process reads
 * and writes it. Each call runs at once on the event loop; the promises only give it the
 * interface the PostgreSQL store needs.
 */
export class SqliteStrategyStore implements StrategyStore {
  /** The connection, for tests that set its limits. */
  readonly db: SqliteDatabase;
  private readonly statements;
  private readonly insertSignal: (signal: StrategySignal, paperTrade?: PaperTrade) => boolean;
  private readonly insertSession: (session: StoredSession, now: string, max: number) => void;
  private readonly logged: (write: () => readonly NewDeskEvent[] | undefined) => boolean;
  /** Whether the file can write, learnt from the writes below (each runs through `storage.guard`). */
  private readonly storage: StorageHealth;

  constructor(file: string, { eventLogKeep = EVENT_LOG_KEEP, health }: StrategyStoreOptions & { health?: StorageHealthOptions } = {}) {
    this.db = openDatabase(file, { migrations: MIGRATIONS, synchronous: 'FULL' });
    this.storage = new StorageHealth(this.db, health);
    const sql = (text: string) => this.db.prepare(text);
    this.statements = {
      insert: sql(
        `INSERT INTO signals (signal_id, instrument, generated_at, generated_day, body, execution, notification)
         VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (signal_id) DO NOTHING`,
      ),
      find: sql(`${SIGNAL} WHERE signal_id = ?`),
      latest: sql(`${SIGNAL} WHERE instrument = ? ORDER BY seq DESC LIMIT 1`),
      lastSignalTime: sql('SELECT generated_at FROM signals ORDER BY seq DESC LIMIT 1'),
      countOnDay: sql('SELECT COUNT(*) AS n FROM signals WHERE generated_day = ?'),
      countSince: sql('SELECT COUNT(*) AS n FROM signals WHERE generated_at >= ?'),
      hasInstrument: sql('SELECT 1 FROM signals WHERE instrument = ? LIMIT 1'),
      updateExecution: sql('UPDATE signals SET execution = ? WHERE signal_id = ?'),
      updateNotification: sql('UPDATE signals SET notification = ? WHERE signal_id = ?'),
      unfinished: sql(`${SIGNAL} WHERE json_extract(execution, '$.status') = 'pending' OR json_extract(notification, '$.status') = 'pending' ORDER BY seq`),
      runState: sql(`${RUN} WHERE id = 1`),
      recordRun: sql(
        `INSERT INTO run_state (id, running, instruments, dry_run, started_at, updated_at, generation) VALUES (1, ?, ?, ?, ?, ?, 1)
         ON CONFLICT (id) DO UPDATE SET running = excluded.running, instruments = excluded.instruments, dry_run = excluded.dry_run,
           started_at = excluded.started_at, updated_at = excluded.updated_at, generation = run_state.generation + 1
         WHERE run_state.generation = ?
         RETURNING running, instruments, dry_run, started_at, updated_at, generation`,
      ),
      openPaperTrade: sql(
        `INSERT INTO paper_trades (signal_id, instrument, side, units, entry, stop_loss, take_profit, candle_time, opened_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (signal_id) DO NOTHING`,
      ),
      openPaperTrades: sql('SELECT * FROM paper_trades WHERE closed_at IS NULL ORDER BY opened_at'),
      closePaperTrade: sql('UPDATE paper_trades SET closed_at = ?, exit_price = ?, pnl = ? WHERE signal_id = ? AND closed_at IS NULL'),
      realizedPaperPnl: sql('SELECT COALESCE(SUM(pnl), 0) AS total FROM paper_trades WHERE closed_at IS NOT NULL'),
      dropExpiredSessions: sql('DELETE FROM console_sessions WHERE expires_at <= ?'),
      openSession: sql('INSERT INTO console_sessions (id_hash, csrf_token, expires_at) VALUES (?, ?, ?)'),
      // Keeps the newest `max`: every session at or before the (max + 1)-th newest goes.
      dropOldestSessions: sql('DELETE FROM console_sessions WHERE seq <= (SELECT seq FROM console_sessions ORDER BY seq DESC LIMIT 1 OFFSET ?)'),
      findSession: sql('SELECT id_hash, csrf_token, expires_at FROM console_sessions WHERE id_hash = ? AND expires_at > ?'),
      endSession: sql('DELETE FROM console_sessions WHERE id_hash = ?'),
      nextEventSeq: sql('UPDATE desk_event_seq SET last = last + 1 WHERE id = 1 RETURNING last'),
      hasEventKey: sql('SELECT 1 FROM desk_events WHERE event_key = ?'),
      logEvent: sql('INSERT INTO desk_events (seq, name, event_key, data) VALUES (?, ?, ?, ?)'),
      pruneEvents: sql('DELETE FROM desk_events WHERE seq <= ?'),
      eventsAfter: sql('SELECT seq, name, data FROM desk_events WHERE seq > ? ORDER BY seq LIMIT ?'),
      lastEventSeq: sql('SELECT last FROM desk_event_seq WHERE id = 1'),
      saveDownstream: sql('INSERT INTO downstream_states (service, state) VALUES (?, ?) ON CONFLICT (service) DO UPDATE SET state = excluded.state'),
      downstreamStates: sql('SELECT service, state FROM downstream_states'),
      storeSecret: sql('INSERT INTO console_secret (id, secret) VALUES (1, ?) ON CONFLICT (id) DO NOTHING'),
      consoleSecret: sql('SELECT secret FROM console_secret WHERE id = 1'),
    };
    // A write and the events it logs, in one transaction; false when the write changed nothing (nothing logged).
    this.logged = this.db.transaction((write: () => readonly NewDeskEvent[] | undefined) => {
      const events = write();
      if (!events) return false;
      for (const event of events) {
        if (event.key !== undefined && this.statements.hasEventKey.get(event.key)) continue;
        const { last } = this.statements.nextEventSeq.get() as { last: number };
        this.statements.logEvent.run(last, event.name, event.key ?? null, event.data);
        this.statements.pruneEvents.run(last - eventLogKeep);
      }
      return true;
    });
    this.insertSignal = (signal: StrategySignal, paperTrade?: PaperTrade) =>
      this.logged(() => {
        if (this.statements.insert.run(...signalColumns(signal)).changes !== 1) return undefined;
        if (paperTrade) this.statements.openPaperTrade.run(...paperTradeColumns(paperTrade));
        return [{ name: 'signal', data: JSON.stringify(signal) }];
      });
    this.insertSession = this.db.transaction((session: StoredSession, now: string, max: number) => {
      this.statements.dropExpiredSessions.run(now);
      this.statements.openSession.run(session.idHash, session.csrfToken, session.expiresAt);
      this.statements.dropOldestSessions.run(max);
    });
  }

  async insert(signal: StrategySignal, paperTrade?: PaperTrade): Promise<boolean> {
    return this.storage.guard(() => this.insertSignal(signal, paperTrade));
  }

  async find(signalId: string): Promise<StrategySignal | undefined> {
    const row = this.statements.find.get(signalId) as SignalRow | undefined;
    return row && signalOf(row);
  }

  async latest(instrument: string): Promise<StrategySignal | undefined> {
    const row = this.statements.latest.get(instrument) as SignalRow | undefined;
    return row && signalOf(row);
  }

  async lastSignalTime(): Promise<string | undefined> {
    return (this.statements.lastSignalTime.get() as { generated_at: string } | undefined)?.generated_at;
  }

  async countOnDay(day: string): Promise<number> {
    return (this.statements.countOnDay.get(day) as { n: number }).n;
  }

  async countSince(at: string): Promise<number> {
    return (this.statements.countSince.get(at) as { n: number }).n;
  }

  async hasInstrument(instrument: string): Promise<boolean> {
    return this.statements.hasInstrument.get(instrument) !== undefined;
  }

  async page(options: PageOptions): Promise<SignalPage> {
    const where: string[] = [];
    const args: (string | number)[] = [];
    if (options.instrument !== undefined) {
      where.push('instrument = ?');
      args.push(options.instrument);
    }
    if (options.before !== undefined) {
      where.push('seq < ?');
      args.push(options.before);
    }
    const sql = `${SIGNAL} ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY seq DESC LIMIT ?`;
    return pageOf(this.db.prepare(sql).all(...args, options.limit + 1) as SignalRow[], options.limit);
  }

  async updateExecution(signal: SignalRef, execution: SignalExecution): Promise<void> {
    this.storage.guard(() =>
      this.logged(() =>
        this.statements.updateExecution.run(JSON.stringify(execution), signal.signal_id).changes === 1 ? [orderEvent(signal, execution)] : undefined,
      ),
    );
  }

  async updateNotification(signal: SignalRef, notification: SignalNotification): Promise<void> {
    this.storage.guard(() =>
      this.logged(() =>
        this.statements.updateNotification.run(JSON.stringify(notification), signal.signal_id).changes === 1
          ? [deliveryEvent(signal, notification)]
          : undefined,
      ),
    );
  }

  async unfinished(): Promise<StrategySignal[]> {
    return (this.statements.unfinished.all() as SignalRow[]).map(signalOf);
  }

  async runState(): Promise<RunState | undefined> {
    const row = this.statements.runState.get() as RunRow | undefined;
    return row && runStateOf(row);
  }

  async recordRun(change: RunChange, at: string, expected: number): Promise<RunState | undefined> {
    const row = this.storage.guard(
      () =>
        this.statements.recordRun.get(change.running ? 1 : 0, JSON.stringify(change.instruments), change.dryRun ? 1 : 0, change.startedAt, at, expected) as
          RunRow | undefined,
    );
    return row && runStateOf(row);
  }

  async openPaperTrades(): Promise<PaperTrade[]> {
    return (this.statements.openPaperTrades.all() as PaperTradeRow[]).map(paperTradeOf);
  }

  async closePaperTrade(signalId: string, exitPrice: number, pnl: number, closedAt: string): Promise<void> {
    this.storage.guard(() => this.statements.closePaperTrade.run(closedAt, exitPrice, pnl, signalId));
  }

  async realizedPaperPnl(): Promise<number> {
    return (this.statements.realizedPaperPnl.get() as { total: number }).total;
  }

  async openSession(session: StoredSession, now: string, max: number): Promise<void> {
    this.storage.guard(() => this.insertSession(session, now, max));
  }

  async findSession(idHash: string, now: string): Promise<StoredSession | undefined> {
    const row = this.statements.findSession.get(idHash, now) as SessionRow | undefined;
    return row && storedSessionOf(row);
  }

  async endSession(idHash: string): Promise<void> {
    this.storage.guard(() => this.statements.endSession.run(idHash));
  }

  async consoleSecret(candidate: string): Promise<string> {
    this.storage.guard(() => this.statements.storeSecret.run(candidate));
    return (this.statements.consoleSecret.get() as { secret: string }).secret;
  }

  async appendEvents(events: readonly NewDeskEvent[]): Promise<void> {
    this.storage.guard(() => this.logged(() => events));
  }

  async eventsAfter(seq: number, limit: number): Promise<DeskEvent[] | undefined> {
    return eventsOf(this.statements.eventsAfter.all(seq, limit) as DeskEventRow[], seq);
  }

  async lastEventSeq(): Promise<number> {
    return (this.statements.lastEventSeq.get() as { last: number }).last;
  }

  async saveDownstream(service: DownstreamService, state: DownstreamState): Promise<void> {
    this.storage.guard(() => this.statements.saveDownstream.run(service, JSON.stringify(state)));
  }

  async downstreamStates(): Promise<Partial<Record<DownstreamService, DownstreamState>>> {
    return downstreamStatesOf(this.statements.downstreamStates.all() as Array<{ service: DownstreamService; state: string }>);
  }

  /** Not ok when the file does not answer, or once a write failed for want of storage (see StorageHealth). */
  async health(): Promise<{ ok: boolean; detail: string }> {
    try {
      this.db.prepare('SELECT 1').get();
      const writable = this.storage.check();
      return writable.ok ? { ok: true, detail: 'signal database answers' } : writable;
    } catch (err) {
      return { ok: false, detail: `the signal database does not answer: ${err instanceof Error ? err.message : String(err)}` };
    }
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}
