import { ServiceError, type ExecutionClient } from '@fxdesk/client';
import type { Clock } from '@fxdesk/primitives';
import type {
  DownstreamService,
  DownstreamState,
  LatestSignalResponse,
  PairCandles,
  PairRecord,
  RestartResponse,
  SignalHistory,
  SignalHistoryQuery,
  StartRequest,
  StartResponse,
  StopClosed,
  StopRequest,
  StopResponse,
  StrategyAccount,
  StrategyHealth,
  StrategySignal,
  StrategyStatus,
  Timeframe,
} from '@fxdesk/schemas';
import type { Logger } from 'pino';
import type { AccountView } from './account-view.js';
import type { StrategyConfig } from './config.js';
import type { DeskFeed } from './desk-feed.js';
import type { DeskRisk, RiskAccount } from './desk-risk.js';
import type { DownstreamHealth } from './downstream.js';
import type { StrategyEngine } from './engine.js';
import { downstreamFailure, errors, refuseParameter } from './errors.js';
import type { EventHub } from './event-hub.js';
import type { Leadership } from './leadership.js';
import type { LiveJournal } from './live-journal.js';
import type { MarketSource } from './market-source.js';
import type { PaperAccount } from './paper-account.js';
import { latestWrite } from './latest-write.js';
import { PairTracker, trackerSettings } from './pair-tracker.js';
import type { SignalDispatcher } from './signal-dispatch.js';
import { utcDay, type DeskEvent, type DownstreamStateStore, type StrategyStores } from './store/index.js';

/** What the domain is made of, each part built once by deps.ts. */
export interface StrategyControlOptions {
  config: StrategyConfig;
  clock: Clock;
  logger: Logger;
  /** The service's version, for the health record. */
  version: string;
  stores: StrategyStores;
  source: MarketSource;
  /** Set with DATABASE_URL: the election among the replicas on the database. */
  leadership?: Leadership;
  engine: StrategyEngine;
  dispatcher: SignalDispatcher;
  /** The console's event hub, which every part tells what changed. */
  events: EventHub;
  /** This replica's reader of the desk's event log. */
  feed: DeskFeed;
  health: DownstreamHealth;
  paper: PaperAccount;
  account: AccountView;
  /** Set with EXECUTION_URL: closes the positions of a stop with close_positions. */
  execution?: ExecutionClient;
  /** Set with EXECUTION_URL: journals the closed live positions (told which a stop flattened). */
  liveJournal?: LiveJournal;
  /** The desk's risk books: read back from the store before this process trades. */
  risk: DeskRisk;
}

/** The message of a close's answer: the error envelope's, or none. */
function answerMessage(answer: unknown): string | null {
  return typeof answer === 'object' && answer !== null && 'message' in answer && typeof answer.message === 'string' ? answer.message : null;
}

const iso = (ms: number) => new Date(ms).toISOString();
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

function describeRun(run: { instruments: string[]; dryRun: boolean }): string {
  return `${plural(run.instruments.length, 'instrument')} (${run.instruments.join(', ')})${run.dryRun ? ', paper trading' : ''}`;
}

function runScope(run: { instruments: string[]; dryRun: boolean }): { instruments: string[]; dry_run: boolean } {
  return { instruments: run.instruments, dry_run: run.dryRun };
}

/** Cursors are opaque to clients: the seq of the last signal of a page, base64url. */
function encodeCursor(seq: number): string {
  return Buffer.from(`s${seq}`).toString('base64url');
}

function decodeCursor(cursor: string): number {
  const m = /^s(\d{1,15})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!m) refuseParameter('query.cursor', 'not a cursor this service issued');
  return Number(m[1]);
}

/** The services only the leader calls: a follower shows the leader's view of them. */
const LEADER_CALLS: readonly DownstreamService[] = ['execution', 'notification'];

/** The desk events after which the status record has moved. */
const STATUS_EVENTS = new Set<DeskEvent['name']>(['signal', 'order', 'delivery']);

/**
 * The leader's view of the services only it calls, kept in the store for the followers' status
 * (the newest of each, one write at a time): DownstreamHealth's `share` on a replica.
 */
export function shareLeaderView(
  store: Pick<DownstreamStateStore, 'saveDownstream'>,
  logger: Logger,
): (service: DownstreamService, state: DownstreamState) => void {
  const onError = (err: unknown) => logger.warn({ err }, 'keeping the downstream state for the followers failed');
  const writers = new Map(LEADER_CALLS.map((service) => [service, latestWrite((state: DownstreamState) => store.saveDownstream(service, state), { onError })]));
  return (service, state) => writers.get(service)?.(state);
}

/**
 * The strategy control service's domain, made once per app (deps.ts builds it and what it
 * drives: the engine, the signal dispatcher, the paper account, the downstream health, the
 * account view, the console's event hub and the desk's event log it reads): the records spec
 * 000's endpoints answer with, the start at boot and, as a replica, the election.
 */
export class StrategyControl {
  readonly engine: StrategyEngine;
  readonly dispatcher: SignalDispatcher;
  readonly events: EventHub;
  readonly startedAt: number;

  constructor(private readonly options: StrategyControlOptions) {
    this.engine = options.engine;
    this.dispatcher = options.dispatcher;
    this.events = options.events;
    this.startedAt = options.clock.now();
  }

  /** The kit's readiness checks: the signal database answers; this replica leads or follows, and which one leads. */
  readinessChecks() {
    const { stores, leadership } = this.options;
    return {
      database: () => stores.health(),
      leader: () => leadership?.check() ?? { ok: true, detail: 'leader: the only replica (no DATABASE_URL)' },
    };
  }

  /**
   * At process start, alone: sends what a previous run left unsent, then resumes the run the
   * previous process left running, or auto-starts a fresh desk, in the background: the app
   * answers at once and the pairs warm up as after a POST /start. A failure is logged; POST
   * /start still works. As a replica: takes part in the election (see lead, follow).
   */
  async startAtBoot(): Promise<void> {
    const { config, logger, feed, leadership } = this.options;
    await feed.start();
    if (leadership) return this.joinElection(leadership);
    // A halt of before the restart holds before the first entry can go out.
    await this.options.risk.load();
    void this.resumeUnfinished();
    this.engine.startAtBoot({ resume: config.RESUME_ON_START, autoStart: config.AUTO_START }).then(
      (how) => {
        if (how === 'resumed') logger.info({ ...this.engine.state }, 'resumed the strategy that was running before the restart');
        if (how === 'started') logger.info({ ...this.engine.state }, 'started the strategy by itself (AUTO_START); POST /stop stops it');
      },
      (err: unknown) => logger.error({ err }, 'could not start the strategy at boot; POST /start to start it'),
    );
  }

  /**
   * One replica of several: it runs what the store records (following the market for /pairs and
   * /status) and, while it leads, the engine's decisions and sends: on taking the lead it resumes
   * the sends the replica before left pending. A follower shows the leader's new signals as the
   * store has them.
   */
  private joinElection(leadership: Leadership): void {
    leadership.start({
      lead: async () => {
        // The halt the leader before stored holds before this one trades.
        await this.options.risk.load();
        await this.engine.lead({ autoStart: this.options.config.AUTO_START });
        await this.resumeUnfinished();
      },
      follow: () => {
        this.engine.follow();
        this.dispatcher.standDown();
      },
      sync: async () => {
        await this.engine.syncRun();
        await this.options.feed.pull();
        if (!leadership.isLeader) await this.followDownstream();
        else await this.options.risk.sync();
      },
    });
  }

  /** Desk events read from the log (DeskFeed's `onEvents`): on /events, a follower's pairs told the leader's signals, a new status. */
  onDeskEvents(events: DeskEvent[]): void {
    this.events.publishDesk(events);
    for (const event of events) if (event.name === 'signal') this.engine.noteSignal(JSON.parse(event.data) as StrategySignal);
    if (events.some((event) => STATUS_EVENTS.has(event.name))) this.events.statusChanged();
  }

  /** A follower's status shows the services only the leader calls as the leader last saw them. */
  private async followDownstream(): Promise<void> {
    try {
      const states = await this.options.stores.downstream.downstreamStates();
      for (const service of LEADER_CALLS) {
        const state = states[service];
        if (state) this.options.health.adopt(service, state);
      }
    } catch (err) {
      this.options.logger.warn({ err }, "reading the leader's view of the downstream services failed");
    }
  }

  private async resumeUnfinished(): Promise<void> {
    try {
      const resumed = await this.dispatcher.resumeUnfinished();
      if (resumed > 0) this.options.logger.info({ signals: resumed }, 'sending signals a previous run left unsent');
    } catch (err) {
      this.options.logger.error({ err }, 'could not read the signals a previous run left unsent');
    }
  }

  /**
   * Spec 000's health record: `healthy` while the signal database answers, else `unhealthy` (the
   * strategy could not record signals; logged on `log`). A failing downstream service does not
   * make the strategy unhealthy: it shows in the status record.
   */
  async healthRecord(log: Pick<Logger, 'error'>): Promise<StrategyHealth> {
    const database = await this.options.stores.health();
    const healthy = database.ok;
    if (!healthy) log.error({ detail: database.detail }, 'the signal database does not answer');
    const now = this.options.clock.now();
    return {
      status: healthy ? 'healthy' : 'unhealthy',
      timestamp: iso(now),
      uptime_seconds: Math.max(0, Math.floor((now - this.startedAt) / 1000)),
      version: this.options.version,
    };
  }

  /** Spec 000's status record, with the downstream services' health. */
  async status(): Promise<StrategyStatus> {
    const { engine } = this;
    const { stores, clock, account, health, config } = this.options;
    const state = engine.state;
    const [today, lastSignalTime, current, paper] = await Promise.all([
      stores.signals.countOnDay(utcDay(clock.now())),
      stores.signals.lastSignalTime(),
      account.current(),
      this.paperAccount(),
    ]);
    return {
      running: engine.isRunning,
      started_at: state.startedAt === null ? null : iso(state.startedAt),
      active_pairs: state.instruments,
      total_signals_today: today,
      last_signal_time: lastSignalTime ?? null,
      account: current,
      account_source: account.source,
      paper_account: paper,
      dry_run: state.dryRun,
      idle: engine.idle,
      timeframe: config.TIMEFRAME,
      downstream: health.view(),
    };
  }

  /** The paper account, its open trades marked to the pairs' current prices. */
  paperAccount(): Promise<StrategyAccount> {
    return this.options.paper.snapshot((instrument) => this.engine.pair(instrument)?.currentPrice ?? null);
  }

  /** Most candles GET /pairs/{instrument}/candles answers with (CHART_CANDLES). */
  get chartCandles(): number {
    return this.options.config.CHART_CANDLES;
  }

  pairs(): PairRecord[] {
    return this.engine.pairRecords();
  }

  /**
   * The newest `limit` closed candles of a monitored pair, with each indicator after each: on
   * TIMEFRAME, the pair's own; on another timeframe, its history read from the market now (with
   * WARMUP_CANDLES more before it) and run through fresh indicators with the strategy's settings.
   */
  async pairCandles(instrument: string, limit: number, timeframe: Timeframe = this.options.config.TIMEFRAME): Promise<PairCandles> {
    const { config, source } = this.options;
    const pair = this.engine.pair(instrument);
    if (!pair) throw errors.create('instrument_not_found', `${instrument.slice(0, 64)} is not a monitored pair; GET /pairs lists them`);
    if (timeframe === config.TIMEFRAME) return { instrument, timeframe, candles: pair.chartCandles(limit) };
    const history = await source
      .closedCandles(pair.symbol, timeframe, limit + config.WARMUP_CANDLES)
      .catch((err: unknown) => Promise.reject(downstreamFailure(err, 'market-data')));
    const chart = new PairTracker(instrument, pair.symbol, pair.digits, trackerSettings(config, timeframe, limit));
    chart.ingest(history);
    return { instrument, timeframe, candles: chart.chartCandles(limit) };
  }

  /** The latest signal of a pair the desk knows (`signal` null and a message when it has none yet). */
  async latestSignal(instrument: string): Promise<LatestSignalResponse> {
    if (!(await this.engine.isKnownInstrument(instrument))) {
      throw errors.create('instrument_not_found', `unknown instrument ${JSON.stringify(instrument.slice(0, 64))}; names look like EUR_USD`);
    }
    const signal = await this.options.stores.signals.latest(instrument);
    return signal ? { instrument, signal } : { instrument, signal: null, message: `no signal for ${instrument} yet` };
  }

  /** Signal history, newest first, a page at a time. */
  async history({ instrument, limit, cursor }: SignalHistoryQuery): Promise<SignalHistory> {
    const page = await this.options.stores.signals.page({ instrument, limit, before: cursor === undefined ? undefined : decodeCursor(cursor) });
    return { signals: page.signals, next_cursor: page.nextBefore === null ? null : encodeCursor(page.nextBefore) };
  }

  async start(request: StartRequest): Promise<StartResponse> {
    const started = await this.engine.start(request);
    return { success: true, message: `strategy started on ${describeRun(started)}`, started_at: iso(started.startedAt), ...runScope(started) };
  }

  /** Stops the run; with `close_positions`, then closes what it opened (README "Stop and flatten"). */
  async stop(request: StopRequest = {}): Promise<StopResponse> {
    const stopped = await this.engine.stop();
    const message = `strategy stopped after ${plural(stopped.signalsGenerated, 'signal')}`;
    const response = { success: true, message, stopped_at: iso(stopped.stoppedAt), signals_generated: stopped.signalsGenerated };
    if (!request.close_positions) return response;
    const closed = await this.flattenAccount(stopped.dryRun ? 'paper' : 'live', `strategy-stop-${stopped.stoppedAt}`);
    const done = closed.positions.filter((p) => p.state === 'done').length;
    return { ...response, message: `${message}; ${plural(done, 'position')} of ${closed.positions.length} closed`, closed };
  }

  /**
   * Closes everything the strategy opened on `account` (a stop with close_positions, a halt with
   * HALT_FLATTEN); `key` is the live close-all's Idempotency-Key.
   */
  flattenAccount(account: RiskAccount, key: string): Promise<StopClosed> {
    return account === 'paper' ? this.flattenPaper() : this.flattenLive(key);
  }

  private async flattenPaper(): Promise<StopClosed> {
    const quoteOf = (instrument: string) => {
      const pair = this.engine.pair(instrument);
      const price = pair?.currentPrice ?? null;
      return pair && price !== null ? { price, digits: pair.digits } : null;
    };
    return { account: 'paper', positions: await this.options.paper.flatten(quoteOf, 'flatten'), error: null };
  }

  /**
   * Every position of the strategy's orders (their comment's source, SIGNAL_SOURCE) closed by the
   * execution service's close-all, under a key of this stop or halt: its retries replay, never close twice.
   */
  private async flattenLive(key: string): Promise<StopClosed> {
    const execution = this.options.execution;
    if (!execution) return { account: 'live', positions: [], error: 'EXECUTION_URL is not set: the strategy sent no order' };
    try {
      const send = () => execution.closeAll(key, { source: this.options.config.SIGNAL_SOURCE });
      const { result } = await (this.options.liveJournal?.flatten(send) ?? send());
      return { account: 'live', positions: result.positions.map((p) => ({ ticket: p.ticket, state: p.state, message: answerMessage(p.answer) })), error: null };
    } catch (err) {
      if (!(err instanceof ServiceError)) throw err;
      this.options.logger.error({ err }, 'stop: closing the positions failed');
      return { account: 'live', positions: [], error: `the execution service did not close the positions (${err.code}: ${err.message}); close them there` };
    }
  }

  async restart(): Promise<RestartResponse> {
    const restarted = await this.engine.restart();
    return { success: true, message: `strategy restarted on ${describeRun(restarted)}`, restarted_at: iso(restarted.restartedAt), ...runScope(restarted) };
  }
}
