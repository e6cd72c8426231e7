import { openStoreDatabase, type Database } from '@fxdesk/core';
import { DailySummaryStore } from './daily-summaries.js';
import { DeskEventLog, EVENT_LOG_KEEP } from './desk-events.js';
import { DownstreamStateStore } from './downstream-states.js';
import { JournalStore } from './journal.js';
import { PaperTradeStore } from './paper-trades.js';
import { RiskStateStore } from './risk-states.js';
import { RunStore } from './runs.js';
import { STRATEGY_SCHEMA } from './schema.js';
import { SessionStore } from './sessions.js';
import { SignalStore } from './signals.js';

export { EVENT_LOG_KEEP, type DeskEvent, type DeskEventName, type NewDeskEvent } from './desk-events.js';
export type { DailySummaryOutcome } from './daily-summaries.js';
export type { AccountTotals, AnnouncementOutcome, JournalCursor, JournalFilter, JournalTradePage } from './journal.js';
export type { PaperFill, PaperTrade } from './paper-trades.js';
export type { RiskAnnouncement, StoredRisk } from './risk-states.js';
export type { RunChange, RunState } from './runs.js';
export type { StoredSession } from './sessions.js';
export { utcDay, type PageOptions, type SignalPage, type SignalRef } from './signals.js';
export {
  DailySummaryStore,
  DeskEventLog,
  DownstreamStateStore,
  JournalStore,
  PaperTradeStore,
  RiskStateStore,
  RunStore,
  SessionStore,
  SignalStore,
  STRATEGY_SCHEMA,
};

export interface StrategyStoresOptions {
  /** DATABASE_URL: PostgreSQL when set, for several replicas on one database; else `file`. */
  databaseUrl?: string;
  /** strategy.db (databasePath(DATA_DIR, 'strategy')); in memory by default. */
  file?: string;
  /** Events the desk's log keeps (EVENT_LOG_KEEP; tests keep fewer). */
  eventLogKeep?: number;
}

/**
 * The strategy's records, one store for each kind, all over one database: the signals (with the
 * paper trade a dry_run signal opens and the desk event each write logs, in the same
 * transaction), the run, the paper trades, the trade journal, the days summarized, the desk's risk state per account (and its halts and resumes to announce), the console's sessions, the desk's event log and the
 * leader's view of the services it calls. Written once for SQLite (strategy.db, WAL,
 * synchronous=FULL, one process) and PostgreSQL (DATABASE_URL, replicas); both pass one contract
 * (test/strategy-store.contract.ts). Timestamps are ISO-8601 text.
 */
export class StrategyStores {
  readonly events: DeskEventLog;
  readonly signals: SignalStore;
  readonly runs: RunStore;
  readonly paperTrades: PaperTradeStore;
  readonly sessions: SessionStore;
  readonly downstream: DownstreamStateStore;
  readonly journal: JournalStore;
  readonly dailySummaries: DailySummaryStore;
  readonly risk: RiskStateStore;

  constructor(
    /** The database, for tests that reach its engine (a SQLite file's limits). */
    readonly db: Database,
    { eventLogKeep = EVENT_LOG_KEEP }: Pick<StrategyStoresOptions, 'eventLogKeep'> = {},
  ) {
    this.events = new DeskEventLog(db, eventLogKeep);
    this.journal = new JournalStore(db);
    this.paperTrades = new PaperTradeStore(db, this.journal);
    this.signals = new SignalStore(db, this.events, this.paperTrades);
    this.runs = new RunStore(db);
    this.sessions = new SessionStore(db);
    this.downstream = new DownstreamStateStore(db);
    this.dailySummaries = new DailySummaryStore(db);
    this.risk = new RiskStateStore(db);
  }

  /**
   * Whether the database answers now and can write, for /health and /health/ready (SQLite: open,
   * and not once a write failed for want of storage, see StorageHealth; PostgreSQL: SELECT 1).
   */
  health(): Promise<{ ok: boolean; detail: string }> {
    return this.db.health();
  }

  close(): Promise<void> {
    return this.db.close();
  }
}

/** Opens (and migrates) the strategy's database: PostgreSQL when `databaseUrl` is set, else the SQLite `file`. */
export async function openStrategyStores(options: StrategyStoresOptions = {}): Promise<StrategyStores> {
  const db = await openStoreDatabase({
    databaseUrl: options.databaseUrl,
    file: options.file ?? ':memory:',
    schema: STRATEGY_SCHEMA,
    sqlite: { synchronous: 'FULL' },
  });
  return new StrategyStores(db, options);
}
