import { openDatabase, type SqliteDatabase } from '@fxdesk/core';
import type { SignalExecution, SignalNotification, StrategySignal } from '@fxdesk/schemas';

const MIGRATIONS = [
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
];

/** The last start, and whether the strategy was still running when the process last stopped. */
export interface RunState {
  running: boolean;
  instruments: string[];
  dryRun: boolean;
}

interface SignalRow {
  seq: number;
  body: string;
  execution: string;
  notification: string;
}

/** A paper position opened by a dry_run signal. `side` is 1 (long) or −1 (short). */
export interface PaperTrade {
  signalId: string;
  instrument: string;
  side: 1 | -1;
  units: number;
  entry: number;
  stopLoss: number;
  takeProfit: number;
  /** Open time (epoch s) of the candle the signal came from: only later candles can close it. */
  candleTime: number;
  openedAt: string;
}

interface PaperTradeRow {
  signal_id: string;
  instrument: string;
  side: number;
  units: number;
  entry: number;
  stop_loss: number;
  take_profit: number;
  candle_time: number;
  opened_at: string;
}

export interface SignalPage {
  signals: StrategySignal[];
  /** seq of the last signal of the page when older ones exist. */
  nextBefore: number | null;
}

/** The UTC calendar day of an ISO timestamp or epoch ms, `YYYY-MM-DD`. */
export function utcDay(time: string | number): string {
  return new Date(time).toISOString().slice(0, 10);
}

/**
 * The strategy's SQLite file: every signal (with what execution and notification made of it)
 * and the paper trades. Signals are keyed by their deterministic signal_id, so producing the
 * same signal twice (a restart inside the same candle) stores it once.
 */
export class StrategyStore {
  private readonly db: SqliteDatabase;

  constructor(file: string) {
    this.db = openDatabase(file, { migrations: MIGRATIONS, synchronous: 'FULL' });
  }

  /** Stores a new signal; false (and nothing written) when its signal_id is already stored. */
  insert(signal: StrategySignal): boolean {
    const { execution, notification, ...body } = signal;
    const result = this.db
      .prepare(
        `INSERT INTO signals (signal_id, instrument, generated_at, generated_day, body, execution, notification)
         VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (signal_id) DO NOTHING`,
      )
      .run(
        signal.signal_id,
        signal.instrument,
        signal.generated_at,
        utcDay(signal.generated_at),
        JSON.stringify(body),
        JSON.stringify(execution),
        JSON.stringify(notification),
      );
    return result.changes === 1;
  }

  /** Records a start (running) or a stop asked through the API (not running). */
  saveRunState(state: RunState, at: string): void {
    this.db
      .prepare(
        `INSERT INTO run_state (id, running, instruments, dry_run, updated_at) VALUES (1, ?, ?, ?, ?)
         ON CONFLICT (id) DO UPDATE SET running = excluded.running, instruments = excluded.instruments,
           dry_run = excluded.dry_run, updated_at = excluded.updated_at`,
      )
      .run(state.running ? 1 : 0, JSON.stringify(state.instruments), state.dryRun ? 1 : 0, at);
  }

  runState(): RunState | undefined {
    const row = this.db.prepare('SELECT running, instruments, dry_run FROM run_state WHERE id = 1').get() as
      { running: number; instruments: string; dry_run: number } | undefined;
    return row && { running: row.running === 1, instruments: JSON.parse(row.instruments) as string[], dryRun: row.dry_run === 1 };
  }

  find(signalId: string): StrategySignal | undefined {
    const row = this.db.prepare('SELECT seq, body, execution, notification FROM signals WHERE signal_id = ?').get(signalId) as SignalRow | undefined;
    return row && toSignal(row);
  }

  latest(instrument: string): StrategySignal | undefined {
    const row = this.db.prepare('SELECT seq, body, execution, notification FROM signals WHERE instrument = ? ORDER BY seq DESC LIMIT 1').get(instrument) as
      SignalRow | undefined;
    return row && toSignal(row);
  }

  /** generated_at of the newest signal of any pair. */
  lastSignalTime(): string | undefined {
    const row = this.db.prepare('SELECT generated_at FROM signals ORDER BY seq DESC LIMIT 1').get() as { generated_at: string } | undefined;
    return row?.generated_at;
  }

  countOnDay(day: string): number {
    return (this.db.prepare('SELECT COUNT(*) AS n FROM signals WHERE generated_day = ?').get(day) as { n: number }).n;
  }

  hasInstrument(instrument: string): boolean {
    return this.db.prepare('SELECT 1 FROM signals WHERE instrument = ? LIMIT 1').get(instrument) !== undefined;
  }

  /** Newest first; `before` is the nextBefore of the previous page. */
  page(options: { instrument?: string; limit: number; before?: number }): SignalPage {
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
    const sql = `SELECT seq, body, execution, notification FROM signals ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY seq DESC LIMIT ?`;
    const rows = this.db.prepare(sql).all(...args, options.limit + 1) as SignalRow[];
    const more = rows.length > options.limit;
    const kept = more ? rows.slice(0, options.limit) : rows;
    return { signals: kept.map(toSignal), nextBefore: more ? (kept[kept.length - 1] as SignalRow).seq : null };
  }

  updateExecution(signalId: string, execution: SignalExecution): void {
    this.db.prepare('UPDATE signals SET execution = ? WHERE signal_id = ?').run(JSON.stringify(execution), signalId);
  }

  updateNotification(signalId: string, notification: SignalNotification): void {
    this.db.prepare('UPDATE signals SET notification = ? WHERE signal_id = ?').run(JSON.stringify(notification), signalId);
  }

  /** Signals whose submission or announcement never finished (the process stopped in between). */
  unfinished(): StrategySignal[] {
    const rows = this.db
      .prepare(
        `SELECT seq, body, execution, notification FROM signals
         WHERE json_extract(execution, '$.status') = 'pending' OR json_extract(notification, '$.status') = 'pending'
         ORDER BY seq`,
      )
      .all() as SignalRow[];
    return rows.map(toSignal);
  }

  openPaperTrade(trade: PaperTrade): void {
    this.db
      .prepare(
        `INSERT INTO paper_trades (signal_id, instrument, side, units, entry, stop_loss, take_profit, candle_time, opened_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (signal_id) DO NOTHING`,
      )
      .run(trade.signalId, trade.instrument, trade.side, trade.units, trade.entry, trade.stopLoss, trade.takeProfit, trade.candleTime, trade.openedAt);
  }

  openPaperTrades(): PaperTrade[] {
    const rows = this.db.prepare('SELECT * FROM paper_trades WHERE closed_at IS NULL ORDER BY opened_at').all() as PaperTradeRow[];
    return rows.map((r) => ({
      signalId: r.signal_id,
      instrument: r.instrument,
      side: r.side === 1 ? 1 : -1,
      units: r.units,
      entry: r.entry,
      stopLoss: r.stop_loss,
      takeProfit: r.take_profit,
      candleTime: r.candle_time,
      openedAt: r.opened_at,
    }));
  }

  closePaperTrade(signalId: string, exitPrice: number, pnl: number, closedAt: string): void {
    this.db
      .prepare('UPDATE paper_trades SET closed_at = ?, exit_price = ?, pnl = ? WHERE signal_id = ? AND closed_at IS NULL')
      .run(closedAt, exitPrice, pnl, signalId);
  }

  /** Profit and loss of every closed paper trade, in the account currency. */
  realizedPaperPnl(): number {
    return (this.db.prepare('SELECT COALESCE(SUM(pnl), 0) AS total FROM paper_trades WHERE closed_at IS NOT NULL').get() as { total: number }).total;
  }

  /** Throws when the database cannot be read. */
  ping(): void {
    this.db.prepare('SELECT 1').get();
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}

function toSignal(row: SignalRow): StrategySignal {
  return {
    ...(JSON.parse(row.body) as Omit<StrategySignal, 'execution' | 'notification'>),
    execution: JSON.parse(row.execution) as SignalExecution,
    notification: JSON.parse(row.notification) as SignalNotification,
  };
}
