import { AppError, type MetricsRegistry } from '@fxdesk/core';
import { backoffDelayMs, type Backoff, type Clock, type TimerHandle } from '@fxdesk/primitives';
import {
  InstrumentNameSchema,
  TIMEFRAME_SECONDS,
  type ChartCandle,
  type PairRecord,
  type StartRequest,
  type StrategyIdle,
  type StrategySignal,
} from '@fxdesk/schemas';
import type { Logger } from 'pino';
import type { StrategyConfig } from './config.js';
import type { DownstreamHealth } from './downstream.js';
import { errors } from './errors.js';
import type { EventHub } from './event-hub.js';
import type { MarketSource, QuoteSubscription, SourceSymbol } from './market-source.js';
import { skippedExecution, type LiveEntries } from './live-entries.js';
import type { LiveExits } from './live-exits.js';
import type { PaperAccount } from './paper-account.js';
import { PairTracker, trackerSettingsOf, type TrackerSettings } from './pair-tracker.js';
import { rulesOf, type StrategyRules } from './rules.js';
import type { SignalDispatcher } from './signal-dispatch.js';
import { signalIdFor } from './signal-id.js';
import { decide, ruleSettingsOf, signalIndicators, type RuleCandle } from './signal-rule.js';
import type { RunChange, RunState, RunStore, SignalStore } from './store/index.js';
import { symbolOf } from './symbols.js';

export interface EngineOptions {
  config: StrategyConfig;
  clock: Clock;
  logger: Logger;
  metrics: MetricsRegistry;
  source: MarketSource;
  signals: SignalStore;
  runs: RunStore;
  dispatcher: SignalDispatcher;
  paper: PaperAccount;
  /** Set with EXECUTION_URL: the exit rules on the live account's positions. */
  liveExits?: LiveExits;
  /** Set with EXECUTION_URL: each live signal's size and the risk limits before it is sent. */
  liveEntries?: LiveEntries;
  health: DownstreamHealth;
  events: EventHub;
  /** Whether this engine decides from the start (default); a replica's starts following. */
  isLeading?: boolean;
  /** Told each change of the run recorded here, for the other replicas to run at once (Leadership.announce). */
  announce?: (run: RunState) => void;
}

interface Run {
  /** The recorded run this one applies. */
  generation: number;
  startedAt: number;
  instruments: string[];
  dryRun: boolean;
  subscription: QuoteSubscription | undefined;
  timer: TimerHandle | undefined;
}

type StartedRun = { startedAt: number; instruments: string[]; dryRun: boolean };

/** Prices of a pair are written with this many digits when the market's catalog cannot be read. */
const FALLBACK_DIGITS = 5;
/** The waits before asking the market again after a failed read: 1 s, 2 s, 4 s… up to 30 s. */
const RETRY_BACKOFF: Backoff = { baseMs: 1000, capMs: 30_000 };

/** Boot reads of the catalog (at 0, 1, 3 and 7 s) that may fail before it counts as a failure. */
const QUIET_BOOT_TRIES = 4;

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The strategy: started, stopped and restarted by the API; while running, each monitored pair
 * is warmed up from history, then fed each closed candle of TIMEFRAME as it closes (a timer on
 * the clock at every candle boundary + CANDLE_CLOSE_DELAY_MS asks the source for what closed),
 * and the signal rule decides on the newest candle. Quotes keep `current_price` and freshness.
 *
 * The run is recorded in the store, and each start, stop or restart is recorded only over the
 * state this engine last saw (its generation), so replicas on one store never both start a run.
 * Only a leading engine decides (signals, orders, announcements, paper trades); a following one
 * (another replica leads) tracks the same pairs from the market, for /pairs and /status, and
 * runs what the store records (`syncRun`).
 */
export class StrategyEngine {
  private run: Run | undefined;
  /** The generation of the recorded run this engine runs or saw stopped; undefined until read. */
  private generation: number | undefined;
  private isLeading: boolean;
  /** Starts, stops, restarts and syncs, one at a time. */
  private transitions: Promise<unknown> = Promise.resolve();
  private lastStart: { instruments: string[]; dryRun: boolean } | undefined;
  /** The run as this engine last read or recorded it (a stop's mode and time survive a restart of the process). */
  private recorded: RunState | undefined;
  /** The start at boot: under way, failed, or settled (nothing to start, or started). */
  private boot: 'starting' | 'failed' | undefined;
  private pairs = new Map<string, PairTracker>();
  private bySymbol = new Map<string, PairTracker>();
  /**
   * The pairs in instrument-name order, the order their candles of one close are asked for: the
   * paper account then takes them as the lab takes candles of one time (entries at one open meet
   * the limits in that order), whatever order INSTRUMENTS lists them in.
   */
  private polled: PairTracker[] = [];
  /** Pairs with a candle poll in flight, and whether another close came meanwhile (poll again after). */
  private readonly polling = new Map<PairTracker, boolean>();
  private isClosed = false;
  /** Consecutive failed polls of each pair, for the delay of its next try. */
  private failedPolls = new Map<PairTracker, number>();
  private readonly tasks = new Set<Promise<void>>();
  private readonly timeframeMs: number;
  /** The rule's settings, from the config: the same type a backtest runs with. */
  private readonly rules: StrategyRules;
  private readonly trackerSettings: TrackerSettings;
  private readonly signals;
  private readonly candles;

  constructor(private readonly o: EngineOptions) {
    this.isLeading = o.isLeading ?? true;
    const c = o.config;
    this.timeframeMs = TIMEFRAME_SECONDS[c.TIMEFRAME] * 1000;
    this.rules = rulesOf(c);
    this.trackerSettings = trackerSettingsOf(this.rules, c.TIMEFRAME, c.CHART_CANDLES);
    this.signals = o.metrics.counter('strategy_signals_total', 'Signals generated, by instrument and type.');
    this.candles = o.metrics.counter('strategy_candles_total', 'Closed candles fed to the indicators, by instrument.');
    o.metrics.gauge('strategy_running', '1 while the strategy runs.', () => (this.run ? 1 : 0));
    o.metrics.gauge('strategy_leader', '1 while this replica leads (decides and sends); always 1 for a sole process.', () => (this.isLeading ? 1 : 0));
    o.metrics.gauge('strategy_pairs', 'Monitored pairs by status.', () => {
      const counts = new Map<string, number>();
      for (const record of this.pairRecords()) counts.set(record.status, (counts.get(record.status) ?? 0) + 1);
      return [...counts].map(([status, n]) => [{ status }, n]);
    });
  }

  get isRunning(): boolean {
    return this.run !== undefined;
  }

  /** The running start, or the last one when stopped (for /status). */
  get state(): { startedAt: number | null; instruments: string[]; dryRun: boolean | null } {
    return {
      startedAt: this.run?.startedAt ?? null,
      instruments: this.run ? [...this.run.instruments] : [],
      dryRun: this.run?.dryRun ?? this.lastStart?.dryRun ?? this.recorded?.dryRun ?? null,
    };
  }

  /** Why the strategy is not running, for /status; null while it runs. */
  get idle(): StrategyIdle | null {
    if (this.run) return null;
    const recorded = this.recorded;
    const startAgain = 'POST /start (or Start on the console) starts it';
    if (this.boot === 'starting') {
      const what = recorded?.running ? 'resuming the run the last shutdown interrupted' : 'starting by itself on INSTRUMENTS (AUTO_START)';
      return { reason: 'starting', message: `${what}, once the market lists its symbols`, since: null };
    }
    if (this.boot === 'failed') return { reason: 'start_failed', message: `the start at boot failed (see the log); ${startAgain}`, since: null };
    if (!recorded) return { reason: 'never_started', message: `never started on this database, and AUTO_START is off; ${startAgain}`, since: null };
    if (recorded.running) {
      return {
        reason: 'not_resumed',
        message: `running when the service last stopped, not resumed (RESUME_ON_START=false); ${startAgain}`,
        since: recorded.changedAt,
      };
    }
    return {
      reason: 'stopped',
      message: `stopped at ${recorded.changedAt} (POST /stop, or Stop on the console); a stop outlasts restarts of the service until ${startAgain}`,
      since: recorded.changedAt,
    };
  }

  get leads(): boolean {
    return this.isLeading;
  }

  async start(request: StartRequest): Promise<StartedRun> {
    return this.serially(async () => {
      await this.readGeneration();
      return this.startNow(request);
    });
  }

  /** Stops the strategy as asked through the API: a restarted process, or another replica, will not resume it. */
  async stop(): Promise<{ stoppedAt: number; signalsGenerated: number; dryRun: boolean }> {
    return this.serially(async () => {
      await this.readGeneration();
      const run = this.runOrRefuse();
      const signalsGenerated = await this.o.signals.countSince(iso(run.startedAt));
      await this.record({ running: false, instruments: run.instruments, dryRun: run.dryRun, startedAt: iso(run.startedAt) });
      return { ...this.halt(), signalsGenerated, dryRun: run.dryRun };
    });
  }

  /** Stop, then start again with the same instruments and dry_run. */
  async restart(): Promise<{ restartedAt: number; instruments: string[]; dryRun: boolean }> {
    return this.serially(async () => {
      await this.readGeneration();
      const run = this.runOrRefuse();
      const catalog = await this.listedSymbols();
      if (catalog) this.refuseUnlisted(run.instruments, catalog, true);
      const state = await this.record({ running: true, instruments: run.instruments, dryRun: run.dryRun, startedAt: iso(this.o.clock.now()) });
      this.halt();
      const started = await this.begin(state, catalog);
      return { restartedAt: started.startedAt, instruments: [...started.instruments], dryRun: started.dryRun };
    });
  }

  /**
   * What a sole process does at start: resumes what was running when it last stopped (a crash, a
   * deploy, a reboot) with the same instruments and dry_run when `resume`, or starts on
   * INSTRUMENTS with dry_run false when `autoStart` and no run was ever recorded. A stop made
   * through the API is recorded, so it stays stopped either way.
   */
  async startAtBoot(options: { resume: boolean; autoStart: boolean }): Promise<'resumed' | 'started' | undefined> {
    const state = await this.serially(async () => {
      await this.readGeneration();
      return this.recorded;
    });
    const how = state?.running && options.resume ? 'resumed' : !state && options.autoStart ? 'started' : undefined;
    if (how === undefined) return undefined;
    this.boot = 'starting';
    this.o.events.statusChanged();
    try {
      // The market-data service may still be starting beside this one: wait until it lists its
      // symbols, so the pairs start with their real digits and a warm-up that can be read.
      if (!(await this.untilListed())) return undefined;
      return await this.serially(async () => {
        if (this.run) return undefined;
        await this.startNow(how === 'resumed' ? { instruments: state?.instruments, dry_run: state?.dryRun } : {});
        return how;
      });
    } catch (err) {
      this.boot = 'failed';
      throw err;
    } finally {
      if (this.boot === 'starting') this.boot = undefined;
      this.o.events.statusChanged();
    }
  }

  /**
   * Runs what the store records now (a replica: another one started, stopped or restarted the
   * run, or this one is taking the lead), keeping the pairs when the run is the one already
   * running.
   */
  async syncRun(): Promise<void> {
    await this.serially(async () => {
      const state = await this.o.runs.runState();
      if (state) await this.adopt(state);
    });
  }

  /**
   * This engine decides from now on (its replica took the lead): it first runs what the store
   * records, then decides on each pair's newest candle when it closed within the last timeframe
   * (the leader before may have died before deciding; a signal it stored is found, not made
   * again) and settles the paper trades on the candles the pairs hold. With `autoStart`, a desk
   * that never recorded a run starts on INSTRUMENTS once the market lists its symbols.
   */
  async lead(options: { autoStart: boolean }): Promise<void> {
    await this.syncRun();
    await this.serially(async () => {
      this.isLeading = true;
      const run = this.run;
      if (run) for (const pair of this.polled) this.track(this.catchUp(run, pair));
    });
    if (options.autoStart) this.track(this.autoStart());
  }

  /** This engine stops deciding (another replica leads, or may): its pairs go on following the market. */
  follow(): void {
    this.isLeading = false;
  }

  /**
   * A signal the desk's log told (the leader's, on a follower): its pair's last signal, when it
   * is the newest the pair has.
   */
  noteSignal(signal: StrategySignal): void {
    const pair = this.pairs.get(signal.instrument);
    if (!pair || (pair.lastSignal && pair.lastSignal.time >= signal.generated_at)) return;
    pair.lastSignal = { type: signal.type, time: signal.generated_at, entry_price: signal.entry_price };
    this.o.events.pairChanged(pair.instrument);
  }

  /** Runs `work` after every transition asked before it. */
  private serially<T>(work: () => Promise<T>): Promise<T> {
    const result = this.transitions.then(work);
    this.transitions = result.catch(() => undefined);
    return result;
  }

  private async readGeneration(): Promise<void> {
    if (this.generation !== undefined) return;
    this.recorded = await this.o.runs.runState();
    this.generation = this.recorded?.generation ?? 0;
  }

  private runOrRefuse(): Run {
    if (!this.run) throw errors.create('strategy_not_running', 'the strategy is not running; POST /start');
    return this.run;
  }

  private async startNow(request: StartRequest): Promise<StartedRun> {
    if (this.run) throw errors.create('strategy_already_running', 'the strategy is already running; POST /stop or POST /restart');
    const instruments = [...new Set(request.instruments ?? this.o.config.INSTRUMENTS)];
    const catalog = await this.listedSymbols();
    if (catalog) this.refuseUnlisted(instruments, catalog, request.instruments !== undefined);
    const state = await this.record({ running: true, instruments, dryRun: request.dry_run ?? false, startedAt: iso(this.o.clock.now()) });
    const run = await this.begin(state, catalog);
    return { startedAt: run.startedAt, instruments: [...run.instruments], dryRun: run.dryRun };
  }

  /**
   * Records a change over the generation this engine saw. When another replica recorded one
   * first, this engine runs that one instead and the change is refused as the state now stands.
   */
  private async record(change: RunChange): Promise<RunState> {
    const state = await this.o.runs.recordRun(change, iso(this.o.clock.now()), this.generation ?? 0);
    if (state) {
      this.generation = state.generation;
      this.recorded = state;
      this.boot = undefined;
      this.o.announce?.(state);
      return state;
    }
    const current = (await this.o.runs.runState()) as RunState;
    await this.adopt(current);
    if (current.running) throw errors.create('strategy_already_running', 'another replica started the strategy meanwhile; POST /stop or POST /restart');
    throw errors.create('strategy_not_running', 'another replica stopped the strategy meanwhile; POST /start');
  }

  /**
   * Runs a recorded state here. One that needs the market's catalog while the market cannot list
   * it is left for the next sync (the engine keeps the generation it had).
   */
  private async adopt(state: RunState): Promise<void> {
    if (state.generation === this.generation || this.isClosed) return;
    if (this.run && (!state.running || this.run.generation !== state.generation)) this.halt();
    if (state.running && !this.run) {
      const catalog = await this.listedSymbols(true);
      if (!catalog) return;
      await this.begin(state, catalog);
    }
    this.lastStart = { instruments: state.instruments, dryRun: state.dryRun };
    this.generation = state.generation;
    this.recorded = state;
  }

  /** AUTO_START on a replica taking the lead: a desk that never recorded a run starts once the market lists its symbols. */
  private async autoStart(): Promise<void> {
    const isFresh = async () => {
      await this.readGeneration();
      return this.generation === 0 && this.isLeading && !this.isClosed;
    };
    if (!(await this.serially(isFresh)) || !(await this.untilListed())) return;
    try {
      const started = await this.serially(async () => (await isFresh()) && (await this.startNow({})));
      if (started) this.o.logger.info({ ...this.state }, 'started the strategy by itself (AUTO_START); POST /stop stops it');
    } catch (err) {
      this.o.logger.error({ err }, 'could not start the strategy by itself (AUTO_START); POST /start to start it');
    }
  }

  /**
   * Waits until the market lists its symbols, asking again after 1 s, 2 s, 4 s…; false once
   * closed. The refusals of the first 7 s are a neighbour starting up, not yet a failure.
   */
  private async untilListed(): Promise<boolean> {
    for (let failures = 1; !this.isClosed; failures++) {
      if (await this.listedSymbols(failures <= QUIET_BOOT_TRIES)) return true;
      await new Promise<void>((resolve) => this.o.clock.setTimeout(resolve, backoffDelayMs(RETRY_BACKOFF, failures - 1)).unref());
    }
    return false;
  }

  /** Stops the run here without recording anything (a stop, a restart, a shutdown, another replica's change). */
  private halt(): { stoppedAt: number } {
    const run = this.runOrRefuse();
    this.run = undefined;
    run.subscription?.close();
    if (run.timer) this.o.clock.clearTimer(run.timer);
    this.o.logger.info({ generation: run.generation }, 'strategy stopped');
    this.o.events.statusChanged();
    this.o.events.pairsChanged();
    return { stoppedAt: this.o.clock.now() };
  }

  /** The monitored pairs (of the running start, or the last one when stopped), in start order. */
  pairRecords(): PairRecord[] {
    const now = this.o.clock.now();
    const staleMs = this.o.config.STALE_AFTER_SECONDS * 1000;
    return [...this.pairs.values()].map((pair) => pair.record(pair.status(this.run !== undefined, now, staleMs)));
  }

  /** The record of one monitored pair, as pairRecords() lists it. */
  pairRecord(instrument: string): PairRecord | undefined {
    const pair = this.pairs.get(instrument);
    return pair?.record(pair.status(this.run !== undefined, this.o.clock.now(), this.o.config.STALE_AFTER_SECONDS * 1000));
  }

  pair(instrument: string): PairTracker | undefined {
    return this.pairs.get(instrument);
  }

  /** Whether an instrument name is one this desk knows: monitored, configured, signalled, or listed by the market. */
  async isKnownInstrument(instrument: string): Promise<boolean> {
    if (!InstrumentNameSchema.safeParse(instrument).success) return false;
    if (this.pairs.has(instrument) || this.o.config.INSTRUMENTS.includes(instrument) || (await this.o.signals.hasInstrument(instrument))) return true;
    const catalog = await this.listedSymbols();
    return catalog?.has(symbolOf(instrument, this.o.config.SYMBOL_MAP)) ?? false;
  }

  /** Waits until no candle poll or downstream send is in flight (tests; shutdown). */
  async whenIdle(): Promise<void> {
    while (this.tasks.size > 0) await Promise.allSettled([...this.tasks]);
    await this.o.dispatcher.whenIdle();
  }

  async close(): Promise<void> {
    this.isClosed = true;
    if (this.run) this.halt();
    while (this.tasks.size > 0) await Promise.allSettled([...this.tasks]);
  }

  /** Runs a recorded run here: its pairs, their last signals, the quotes, the candle timer and the warm-up. */
  private async begin(state: RunState, catalog: Map<string, SourceSymbol> | undefined): Promise<Run> {
    const { config, clock } = this.o;
    const { instruments, dryRun } = state;
    const pairs = instruments.map((instrument) => {
      const symbol = symbolOf(instrument, config.SYMBOL_MAP);
      return new PairTracker(instrument, symbol, catalog?.get(symbol)?.digits ?? FALLBACK_DIGITS, this.trackerSettings);
    });
    const lastSignals = await Promise.all(instruments.map((instrument) => this.o.signals.latest(instrument)));
    const run: Run = { generation: state.generation, startedAt: Date.parse(state.startedAt), instruments, dryRun, subscription: undefined, timer: undefined };
    this.run = run;
    this.lastStart = { instruments, dryRun };
    this.pairs = new Map();
    this.bySymbol = new Map();
    this.failedPolls = new Map();
    pairs.forEach((pair, i) => {
      const last = lastSignals[i];
      if (last) pair.lastSignal = { type: last.type, time: last.generated_at, entry_price: last.entry_price };
      this.pairs.set(pair.instrument, pair);
      this.bySymbol.set(pair.symbol, pair);
    });
    run.subscription = this.o.source.subscribe([...this.bySymbol.keys()], {
      onQuote: (quote) => {
        const pair = this.bySymbol.get(quote.symbol);
        if (this.run !== run || !pair) return;
        // Fresh by the quote's own time: a stream opens with the latest quote, which over a
        // weekend is Friday's last, and that is no sign of a market trading now.
        pair.onQuote(quote, Math.min(quote.time, clock.now()));
        this.o.events.pairChanged(pair.instrument);
      },
      onHealthy: () => this.o.health.ok('market_data'),
      onTrouble: (err) => this.o.health.fail('market_data', err, { stream: 'ticks' }),
    });
    this.scheduleNextClose(run);
    this.polled = [...this.pairs.values()].sort((a, b) => (a.instrument < b.instrument ? -1 : a.instrument > b.instrument ? 1 : 0));
    for (const pair of this.polled) this.track(this.poll(run, pair));
    this.o.logger.info({ instruments, dryRun, timeframe: config.TIMEFRAME, source: this.o.source.name, leads: this.isLeading }, 'strategy started');
    this.o.events.statusChanged();
    this.o.events.pairsChanged();
    return run;
  }

  /**
   * The market's symbols, or undefined when they cannot be read: the failure shows in downstream,
   * unless `quiet` (a neighbour still starting is no failure yet).
   */
  private async listedSymbols(quiet = false): Promise<Map<string, SourceSymbol> | undefined> {
    try {
      const symbols = await this.o.source.catalog();
      this.o.health.ok('market_data');
      return new Map(symbols.map((s) => [s.symbol, s]));
    } catch (err) {
      if (!quiet) this.o.health.fail('market_data', err, { call: 'catalog' });
      return undefined;
    }
  }

  private refuseUnlisted(instruments: string[], catalog: Map<string, SourceSymbol>, requested: boolean): void {
    const details = instruments.flatMap((instrument, index) => {
      const symbol = symbolOf(instrument, this.o.config.SYMBOL_MAP);
      if (catalog.has(symbol)) return [];
      const path = requested ? `body.instruments.${index}` : 'INSTRUMENTS';
      return [{ path, message: `${instrument} (symbol ${symbol}) is not listed by the market` }];
    });
    if (details.length > 0) {
      throw new AppError('validation_error', `${details[0]?.path}: ${details[0]?.message}`, { details });
    }
  }

  /** Arms the timer of the next candle close (+ the delay that lets the provider close the bar). */
  private scheduleNextClose(run: Run): void {
    const delayMs = this.o.config.CANDLE_CLOSE_DELAY_MS;
    const now = this.o.clock.now();
    const due = (Math.floor((now - delayMs) / this.timeframeMs) + 1) * this.timeframeMs + delayMs;
    run.timer = this.o.clock.setTimeout(() => {
      if (this.run !== run) return;
      for (const pair of this.polled) this.track(this.poll(run, pair));
      this.scheduleNextClose(run);
    }, due - now);
    run.timer.unref();
  }

  private track(task: Promise<void>): void {
    this.tasks.add(task);
    void task.finally(() => this.tasks.delete(task));
  }

  /**
   * Asks the source for the closed candles the pair has not seen (its whole warm-up the first
   * time), feeds them, and decides on the newest when it closed within the last timeframe.
   */
  private async poll(run: Run, pair: PairTracker): Promise<void> {
    if (this.polling.has(pair)) {
      this.polling.set(pair, true);
      return;
    }
    this.polling.set(pair, false);
    const { config, logger } = this.o;
    try {
      const last = pair.lastCandleTime;
      const nowMs = this.o.clock.now();
      const missing = last === null ? config.WARMUP_CANDLES : Math.ceil((nowMs - (last * 1000 + this.timeframeMs)) / this.timeframeMs) + 1;
      const count = Math.max(1, Math.min(config.WARMUP_CANDLES, missing));
      let candles;
      try {
        candles = await this.o.source.closedCandles(pair.symbol, config.TIMEFRAME, count);
        this.o.health.ok('market_data');
        this.failedPolls.delete(pair);
      } catch (err) {
        this.o.health.fail('market_data', err, { call: 'candles', instrument: pair.instrument });
        this.retryPoll(run, pair);
        return;
      }
      if (this.run !== run) return;
      const { added, atrs, rejected } = pair.ingest(candles);
      if (rejected > 0) logger.warn({ instrument: pair.instrument, rejected }, 'malformed candles skipped');
      if (added.length === 0) return;
      this.candles.inc({ instrument: pair.instrument }, added.length);
      await this.publishCandles(pair, added.length, last === null);
      if (!this.isLeading) return;
      await this.o.paper.onCandles(pair.instrument, pair.digits, added, atrs);
      // Live, the exit rules act on the newest close only: the venue's positions are as they are now.
      if (!run.dryRun && this.closedWithinTimeframe(pair)) {
        const candle = added.at(-1)!;
        await this.o.liveExits?.onClose({
          instrument: pair.instrument,
          symbol: pair.symbol,
          digits: pair.digits,
          candle,
          atr: atrs.at(-1) ?? Number.NaN,
          candleSeconds: pair.candleSeconds,
        });
      }
      if (this.closedWithinTimeframe(pair)) await this.decideOn(run, pair);
    } catch (err) {
      logger.error({ err, instrument: pair.instrument }, 'processing closed candles failed');
    } finally {
      const again = this.polling.get(pair) === true;
      this.polling.delete(pair);
      if (again && this.run === run) this.track(this.poll(run, pair));
    }
  }

  /**
   * Polls a pair again after 1 s, 2 s, 4 s… (at most 30 s) when its candles could not
   * be read, e.g. the market-data service still starting: its warm-up, or a candle close, is not
   * left waiting for the next close.
   */
  private retryPoll(run: Run, pair: PairTracker): void {
    const failures = (this.failedPolls.get(pair) ?? 0) + 1;
    this.failedPolls.set(pair, failures);
    this.o.clock
      .setTimeout(
        () => {
          if (this.run === run) this.track(this.poll(run, pair));
        },
        backoffDelayMs(RETRY_BACKOFF, failures - 1),
      )
      .unref();
  }

  /**
   * Tells the console the pair moved and, past its warm-up (whose history did not close now),
   * each candle that closed with its indicators: the leader logs them for every replica (a
   * follower's console gets the leader's, from the log), before deciding on them.
   */
  private async publishCandles(pair: PairTracker, added: number, isWarmUp: boolean): Promise<void> {
    const { events, config } = this.o;
    events.pairChanged(pair.instrument);
    if (isWarmUp || !this.isLeading) return;
    for (const candle of pair.chartCandles(added)) await events.candle({ instrument: pair.instrument, timeframe: config.TIMEFRAME, candle });
  }

  private closedWithinTimeframe(pair: PairTracker): boolean {
    const last = pair.lastCandleTime;
    return last !== null && this.o.clock.now() - (last * 1000 + this.timeframeMs) < this.timeframeMs;
  }

  /**
   * A new leader's first look at a pair: the paper trades on the candles it holds (their ATRs are
   * not kept, so a trailing stop in ATRs does not move on them), then its newest candle.
   */
  private async catchUp(run: Run, pair: PairTracker): Promise<void> {
    try {
      const held = pair.chartCandles(this.o.config.CHART_CANDLES).map(ruleCandleOf);
      await this.o.paper.onCandles(
        pair.instrument,
        pair.digits,
        held,
        held.map(() => Number.NaN),
      );
      if (this.closedWithinTimeframe(pair)) await this.decideOn(run, pair);
    } catch (err) {
      this.o.logger.error({ err, instrument: pair.instrument }, 'catching up on taking the lead failed');
    }
  }

  /**
   * Decides on the pair's newest candle and, for a signal, stores it (and its paper trade) in one
   * write that does nothing when the signal_id is already stored: a restart inside the same
   * candle, or another replica that led a moment ago, finds it, and only the process whose write
   * stored it sends it on.
   */
  private async decideOn(run: Run, pair: PairTracker): Promise<void> {
    const snapshot = pair.latest;
    if (!snapshot || this.run !== run || !this.isLeading) return;
    const { config, clock, signals } = this.o;
    const decision = decide(snapshot, ruleSettingsOf(this.rules, pair.digits));
    if (!decision) return;
    const signalId = signalIdFor(pair.instrument, config.TIMEFRAME, snapshot.candle.time);
    const generatedAt = new Date(clock.now()).toISOString();
    const initial: StrategySignal = {
      type: decision.type,
      generated_at: generatedAt,
      entry_price: decision.entry,
      stop_loss: decision.stopLoss,
      take_profit: decision.takeProfit,
      risk_reward: decision.riskReward,
      indicators: signalIndicators(snapshot, pair.digits),
      confluence_score: decision.confluence,
      signal_id: signalId,
      instrument: pair.instrument,
      symbol: pair.symbol,
      timeframe: config.TIMEFRAME,
      candle_time: new Date(snapshot.candle.time * 1000).toISOString(),
      dry_run: run.dryRun,
      ...this.o.dispatcher.initialStates(run.dryRun),
    };
    const entry = run.dryRun ? await this.o.paper.entryOf(initial, pair.digits) : {};
    const signal = entry.skipped
      ? { ...initial, execution: skippedExecution(initial.execution, entry.skipped, clock.now(), 'no paper trade opened') }
      : run.dryRun
        ? initial
        : await this.liveOrderOf(initial);
    if (!(await signals.insert(signal, entry.trade, entry.closes))) return;
    pair.lastSignal = { type: signal.type, time: generatedAt, entry_price: signal.entry_price };
    this.signals.inc({ instrument: pair.instrument, type: signal.type });
    this.o.logger.info(
      {
        signalId,
        instrument: pair.instrument,
        type: signal.type,
        entry: signal.entry_price,
        stopLoss: signal.stop_loss,
        takeProfit: signal.take_profit,
        confluence: signal.confluence_score,
        trigger: decision.trigger,
        dryRun: run.dryRun,
        ...(signal.execution.status === 'skipped' && { skipped: signal.execution.code }),
      },
      `signal ${signal.type} ${pair.instrument}`,
    );
    // Its event was logged with it: the console hears it (and a new status) once it is read back.
    this.o.events.deskChanged();
    // A leader that lost the lead while storing leaves the sends to the next one, which resumes what is pending.
    if (!this.isLeading) return;
    this.o.dispatcher.dispatch(signal);
  }

  /**
   * A live signal as it is stored, before anything is sent: the positions an opposite signal closes
   * are closed first (EXIT_ON_OPPOSITE_SIGNAL), then its size and the risk limits (LiveEntries: one
   * position per pair, as on paper and in the lab, among them) give its volume, or skip it with
   * the reason, never sent, announced.
   */
  private async liveOrderOf(signal: StrategySignal): Promise<StrategySignal> {
    const { liveExits, liveEntries } = this.o;
    if (!liveEntries || signal.execution.status !== 'pending') return signal;
    await liveExits?.onSignal(signal);
    const admission = await liveEntries.admit(signal);
    const execution =
      'volume' in admission
        ? { ...signal.execution, volume: admission.volume }
        : skippedExecution(signal.execution, admission, this.o.clock.now(), 'the signal is not sent');
    return { ...signal, execution };
  }
}

/** A chart candle back as the candle it was made from. */
function ruleCandleOf(candle: ChartCandle): RuleCandle {
  return { time: Date.parse(candle.time) / 1000, open: candle.open, high: candle.high, low: candle.low, close: candle.close, volume: candle.volume };
}
