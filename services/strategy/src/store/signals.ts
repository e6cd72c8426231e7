import type { Database, SqlParams } from '@fxdesk/core';
import type { SignalExecution, SignalNotification, StrategySignal } from '@fxdesk/schemas';
import type { DeskEventLog, NewDeskEvent } from './desk-events.js';
import type { AnnouncementOutcome } from './journal.js';
import type { PaperTrade, PaperTradeStore } from './paper-trades.js';
import { unannouncedLiveFill } from './schema.js';

export interface SignalPage {
  signals: StrategySignal[];
  /** seq of the last signal of the page when older ones exist. */
  nextBefore: number | null;
}

export interface PageOptions {
  instrument?: string;
  limit: number;
  /** The nextBefore of the previous page. */
  before?: number;
}

/** A signal as an outcome names it. */
export type SignalRef = Pick<StrategySignal, 'signal_id' | 'instrument'>;

/** The UTC calendar day of an ISO timestamp or epoch ms, `YYYY-MM-DD`. */
export function utcDay(time: string | number): string {
  return new Date(time).toISOString().slice(0, 10);
}

type SignalRow = { seq: number; body: string; execution: string; notification: string };

const SIGNAL = 'SELECT seq, body, execution, notification FROM strategy_signals';

/** Tickets looked up in one statement (well under SQLite's 32 766 parameters). */
const POSITIONS_PER_READ = 500;

function signalOf(row: SignalRow): StrategySignal {
  return {
    ...(JSON.parse(row.body) as Omit<StrategySignal, 'execution' | 'notification'>),
    execution: JSON.parse(row.execution) as SignalExecution,
    notification: JSON.parse(row.notification) as SignalNotification,
  };
}

/** A signal's columns: its keys, the JSON of its body and of its two outcomes. */
function signalParams(signal: StrategySignal): SqlParams {
  const { execution, notification, ...body } = signal;
  return {
    signalId: signal.signal_id,
    instrument: signal.instrument,
    generatedAt: signal.generated_at,
    generatedDay: utcDay(signal.generated_at),
    body: JSON.stringify(body),
    execution: JSON.stringify(execution),
    notification: JSON.stringify(notification),
    position: execution.tickets?.position ?? null,
  };
}

/** The `order` and `delivery` events' data: the outcome with the signal it belongs to. */
function outcomeEvent(name: 'order' | 'delivery', signal: SignalRef, outcome: Record<string, unknown>): NewDeskEvent {
  return { name, data: JSON.stringify({ signal_id: signal.signal_id, instrument: signal.instrument, ...outcome }) };
}

/**
 * Every signal, with what execution and notification made of it, keyed by its deterministic
 * signal_id. `insert` is the one gate a signal passes before it is sent anywhere: it stores a
 * signal_id once (INSERT … ON CONFLICT DO NOTHING, one statement, however many replicas produce
 * it), so a signal is emitted at most once. Each write logs its desk event in the same transaction.
 */
export class SignalStore {
  private readonly unfinishedSql: string;

  constructor(
    private readonly db: Database,
    private readonly log: DeskEventLog,
    private readonly paperTrades: PaperTradeStore,
  ) {
    const status = (column: string) => db.dialect.jsonText(column, 'status');
    // The predicate of the index strategy_signals_unfinished, word for word.
    this.unfinishedSql = `${SIGNAL} WHERE ${status('execution')} = 'pending' OR ${status('notification')} = 'pending' ORDER BY seq`;
  }

  /**
   * Stores a new signal, the paper trade a dry_run signal opens and the open one it closes at the
   * next open (`closes`, EXIT_ON_OPPOSITE_SIGNAL), and logs its `signal` event, in one write;
   * false (and nothing written) when its signal_id is already stored.
   */
  insert(signal: StrategySignal, paperTrade?: PaperTrade, closes?: string): Promise<boolean> {
    return this.log.logged(async (tx) => {
      const { changes } = await tx.run(
        `INSERT INTO strategy_signals (signal_id, instrument, generated_at, generated_day, body, execution, notification, position_ticket)
         VALUES (@signalId, @instrument, @generatedAt, @generatedDay, @body, @execution, @notification, @position) ON CONFLICT (signal_id) DO NOTHING`,
        signalParams(signal),
      );
      if (changes !== 1) return undefined;
      if (paperTrade) await this.paperTrades.open(tx, paperTrade);
      if (closes !== undefined) await this.paperTrades.markClosing(tx, closes, 'opposite_signal');
      return [{ name: 'signal', data: JSON.stringify(signal) }];
    });
  }

  /** The signals whose order opened each of `tickets` (the venue's position tickets), by ticket; a ticket no signal opened is absent. */
  async byPositions(tickets: readonly string[]): Promise<Map<string, StrategySignal>> {
    const byPosition = new Map<string, StrategySignal>();
    for (let at = 0; at < tickets.length; at += POSITIONS_PER_READ) {
      const chunk = tickets.slice(at, at + POSITIONS_PER_READ);
      const params = Object.fromEntries(chunk.map((ticket, i) => [`t${i}`, ticket]));
      const rows = await this.db.query<SignalRow & { position_ticket: string }>(
        `SELECT seq, body, execution, notification, position_ticket FROM strategy_signals WHERE position_ticket IN (${chunk.map((_, i) => `@t${i}`).join(', ')})`,
        params,
      );
      for (const row of rows) byPosition.set(row.position_ticket, signalOf(row));
    }
    return byPosition;
  }

  async find(signalId: string): Promise<StrategySignal | undefined> {
    const row = await this.db.one<SignalRow>(`${SIGNAL} WHERE signal_id = @signalId`, { signalId });
    return row && signalOf(row);
  }

  /** The newest signal of a pair. */
  async latest(instrument: string): Promise<StrategySignal | undefined> {
    const row = await this.db.one<SignalRow>(`${SIGNAL} WHERE instrument = @instrument ORDER BY seq DESC LIMIT 1`, { instrument });
    return row && signalOf(row);
  }

  /** generated_at of the newest signal of any pair. */
  async lastSignalTime(): Promise<string | undefined> {
    return (await this.db.one<{ generated_at: string }>('SELECT generated_at FROM strategy_signals ORDER BY seq DESC LIMIT 1'))?.generated_at;
  }

  /** Signals generated on a UTC day (`YYYY-MM-DD`). */
  async countOnDay(day: string): Promise<number> {
    return this.count('SELECT COUNT(*) AS n FROM strategy_signals WHERE generated_day = @value', day);
  }

  /** Signals generated at or after an instant (ISO). */
  async countSince(at: string): Promise<number> {
    return this.count('SELECT COUNT(*) AS n FROM strategy_signals WHERE generated_at >= @value', at);
  }

  async hasInstrument(instrument: string): Promise<boolean> {
    return (await this.db.one('SELECT 1 AS found FROM strategy_signals WHERE instrument = @instrument LIMIT 1', { instrument })) !== undefined;
  }

  /** Newest first, `limit` at most, and where the next page starts. */
  async page({ instrument, limit, before }: PageOptions): Promise<SignalPage> {
    const where = [instrument === undefined ? '' : 'instrument = @instrument', before === undefined ? '' : 'seq < @before'].filter(Boolean);
    const params: Record<string, string | number> = { limit: limit + 1 };
    if (instrument !== undefined) params.instrument = instrument;
    if (before !== undefined) params.before = before;
    // One row past the page: it tells that older ones exist.
    const rows = await this.db.query<SignalRow>(`${SIGNAL} ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY seq DESC LIMIT @limit`, params);
    const kept = rows.slice(0, limit);
    const last = kept.at(-1);
    return { signals: kept.map(signalOf), nextBefore: rows.length > limit && last ? last.seq : null };
  }

  /** Keeps a signal's order outcome and logs its `order` event, in one write. */
  async updateExecution(signal: SignalRef, execution: SignalExecution): Promise<void> {
    await this.log.logged(async (tx) => {
      const params = { signalId: signal.signal_id, execution: JSON.stringify(execution), position: execution.tickets?.position ?? null };
      const { changes } = await tx.run('UPDATE strategy_signals SET execution = @execution, position_ticket = @position WHERE signal_id = @signalId', params);
      return changes === 1 ? [outcomeEvent('order', signal, { execution })] : undefined;
    });
  }

  /** Keeps a signal's announcement outcome and logs its `delivery` event, in one write. */
  async updateNotification(signal: SignalRef, notification: SignalNotification): Promise<void> {
    await this.log.logged(async (tx) => {
      const params = { signalId: signal.signal_id, notification: JSON.stringify(notification) };
      const { changes } = await tx.run('UPDATE strategy_signals SET notification = @notification WHERE signal_id = @signalId', params);
      return changes === 1 ? [outcomeEvent('delivery', signal, { notification })] : undefined;
    });
  }

  /** Live signals whose order filled (or partly) and whose fill is not announced yet, oldest first. */
  async unannouncedFills(limit: number): Promise<StrategySignal[]> {
    return (await this.db.query<SignalRow>(`${SIGNAL} WHERE ${unannouncedLiveFill(this.db.dialect)} ORDER BY seq LIMIT @limit`, { limit })).map(signalOf);
  }

  /** Keeps what the announcement of the signal's fill came to. */
  async markFillAnnounced(signalId: string, outcome: AnnouncementOutcome): Promise<void> {
    await this.db.run('UPDATE strategy_signals SET fill_announced = @outcome WHERE signal_id = @signalId', { signalId, outcome });
  }

  /** Signals whose submission or announcement never finished (the process stopped in between), oldest first. */
  async unfinished(): Promise<StrategySignal[]> {
    return (await this.db.query<SignalRow>(this.unfinishedSql)).map(signalOf);
  }

  private async count(sql: string, value: string): Promise<number> {
    return (await this.db.one<{ n: number }>(sql, { value }))?.n ?? 0;
  }
}
