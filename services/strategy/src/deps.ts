import { SimulatedMarket } from '@fxdesk/broker';
import { AccountClient, ExecutionClient, MarketDataClient, NotificationClient, type ClientOptions } from '@fxdesk/client';
import { createLogger, databasePath, MetricsRegistry } from '@fxdesk/core';
import { systemClock, type Clock } from '@fxdesk/primitives';
import { TIMEFRAME_SECONDS } from '@fxdesk/schemas';
import type { Logger } from 'pino';
import pkg from '../package.json' with { type: 'json' };
import { AccountView } from './account-view.js';
import { Announcements } from './announcements.js';
import type { StrategyConfig } from './config.js';
import { ConsoleReads } from './console-reads.js';
import { ConsoleSessions } from './console-sessions.js';
import { DeskFeed } from './desk-feed.js';
import { DeskRisk, deskRiskOptionsOf } from './desk-risk.js';
import { DownstreamHealth } from './downstream.js';
import { StrategyEngine } from './engine.js';
import { EventHub } from './event-hub.js';
import { errors } from './errors.js';
import { JournalReads } from './journal.js';
import { LiveEntries } from './live-entries.js';
import { LiveExits } from './live-exits.js';
import { LiveJournal } from './live-journal.js';
import { LabJobs, type LabDeps } from './lab/jobs.js';
import { historyHoursOf } from './lab/plan.js';
import { labHistoriesOf } from './lab/sources.js';
import { LabPool } from './lab/pool.js';
import { SqlLabStore } from './lab/sql-store.js';
import { ExecutionLabTerms, SimulatedLabTerms } from './lab/symbol-terms.js';
import type { LabStore } from './lab/store.js';
import { MarketDataSource } from './market-data-source.js';
import type { MarketSource } from './market-source.js';
import { SimulatedSource } from './simulated-source.js';
import type { Leadership } from './leadership.js';
import { PaperAccount, paperFillsOf } from './paper-account.js';
import { riskSettingsOf } from './risk-settings.js';
import { exitRulesOf, rulesOf } from './rules.js';
import { PostgresLeadership } from './postgres-leadership.js';
import { SignalDispatcher } from './signal-dispatch.js';
import type { SizingSettings } from './entry-sizing.js';
import { openStrategyStores, type StrategyStores } from './store/index.js';
import { symbolOf } from './symbols.js';
import { shareLeaderView, StrategyControl } from './strategy-control.js';

/** What the service is made of from outside its domain: a test gives its own (a manual clock, a database in memory, fake services). */
export interface StrategyParts {
  clock: Clock;
  logger?: Logger;
  /** The strategy's records (strategy.db, or PostgreSQL with DATABASE_URL). */
  stores: StrategyStores;
  /** Candles and quotes: the market-data service, or the in-process simulated market. */
  source: MarketSource;
  /** Set with EXECUTION_URL: orders of signals started with dry_run false. */
  execution?: ExecutionClient;
  /** Set with NOTIFICATION_URL: each signal is announced. */
  notification?: NotificationClient;
  /** Set with ACCOUNT_URL: status.account. */
  account?: AccountClient;
  /** The strategy lab: its results (lab.db, or PostgreSQL with DATABASE_URL), the history it backtests on (the same market as `source`), its worker threads. */
  lab: LabDeps;
  /** Set with DATABASE_URL: the election among the replicas on the database. Unset: this process is the only one, and leads. */
  leadership?: Leadership;
}

/** Every object of the service, each built once (buildDeps): its parts, and the domain the app's routes call. */
export interface StrategyDeps extends StrategyParts {
  logger: Logger;
  metrics: MetricsRegistry;
  /** The strategy's domain: spec 000's records, the engine and what it drives, the console's event hub. */
  strategy: StrategyControl;
  /** The console's logins. */
  sessions: ConsoleSessions;
  /** The console's reads of the other services. */
  reads: ConsoleReads;
  /** GET /trades and GET /performance. */
  journal: JournalReads;
  /** The strategy lab's jobs. */
  labJobs: LabJobs;
  /** The leader's announcements of fills, exits and each day's summary. */
  announcements: Announcements;
  /** The desk's risk books, live and paper: asked before every entry, halted by the daily loss or the drawdown (GET /risk). */
  risk: DeskRisk;
  /** With EXECUTION_URL: the live side of the journal, read from the execution service's deals. */
  liveJournal?: LiveJournal;
  /** Closes what was opened for the app (after the app has closed). */
  close: () => Promise<void>;
}

/**
 * How long the lab waits for a page of history from the market-data service: a background job's
 * read, which a busy machine may slow for seconds, where a live call keeps DOWNSTREAM_TIMEOUT_MS.
 */
export const LAB_HISTORY_TIMEOUT_MS = 60_000;

/** The real dependencies the config asks for: a downstream client for each URL set, else the in-process market for prices. */
export async function createDeps(config: StrategyConfig, logger: Logger): Promise<StrategyDeps> {
  const clock = systemClock;
  const client = <T>(url: string | undefined, apiKey: string | undefined, make: (options: ClientOptions) => T) =>
    url === undefined ? undefined : make({ baseUrl: url, apiKey, timeoutMs: config.DOWNSTREAM_TIMEOUT_MS });
  const stores = await openStrategyStores({ databaseUrl: config.DATABASE_URL, file: databasePath(config.DATA_DIR, 'strategy') });
  const marketData = client(config.MARKET_DATA_URL, config.MARKET_DATA_API_KEY, (o) => new MarketDataClient(o));
  // The lab's own client: a job's page of history may take longer than a live call on a busy machine.
  const labMarketData = client(
    config.MARKET_DATA_URL,
    config.MARKET_DATA_API_KEY,
    (o) => new MarketDataClient({ ...o, timeoutMs: Math.max(config.DOWNSTREAM_TIMEOUT_MS, LAB_HISTORY_TIMEOUT_MS) }),
  );
  const market = marketData
    ? undefined
    : new SimulatedMarket({ seed: config.SIM_SEED, tickIntervalMs: config.SIM_TICK_INTERVAL_MS, marketHours: config.SIM_MARKET_HOURS, clock });
  const source: MarketSource = marketData ? new MarketDataSource(marketData, clock) : new SimulatedSource(market as SimulatedMarket);
  const replicaId = config.REPLICA_ID;
  const pool = new LabPool({ workers: config.LAB_WORKERS });
  // Without DATABASE_URL one process holds lab.db (its DATA_DIR lock): every job in it is this process's to resume or fail.
  const labStore: LabStore = await SqlLabStore.open({
    databaseUrl: config.DATABASE_URL,
    file: databasePath(config.DATA_DIR, 'lab'),
    replicaId: config.DATABASE_URL === undefined ? undefined : replicaId,
  });
  const execution = client(config.EXECUTION_URL, config.EXECUTION_API_KEY, (o) => new ExecutionClient(o));
  const lab: LabDeps = {
    store: labStore,
    ...labHistoriesOf(config, labMarketData, clock, market),
    hours: historyHoursOf(config),
    runner: pool,
    // Sizing by risk, in the lab and on the paper account, reads the venue's volume terms: the execution service's, else the simulated terminal's.
    terms: execution ? new ExecutionLabTerms(execution) : new SimulatedLabTerms(),
  };
  const leadership = config.DATABASE_URL
    ? new PostgresLeadership({ url: config.DATABASE_URL, replicaId, clock, logger, checkMs: config.LEADER_CHECK_MS })
    : undefined;
  const notification = client(config.NOTIFICATION_URL, config.NOTIFICATION_API_KEY, (o) => new NotificationClient(o));
  const account = client(config.ACCOUNT_URL, config.ACCOUNT_API_KEY, (o) => new AccountClient(o));
  return buildDeps(config, { clock, logger, stores, source, execution, notification, account, lab, leadership }, async () => {
    await leadership?.stop();
    await Promise.allSettled([source.close(), execution?.close(), notification?.close(), account?.close(), labMarketData?.close(), pool.close()]);
    await Promise.all([stores.close(), lab.store.close()]);
  });
}

/**
 * Builds the service's objects on its parts, each once: the domain's parts tell one another what
 * changed (the engine, the dispatcher, the paper account and the downstream health tell the event
 * hub; the hub reads the status and the pairs back), so some are reached through the ones made
 * after them, once all are made.
 */
export function buildDeps(config: StrategyConfig, parts: StrategyParts, close: () => Promise<void>): StrategyDeps {
  const { clock, stores, source, leadership } = parts;
  const logger = parts.logger ?? createLogger({ name: 'strategy', level: config.LOG_LEVEL });
  const metrics = new MetricsRegistry();
  const feed = new DeskFeed({ log: stores.events, logger, onEvents: (logged) => strategy.onDeskEvents(logged) });
  const events = new EventHub({
    clock,
    logger,
    metrics,
    replay: config.EVENTS_REPLAY,
    maxClients: config.EVENTS_MAX_CLIENTS,
    status: () => strategy.status(),
    pairRecord: (instrument) => engine.pairRecord(instrument),
    pairRecords: () => engine.pairRecords(),
    desk: feed,
  });
  const risk = new DeskRisk({
    ...deskRiskOptionsOf(config),
    store: stores.risk,
    isLeading: () => engine.leads,
    now: () => clock.now(),
    logger,
    flatten: async (name, halt) => (await strategy.flattenAccount(name, `risk-halt-${name}-${halt.at}`)).error === null,
    announce: () => void announcements.sweep(),
    equityNow: async (name) =>
      name === 'paper' ? (await strategy.paperAccount()).equity : account.source === 'account_service' ? ((await account.current())?.equity ?? null) : null,
  });
  const health = new DownstreamHealth(
    { market_data: source.name === 'market-data', execution: !!parts.execution, account: !!parts.account, notification: !!parts.notification },
    clock,
    logger,
    metrics,
    events,
    leadership ? shareLeaderView(stores.downstream, logger) : undefined,
  );
  // Every entry, live and paper, is sized the same way (entry-sizing.ts), on the terms of the venue the lab reads.
  const venueTerms = parts.lab.terms ?? new SimulatedLabTerms();
  const sizing: SizingSettings = { riskPercent: riskSettingsOf(config).riskPercent, fixedLots: config.TRADE_VOLUME };
  const paper = new PaperAccount({
    sizing,
    risk,
    signals: stores.signals,
    priceOf: (instrument) => engine.pair(instrument)?.currentPrice ?? null,
    // The venue's terms, as the lab reads them; one that does not answer skips the entry (no_volume_terms).
    terms: (instrument) =>
      venueTerms.terms(symbolOf(instrument, config.SYMBOL_MAP)).catch((err: unknown) => {
        logger.warn({ err, instrument }, 'paper sizing: the venue’s terms of the symbol could not be read; the entry is skipped');
        return null;
      }),
    trades: stores.paperTrades,
    clock,
    startBalance: config.PAPER_BALANCE,
    leverage: config.PAPER_LEVERAGE,
    fills: paperFillsOf(config),
    exits: exitRulesOf(rulesOf(config)),
    rate: (from, to) => source.rate(from, to),
    events,
  });
  const dispatcher = new SignalDispatcher({
    signals: stores.signals,
    clock,
    logger,
    health,
    events,
    execution: parts.execution,
    notification: parts.notification,
    retries: config.DOWNSTREAM_RETRIES,
    volume: config.TRADE_VOLUME,
    source: config.SIGNAL_SOURCE,
    channels: config.NOTIFICATION_CHANNELS,
    onSubmitted: (signal, execution) => liveEntries?.submitted(signal, execution),
  });
  const liveJournal =
    parts.execution &&
    new LiveJournal({
      execution: parts.execution,
      journal: stores.journal,
      signals: stores.signals,
      source: config.SIGNAL_SOURCE,
      now: () => clock.now(),
      logger,
      isLeading: () => engine.leads,
      intervalMs: config.LIVE_JOURNAL_SYNC_SECONDS * 1000,
      onJournaled: async (trade): Promise<void> => liveEntries?.closedTrade(trade),
    });
  const liveEntries: LiveEntries | undefined =
    parts.execution &&
    new LiveEntries({
      execution: parts.execution,
      signals: stores.signals,
      journal: stores.journal,
      openIds: async () => (await stores.risk.riskStates()).live?.open.map((p) => p.id) ?? [],
      sizing,
      risk,
      equity: () => account.liveEquity(),
      rate: (from, to) => source.rate(from, to),
      source: config.SIGNAL_SOURCE,
      symbolMap: config.SYMBOL_MAP,
      candleMs: TIMEFRAME_SECONDS[config.TIMEFRAME] * 1000,
      whenSent: () => dispatcher.whenIdle(),
      syncJournal: liveJournal && (() => liveJournal.sync()),
      now: () => clock.now(),
      logger,
    });
  const engine: StrategyEngine = new StrategyEngine({
    isLeading: leadership === undefined,
    announce: leadership && ((run) => leadership.announce(run)),
    config,
    clock,
    logger,
    metrics,
    source,
    signals: stores.signals,
    runs: stores.runs,
    dispatcher,
    paper,
    liveEntries,
    liveExits:
      parts.execution &&
      new LiveExits({
        execution: parts.execution,
        signals: stores.signals,
        rules: exitRulesOf(rulesOf(config)),
        fills: paperFillsOf(config),
        source: config.SIGNAL_SOURCE,
        now: () => clock.now(),
        logger,
      }),
    health,
    events,
  });
  liveJournal?.start();
  const announcements = new Announcements({
    stores,
    notification: parts.notification,
    clock,
    logger,
    health,
    isLeading: () => engine.leads,
    source: config.SIGNAL_SOURCE,
    channels: config.NOTIFICATION_CHANNELS,
    kinds: { fills: config.ANNOUNCE_FILLS, exits: config.ANNOUNCE_EXITS, daily: config.ANNOUNCE_DAILY_SUMMARY },
    dailyHourUtc: config.DAILY_SUMMARY_UTC_HOUR,
    dailyDelayMs: (2 * config.LIVE_JOURNAL_SYNC_SECONDS + 60) * 1000,
  });
  announcements.start();
  const account = new AccountView({
    client: parts.account,
    health,
    clock,
    refreshMs: config.ACCOUNT_REFRESH_SECONDS * 1000,
    paper: () => strategy.paperAccount(),
    // The live equity, as the strategy reads it, is the live book's mark (the daily loss, the drawdown).
    onRead: (equity, _currency, ms) => void risk.markEquity('live', ms, equity),
  });
  const strategy: StrategyControl = new StrategyControl({
    config,
    clock,
    logger,
    version: pkg.version,
    stores,
    source,
    leadership,
    engine,
    dispatcher,
    events,
    feed,
    health,
    paper,
    account,
    execution: parts.execution,
    liveJournal,
    risk,
  });
  const sessions = new ConsoleSessions({
    password: config.CONSOLE_PASSWORD,
    clock,
    lifetimeMs: config.CONSOLE_SESSION_HOURS * 3_600_000,
    store: stores.sessions,
  });
  const reads = new ConsoleReads({ config, account: parts.account, execution: parts.execution, notification: parts.notification });
  const labJobs = new LabJobs({ config, lab: parts.lab, clock, logger, listener: events });
  const journal = new JournalReads({
    journal: stores.journal,
    paperBalance: config.PAPER_BALANCE,
    liveBalance: () => liveBalanceOf(account),
    now: () => clock.now(),
  });
  const closeAll = async () => {
    await Promise.all([liveJournal?.close(), announcements.close(), risk.whenIdle()]);
    await close();
  };
  return { ...parts, logger, metrics, strategy, sessions, reads, labJobs, journal, liveJournal, announcements, risk, close: closeAll };
}

/** The live balance a journal's performance starts from: the account service's (404 without ACCOUNT_URL, 503 when it cannot be read). */
async function liveBalanceOf(account: AccountView): Promise<number> {
  if (account.source !== 'account_service') throw errors.create('not_configured', 'ACCOUNT_URL is not set: the live balance is unknown');
  const now = await account.current();
  if (now === null) throw errors.create('downstream_unavailable', 'the account service cannot answer now: the live balance is unknown');
  return now.balance;
}
