import type { DownstreamService, DownstreamState, SignalExecution, SignalNotification, StrategySignal } from '@fxdesk/schemas';

/**
 * The strategy's run as recorded: the last start, stop or restart. Every replica runs what it
 * says; `generation` counts the changes, so a replica sees a restart (same instruments, same
 * dry_run) as a change too.
 */
export interface RunState {
  running: boolean;
  instruments: string[];
  dryRun: boolean;
  /** When the run last started or restarted (ISO). */
  startedAt: string;
  /** When this change was recorded (ISO): for a stopped run, when it stopped. */
  changedAt: string;
  /** 1 for the first change ever recorded, one more for each after it. */
  generation: number;
}

/** A change of the run to record: the state without its generation, which the store counts. */
export type RunChange = Omit<RunState, 'generation' | 'changedAt'>;

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

/**
 * A console login as the store keeps it: the session id (the cookie's value) only as its SHA-256,
 * so the table's rows open no session; the CSRF token as the browser reads it.
 */
export interface StoredSession {
  idHash: string;
  csrfToken: string;
  /** ISO. */
  expiresAt: string;
}

/** A signal as an outcome names it. */
export type SignalRef = Pick<StrategySignal, 'signal_id' | 'instrument'>;

/** The kinds of event the desk's log keeps: what happened at the desk, as every replica shows it on /events. */
export type DeskEventName = 'signal' | 'order' | 'delivery' | 'candle' | 'lab';

/** An event of the desk's log: `seq` counts them 1, 2, 3… with no gap; `data` is the event's JSON, as it goes out. */
export interface DeskEvent {
  seq: number;
  name: DeskEventName;
  data: string;
}

/** An event to log; one with a `key` already logged (the same candle closed on two replicas leading at once) is logged once. */
export interface NewDeskEvent {
  name: DeskEventName;
  data: string;
  key?: string;
}

/** Events the log keeps: the oldest go as new ones come. */
export const EVENT_LOG_KEEP = 10_000;

export interface StrategyStoreOptions {
  /** Events the desk's log keeps (EVENT_LOG_KEEP; tests keep fewer). */
  eventLogKeep?: number;
}

/** The UTC calendar day of an ISO timestamp or epoch ms, `YYYY-MM-DD`. */
export function utcDay(time: string | number): string {
  return new Date(time).toISOString().slice(0, 10);
}

/**
 * The strategy's records: every signal (with what execution and notification made of it), the
 * paper trades and the run. Signals are keyed by their deterministic signal_id, and `insert` is
 * the one gate a signal passes before it is sent anywhere: it stores a signal_id once, however
 * many processes produce it, so a signal is emitted at most once.
 *
 * Two implementations pass the same contract (test/strategy-store.contract.ts): SQLite, the
 * embedded default (sqlite-store.ts), and PostgreSQL for several replicas on one database
 * (postgres-store.ts). Timestamps are ISO-8601 text in both.
 */
export interface StrategyStore {
  /**
   * Stores a new signal, and the paper trade a dry_run signal opens, and logs its `signal` event,
   * in one write; false (and nothing written) when its signal_id is already stored.
   */
  insert(signal: StrategySignal, paperTrade?: PaperTrade): Promise<boolean>;
  find(signalId: string): Promise<StrategySignal | undefined>;
  /** The newest signal of a pair. */
  latest(instrument: string): Promise<StrategySignal | undefined>;
  /** generated_at of the newest signal of any pair. */
  lastSignalTime(): Promise<string | undefined>;
  /** Signals generated on a UTC day (`YYYY-MM-DD`). */
  countOnDay(day: string): Promise<number>;
  /** Signals generated at or after an instant (ISO). */
  countSince(at: string): Promise<number>;
  hasInstrument(instrument: string): Promise<boolean>;
  /** Newest first, `limit` at most, and where the next page starts. */
  page(options: PageOptions): Promise<SignalPage>;
  /** Keeps a signal's order outcome and logs its `order` event, in one write. */
  updateExecution(signal: SignalRef, execution: SignalExecution): Promise<void>;
  /** Keeps a signal's announcement outcome and logs its `delivery` event, in one write. */
  updateNotification(signal: SignalRef, notification: SignalNotification): Promise<void>;
  /** Signals whose submission or announcement never finished (the process stopped in between), oldest first. */
  unfinished(): Promise<StrategySignal[]>;

  /** The run as last recorded; undefined when none ever was. */
  runState(): Promise<RunState | undefined>;
  /**
   * Records a start, stop or restart made after the state of generation `expected` (0: none
   * recorded yet): the new state, or undefined, with nothing written, when another change was
   * recorded since.
   */
  recordRun(change: RunChange, at: string, expected: number): Promise<RunState | undefined>;

  openPaperTrades(): Promise<PaperTrade[]>;
  closePaperTrade(signalId: string, exitPrice: number, pnl: number, closedAt: string): Promise<void>;
  /** Profit and loss of every closed paper trade, in the account currency. */
  realizedPaperPnl(): Promise<number>;

  /**
   * Records a console login, in one write that also drops the sessions expired at `now` and
   * the oldest beyond `max`, so every replica sees at most `max` sessions.
   */
  openSession(session: StoredSession, now: string, max: number): Promise<void>;
  /** The live session (expiring after `now`) of a session id's hash. */
  findSession(idHash: string, now: string): Promise<StoredSession | undefined>;
  endSession(idHash: string): Promise<void>;
  /**
   * The secret that signs the console's session cookie: the one stored, or `candidate` when none
   * was; every replica on the store gets the same.
   */
  consoleSecret(candidate: string): Promise<string>;

  /**
   * The desk's event log, the same on every replica: the events written with a record (a
   * signal, its order and its announcement) and those logged here (candles, lab jobs; several in
   * one write, in order). Appends take turns, so an event is readable only once every event
   * before it is.
   */
  appendEvents(events: readonly NewDeskEvent[]): Promise<void>;
  /** The logged events after `seq`, oldest first, at most `limit`; undefined when some of them are no longer kept (EVENT_LOG_KEEP). */
  eventsAfter(seq: number, limit: number): Promise<DeskEvent[] | undefined>;
  /** The seq of the newest event logged (0 before the first). */
  lastEventSeq(): Promise<number>;

  /** Keeps the leader's view of a downstream service (the one it calls), for the followers' status. */
  saveDownstream(service: DownstreamService, state: DownstreamState): Promise<void>;
  downstreamStates(): Promise<Partial<Record<DownstreamService, DownstreamState>>>;

  /** Whether the database answers now, for /health and /health/ready. */
  health(): Promise<{ ok: boolean; detail: string }>;
  close(): Promise<void>;
}

/** The columns a signal is read from, in both databases. */
export interface SignalRow {
  seq: number | string;
  body: string;
  execution: string;
  notification: string;
}

export function signalOf(row: SignalRow): StrategySignal {
  return {
    ...(JSON.parse(row.body) as Omit<StrategySignal, 'execution' | 'notification'>),
    execution: JSON.parse(row.execution) as SignalExecution,
    notification: JSON.parse(row.notification) as SignalNotification,
  };
}

/** A page of `limit` signals from rows read one past it: the extra row tells that older ones exist. */
export function pageOf(rows: SignalRow[], limit: number): SignalPage {
  const kept = rows.slice(0, limit);
  const last = kept.at(-1);
  return { signals: kept.map(signalOf), nextBefore: rows.length > limit && last ? Number(last.seq) : null };
}

/** The values of a signal's insert: its columns, the JSON of its body and of its two outcomes. */
export function signalColumns(signal: StrategySignal): [string, string, string, string, string, string, string] {
  const { execution, notification, ...body } = signal;
  return [
    signal.signal_id,
    signal.instrument,
    signal.generated_at,
    utcDay(signal.generated_at),
    JSON.stringify(body),
    JSON.stringify(execution),
    JSON.stringify(notification),
  ];
}

/** A row of the run's table, as both databases return it (SQLite's booleans are 0 and 1). */
export interface RunRow {
  running: number | boolean;
  instruments: string;
  dry_run: number | boolean;
  started_at: string;
  updated_at: string;
  generation: number;
}

export function runStateOf(row: RunRow): RunState {
  return {
    running: Boolean(row.running),
    instruments: JSON.parse(row.instruments) as string[],
    dryRun: Boolean(row.dry_run),
    startedAt: row.started_at,
    changedAt: row.updated_at,
    generation: row.generation,
  };
}

/** The `order` and `delivery` events' data: the outcome with the signal it belongs to. */
export function orderEvent(signal: SignalRef, execution: SignalExecution): NewDeskEvent {
  return { name: 'order', data: JSON.stringify({ signal_id: signal.signal_id, instrument: signal.instrument, execution }) };
}

export function deliveryEvent(signal: SignalRef, notification: SignalNotification): NewDeskEvent {
  return { name: 'delivery', data: JSON.stringify({ signal_id: signal.signal_id, instrument: signal.instrument, notification }) };
}

/** A row of the log, as both databases return it (PostgreSQL's BIGINT as text). */
export interface DeskEventRow {
  seq: number | string;
  name: DeskEventName;
  data: string;
}

/** The rows read after `seq` as events; undefined when the first is not the one right after `seq` (the seqs have no gap: it was pruned). */
export function eventsOf(rows: DeskEventRow[], seq: number): DeskEvent[] | undefined {
  const events = rows.map((row) => ({ seq: Number(row.seq), name: row.name, data: row.data }));
  return events.length > 0 && events[0]?.seq !== seq + 1 ? undefined : events;
}

/** The downstream states as both databases keep them, one JSON row per service. */
export function downstreamStatesOf(rows: Array<{ service: DownstreamService; state: string }>): Partial<Record<DownstreamService, DownstreamState>> {
  return Object.fromEntries(rows.map((row) => [row.service, JSON.parse(row.state) as DownstreamState]));
}

/** A row of the console's sessions, as both databases return it. */
export interface SessionRow {
  id_hash: string;
  csrf_token: string;
  expires_at: string;
}

export function storedSessionOf(row: SessionRow): StoredSession {
  return { idHash: row.id_hash, csrfToken: row.csrf_token, expiresAt: row.expires_at };
}

/** A row of the paper trades, as both databases return it (PostgreSQL's BIGINT as text). */
export interface PaperTradeRow {
  signal_id: string;
  instrument: string;
  side: number;
  units: number;
  entry: number;
  stop_loss: number;
  take_profit: number;
  candle_time: number | string;
  opened_at: string;
}

export function paperTradeOf(row: PaperTradeRow): PaperTrade {
  return {
    signalId: row.signal_id,
    instrument: row.instrument,
    side: row.side === 1 ? 1 : -1,
    units: row.units,
    entry: row.entry,
    stopLoss: row.stop_loss,
    takeProfit: row.take_profit,
    candleTime: Number(row.candle_time),
    openedAt: row.opened_at,
  };
}

/** The values of a paper trade's insert, in column order. */
export function paperTradeColumns(trade: PaperTrade): (string | number)[] {
  return [trade.signalId, trade.instrument, trade.side, trade.units, trade.entry, trade.stopLoss, trade.takeProfit, trade.candleTime, trade.openedAt];
}
