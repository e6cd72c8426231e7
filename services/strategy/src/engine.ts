import { AppError, type MetricsRegistry } from '@fxdesk/core';
import { backoffDelayMs, type Backoff, type Clock, type TimerHandle } from '@fxdesk/primitives';
import { InstrumentNameSchema, TIMEFRAME_SECONDS, type PairRecord, type StartRequest, type StrategySignal } from '@fxdesk/schemas';
import type { Logger } from 'pino';
import type { StrategyConfig } from './config.js';
import type { DownstreamHealth } from './downstream.js';
import { errors } from './errors.js';
import type { EventHub } from './event-hub.js';
import type { MarketSource, QuoteSubscription, SourceSymbol } from './market-source.js';
import type { PaperAccount } from './paper-account.js';
import { PairTracker, trackerSettingsOf, type TrackerSettings } from './pair-tracker.js';
import { rulesOf, type StrategyRules } from './rules.js';
import type { SignalDispatcher } from './signal-dispatch.js';
import { signalIdFor } from './signal-id.js';
import { decide, ruleSettingsOf, signalIndicators } from './signal-rule.js';
import type { StrategyStore } from './store.js';
import { symbolOf } from './symbols.js';

export interface EngineOptions {
  config: StrategyConfig;
  clock: Clock;
  logger: Logger;
  metrics: MetricsRegistry;
  source: MarketSource;
  store: StrategyStore;
  dispatcher: SignalDispatcher;
  paper: PaperAccount;
  health: DownstreamHealth;
  events: EventHub;
}

interface Run {
  id: number;
  startedAt: number;
  instruments: string[];
  dryRun: boolean;
  signalsGenerated: number;
  subscription: QuoteSubscription | undefined;
  timer: TimerHandle | undefined;
}

/** Prices of a pair are written with this many digits when the market's catalog cannot be read. */
const FALLBACK_DIGITS = 5;
/** The waits before asking the market again after a failed read: 1 s, 2 s, 4 s… up to 30 s. */
const RETRY_BACKOFF: Backoff = { baseMs: 1000, capMs: 30_000 };

/** Boot reads of the catalog (at 0, 1, 3 and 7 s) that may fail before it counts as a failure. */
const QUIET_BOOT_TRIES = 4;

/**
 * The strategy: started, stopped and restarted by the API; while running, each monitored pair
 * is warmed up from history, then fed each closed candle of TIMEFRAME as it closes (a timer on
 * the clock at every candle boundary + CANDLE_CLOSE_DELAY_MS asks the source for what closed),
 * and the signal rule decides on the newest candle. Quotes keep `current_price` and freshness.
 */
export class StrategyEngine {
  private run: Run | undefined;
  private isStarting = false;
  private lastStart: { instruments: string[]; dryRun: boolean } | undefined;
  private pairs = new Map<string, PairTracker>();
  private bySymbol = new Map<string, PairTracker>();
  /** Pairs with a candle poll in flight, and whether another close came meanwhile (poll again after). */
  private readonly polling = new Map<PairTracker, boolean>();
  private isClosed = false;
  /** Consecutive failed polls of each pair, for the delay of its next try. */
  private failedPolls = new Map<PairTracker, number>();
  private readonly tasks = new Set<Promise<void>>();
  private nextRunId = 1;
  private readonly timeframeMs: number;
  /** The rule's settings, from the config: the same type a backtest runs with. */
  private readonly rules: StrategyRules;
  private readonly trackerSettings: TrackerSettings;
  private readonly signals;
  private readonly candles;

  constructor(private readonly o: EngineOptions) {
    const c = o.config;
    this.timeframeMs = TIMEFRAME_SECONDS[c.TIMEFRAME] * 1000;
    this.rules = rulesOf(c);
    this.trackerSettings = trackerSettingsOf(this.rules, c.TIMEFRAME, c.CHART_CANDLES);
    this.signals = o.metrics.counter('strategy_signals_total', 'Signals generated, by instrument and type.');
    this.candles = o.metrics.counter('strategy_candles_total', 'Closed candles fed to the indicators, by instrument.');
    o.metrics.gauge('strategy_running', '1 while the strategy runs.', () => (this.run ? 1 : 0));
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
      dryRun: this.run?.dryRun ?? this.lastStart?.dryRun ?? null,
    };
  }

  async start(request: StartRequest): Promise<{ startedAt: number; instruments: string[]; dryRun: boolean }> {
    if (this.run || this.isStarting) throw errors.create('strategy_already_running', 'the strategy is already running; POST /stop or POST /restart');
    this.isStarting = true;
    try {
      const instruments = [...new Set(request.instruments ?? this.o.config.INSTRUMENTS)];
      const catalog = await this.listedSymbols();
      if (catalog) this.refuseUnlisted(instruments, catalog, request.instruments !== undefined);
      const run = this.begin(instruments, request.dry_run ?? false, catalog);
      return { startedAt: run.startedAt, instruments: [...run.instruments], dryRun: run.dryRun };
    } finally {
      this.isStarting = false;
    }
  }

  /** Stops the strategy as asked through the API: a restarted process will not resume it. */
  stop(): { stoppedAt: number; signalsGenerated: number } {
    const stopped = this.halt();
    this.o.store.saveRunState({ ...(this.lastStart as { instruments: string[]; dryRun: boolean }), running: false }, new Date(stopped.stoppedAt).toISOString());
    return stopped;
  }

  /**
   * What the process does at start: resumes what was running when it last stopped (a crash, a
   * deploy, a reboot) with the same instruments and dry_run when `resume`, or starts on
   * INSTRUMENTS with dry_run false when `autoStart` and no run was ever recorded. A stop made
   * through the API is recorded, so it stays stopped either way.
   */
  async startAtBoot(options: { resume: boolean; autoStart: boolean }): Promise<'resumed' | 'started' | undefined> {
    const state = this.o.store.runState();
    const how = state?.running && options.resume ? 'resumed' : !state && options.autoStart ? 'started' : undefined;
    // The market-data service may still be starting beside this one: wait until it lists its
    // symbols, so the pairs start with their real digits and a warm-up that can be read.
    if (how === undefined || !(await this.untilListed()) || this.run) return undefined;
    await this.start(how === 'resumed' ? { instruments: state?.instruments, dry_run: state?.dryRun } : {});
    return how;
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

  /** Stops the run without recording it as the user's stop (shutdown, restart). */
  private halt(): { stoppedAt: number; signalsGenerated: number } {
    const run = this.run;
    if (!run) throw errors.create('strategy_not_running', 'the strategy is not running; POST /start');
    this.run = undefined;
    run.subscription?.close();
    if (run.timer) this.o.clock.clearTimer(run.timer);
    this.o.logger.info({ signalsGenerated: run.signalsGenerated }, 'strategy stopped');
    this.o.events.statusChanged();
    this.o.events.pairsChanged();
    return { stoppedAt: this.o.clock.now(), signalsGenerated: run.signalsGenerated };
  }

  /** Stop, then start again with the same instruments and dry_run. */
  async restart(): Promise<{ restartedAt: number; instruments: string[]; dryRun: boolean }> {
    const run = this.run;
    if (!run) throw errors.create('strategy_not_running', 'the strategy is not running; POST /start');
    this.halt();
    const started = await this.start({ instruments: run.instruments, dry_run: run.dryRun });
    return { restartedAt: started.startedAt, instruments: started.instruments, dryRun: started.dryRun };
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
    if (this.pairs.has(instrument) || this.o.config.INSTRUMENTS.includes(instrument) || this.o.store.hasInstrument(instrument)) return true;
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

  private begin(instruments: string[], dryRun: boolean, catalog: Map<string, SourceSymbol> | undefined): Run {
    const { config, clock } = this.o;
    const run: Run = { id: this.nextRunId++, startedAt: clock.now(), instruments, dryRun, signalsGenerated: 0, subscription: undefined, timer: undefined };
    this.run = run;
    this.lastStart = { instruments, dryRun };
    this.o.store.saveRunState({ running: true, instruments, dryRun }, new Date(run.startedAt).toISOString());
    this.pairs = new Map();
    this.bySymbol = new Map();
    this.failedPolls = new Map();
    for (const instrument of instruments) {
      const symbol = symbolOf(instrument, config.SYMBOL_MAP);
      const pair = new PairTracker(instrument, symbol, catalog?.get(symbol)?.digits ?? FALLBACK_DIGITS, this.trackerSettings);
      const last = this.o.store.latest(instrument);
      if (last) pair.lastSignal = { type: last.type, time: last.generated_at, entry_price: last.entry_price };
      this.pairs.set(instrument, pair);
      this.bySymbol.set(symbol, pair);
    }
    run.subscription = this.o.source.subscribe([...this.bySymbol.keys()], {
      onQuote: (quote) => {
        const pair = this.bySymbol.get(quote.symbol);
        if (this.run !== run || !pair) return;
        pair.onQuote(quote, clock.now());
        this.o.events.pairChanged(pair.instrument);
      },
      onHealthy: () => this.o.health.ok('market_data'),
      onTrouble: (err) => this.o.health.fail('market_data', err, { stream: 'ticks' }),
    });
    this.scheduleNextClose(run);
    for (const pair of this.pairs.values()) this.track(this.poll(run, pair));
    this.o.logger.info({ instruments, dryRun, timeframe: config.TIMEFRAME, source: this.o.source.name }, 'strategy started');
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
      for (const pair of this.pairs.values()) this.track(this.poll(run, pair));
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
      const { added, rejected } = pair.ingest(candles);
      if (rejected > 0) logger.warn({ instrument: pair.instrument, rejected }, 'malformed candles skipped');
      if (added.length === 0) return;
      this.candles.inc({ instrument: pair.instrument }, added.length);
      this.publishCandles(pair, added.length, last === null);
      this.o.paper.onCandles(pair.instrument, added);
      const newest = added[added.length - 1]!;
      const closedAgoMs = this.o.clock.now() - (newest.time * 1000 + this.timeframeMs);
      if (closedAgoMs < this.timeframeMs) this.decideOn(run, pair);
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
   * each candle that closed with its indicators.
   */
  private publishCandles(pair: PairTracker, added: number, isWarmUp: boolean): void {
    const { events, config } = this.o;
    if (!isWarmUp) for (const candle of pair.chartCandles(added)) events.candle({ instrument: pair.instrument, timeframe: config.TIMEFRAME, candle });
    events.pairChanged(pair.instrument);
  }

  private decideOn(run: Run, pair: PairTracker): void {
    const snapshot = pair.latest;
    if (!snapshot) return;
    const { config, clock, store } = this.o;
    const decision = decide(snapshot, ruleSettingsOf(this.rules, pair.digits));
    if (!decision) return;
    const signalId = signalIdFor(pair.instrument, config.TIMEFRAME, snapshot.candle.time);
    // Already produced for this candle (a restart inside it): never a second signal, order or message.
    if (store.find(signalId)) return;
    const generatedAt = new Date(clock.now()).toISOString();
    const signal: StrategySignal = {
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
    if (!store.insert(signal)) return;
    run.signalsGenerated += 1;
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
      },
      `signal ${signal.type} ${pair.instrument}`,
    );
    this.o.events.signal(signal);
    if (run.dryRun) this.o.paper.open(signal);
    this.o.events.statusChanged();
    this.o.dispatcher.dispatch(signal);
  }
}
