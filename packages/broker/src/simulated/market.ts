import type { Clock, TimerHandle } from '@fxdesk/primitives';
import { TIMEFRAME_SECONDS } from '@fxdesk/schemas';
import type { Bar, Quote, Timeframe, Unsubscribe } from '../types.js';
import { hashString } from './hash.js';
import { BarAccumulator } from './bar-accumulator.js';
import { scanClosedBar } from './bar-scan.js';
import { LruCache } from './lru-cache.js';
import { DAY_MS, MINUTE_MS, isWeeklyOpen, nextWeeklyOpen, previousWeeklyClose } from './market-hours.js';
import { CurrencyWalks, SymbolModel } from './price-model.js';
import { SYMBOL_SPECS, type SymbolSpec } from './symbols.js';
import { processWorkSlicer, runAll, type Steps, type WorkSlicer } from './work-slicer.js';

export interface SimulatedMarketOptions {
  /** Same seed (and settings) → same prices, in any process. */
  seed: string;
  /** Length of a tick slot; slot k starts at k × tickIntervalMs since the epoch. 10..60000. */
  tickIntervalMs: number;
  /** Closed from Friday 22:00 to Sunday 22:00 UTC when true. */
  marketHours: boolean;
  clock: Clock;
  /** Closed bars kept per symbol and timeframe (least recently used go first). Default 4 000. */
  barCacheSize?: number;
  /** Receives errors thrown by tick listeners (default: console.error); ticking goes on. */
  onListenerError?: (err: unknown) => void;
  /** Shares the event loop between the sliced history calls (default: the process's one). */
  slicer?: WorkSlicer;
}

/** The most bars one `bars()` call answers. */
export const MAX_BAR_COUNT = 100_000;
/** How far back `lastTick` looks for a tick before answering null. */
const LAST_TICK_LOOKBACK_MS = 14 * DAY_MS;

/** A forming bar is aggregated from the closed bars of the next smaller timeframe and its forming one. */
const CHILD_TIMEFRAME: Record<Exclude<Timeframe, 'M1'>, Timeframe> = {
  M5: 'M1',
  M15: 'M5',
  M30: 'M15',
  H1: 'M30',
  H4: 'H1',
  D1: 'H4',
};

/** What `lastTick` found for a symbol: no tick in the slots after `tickSlot` up to `coveredSlot`. */
interface LastTickMemo {
  /** Slot of `quote`; −∞ when none was found. */
  tickSlot: number;
  coveredSlot: number;
  quote: Readonly<Quote> | null;
}

/** Marks "no ticks in this bar" in the cache, so empty periods are not scanned twice. */
const NO_BAR = null;

/**
 * A simulated FX market. Prices are a pure function of (seed, symbol, time) — see
 * price-model.ts — so history, the present and the future can all be asked for, and two
 * processes with the same settings agree tick for tick.
 *
 * Ticks live on a fixed grid: slot k at k × tickIntervalMs. Hashes decide in which slots a
 * symbol ticks: each minute's tick count follows the symbol's liquidity, the session and a
 * hash; a hash-driven shuffle places them. bid = mid − spread/2 and ask = bid + spread, in whole
 * points. Bars are built from the same ticks (bid prices, as MT5 charts them): a closed bar is
 * exactly the aggregate of its ticks (found without pricing every tick, see bar-scan.ts) and is
 * cached; the forming bar reuses the cached closed bars of the timeframe below it.
 */
export class SimulatedMarket {
  readonly seed: string;
  readonly tickIntervalMs: number;
  readonly marketHours: boolean;
  readonly clock: Clock;
  private readonly models = new Map<string, SymbolModel>();
  /** Closed bars per "symbol timeframe", keyed by the bar's open in epoch minutes. */
  private readonly barCaches = new Map<string, LruCache<number, Bar | null>>();
  private readonly barCacheSize: number;
  /** Per symbol: the latest tick found and the last slot known to hold no later one (see latestQuote). */
  private readonly lastTicks = new Map<SymbolModel, LastTickMemo>();
  private readonly listeners = new Set<(tick: Quote) => void>();
  private readonly onListenerError: (err: unknown) => void;
  private readonly slicer: WorkSlicer;
  private timer: TimerHandle | undefined;
  private isTicking = false;
  private lastEmittedSlot = 0;

  constructor(options: SimulatedMarketOptions) {
    if (typeof options.seed !== 'string' || options.seed.length === 0) throw new RangeError('seed must be a non-empty string');
    const interval = options.tickIntervalMs;
    if (!Number.isInteger(interval) || interval < 10 || interval > MINUTE_MS) {
      throw new RangeError(`tickIntervalMs must be an integer from 10 to 60000, got ${interval}`);
    }
    this.seed = options.seed;
    this.tickIntervalMs = interval;
    this.marketHours = options.marketHours;
    this.clock = options.clock;
    this.onListenerError = options.onListenerError ?? ((err) => console.error('simulated market: tick listener failed', err));
    const seedKey = hashString(options.seed);
    const walks = new CurrencyWalks(seedKey);
    for (const spec of SYMBOL_SPECS) {
      this.models.set(spec.symbol, new SymbolModel(spec, seedKey, walks, interval, options.marketHours));
    }
    this.barCacheSize = options.barCacheSize ?? 4_000;
    this.slicer = options.slicer ?? processWorkSlicer;
  }

  /** Every symbol the market lists, in table order. */
  symbols(): readonly SymbolSpec[] {
    return SYMBOL_SPECS;
  }

  spec(symbol: string): SymbolSpec | undefined {
    return this.models.get(symbol)?.spec;
  }

  /** Whether the market trades at `epochMs` (always true when market hours are off). */
  isOpen(epochMs: number): boolean {
    return !this.marketHours || isWeeklyOpen(epochMs);
  }

  /** The slot that contains `epochMs`. */
  slotOf(epochMs: number): number {
    return Math.floor(epochMs / this.tickIntervalMs);
  }

  /** The smooth mid price at any instant (ticks scatter around it by a small jitter). */
  midAt(symbol: string, epochMs: number): number {
    return this.model(symbol).smoothMid(epochMs);
  }

  /**
   * The latest tick at or before `atMs` (over a weekend: Friday's last), or null if none in two
   * weeks. Remembers, per symbol, the last answer and the slots it covers, so asking again for
   * the same instant costs a lookup, and asking for a later one scans only the slots since.
   */
  lastTick(symbol: string, atMs: number = this.clock.now()): Quote | null {
    const quote = this.latestQuote(this.model(symbol), atMs);
    return quote && { ...quote };
  }

  /** Every tick of `symbol` with fromMs ≤ time < toMs, oldest first. */
  ticksBetween(symbol: string, fromMs: number, toMs: number): Quote[] {
    const model = this.model(symbol);
    const ticks: Quote[] = [];
    const firstSlot = Math.ceil(fromMs / this.tickIntervalMs);
    const endSlot = Math.ceil(toMs / this.tickIntervalMs);
    let slot = firstSlot;
    while (slot < endSlot) {
      const frame = model.minuteFrame(Math.floor((slot * this.tickIntervalMs) / MINUTE_MS));
      if (!frame.isOpen) {
        slot = Math.max(frame.endSlot, Math.ceil(nextWeeklyOpen(slot * this.tickIntervalMs) / this.tickIntervalMs));
        continue;
      }
      const stop = Math.min(frame.endSlot, endSlot);
      for (; slot < stop; slot++) {
        if (model.evaluateSlot(slot)) ticks.push(this.quote(model, slot));
      }
    }
    return ticks;
  }

  /**
   * The most recent `count` bars at `atMs`, oldest first. `time` is the bar's open (epoch
   * seconds); the bar containing `atMs`, built from its ticks so far, comes last with
   * `closed: false`. Periods without ticks (weekends) have no bar. Built at once: on a service's
   * event loop, use {@link barsSliced}.
   */
  bars(symbol: string, timeframe: Timeframe, count: number, atMs: number = this.clock.now()): Bar[] {
    return runAll(this.barSteps(symbol, timeframe, count, atMs));
  }

  /**
   * The same bars as {@link bars}, built a few milliseconds at a time with turns of the event
   * loop between (the market's WorkSlicer), so a long history (a thousand D1 bars are weeks of
   * ticks) never holds the loop.
   */
  async barsSliced(symbol: string, timeframe: Timeframe, count: number, atMs: number = this.clock.now()): Promise<Bar[]> {
    return this.slicer.run(this.barSteps(symbol, timeframe, count, atMs));
  }

  /**
   * The bars of `timeframe` that open at or after `fromMs` and before `toMs`, oldest first, at
   * most `limit` of them (the oldest). Every bar is built as closed: ask only for periods that
   * have ended (the feed cuts `toMs` at the clock). A function of the seed, the settings and the
   * range alone: any process, at any time, answers the same bars. Periods without ticks
   * (weekends) have no bar. Bars are read from the cache but not added to it, so a long history
   * does not push out the recent bars live charts ask for. Built at once: on a service's event
   * loop, use {@link barsBetweenSliced}.
   */
  barsBetween(symbol: string, timeframe: Timeframe, fromMs: number, toMs: number, limit = MAX_BAR_COUNT): Bar[] {
    return runAll(this.barsBetweenSteps(symbol, timeframe, fromMs, toMs, limit));
  }

  /** The same bars as {@link barsBetween}, built a few milliseconds at a time with turns of the event loop between. */
  async barsBetweenSliced(symbol: string, timeframe: Timeframe, fromMs: number, toMs: number, limit = MAX_BAR_COUNT): Promise<Bar[]> {
    return this.slicer.run(this.barsBetweenSteps(symbol, timeframe, fromMs, toMs, limit));
  }

  /** bars(), a step per bar built (its arguments checked before the first). */
  private barSteps(symbol: string, timeframe: Timeframe, count: number, atMs: number): Steps<Bar[]> {
    if (!Number.isInteger(count) || count < 0 || count > MAX_BAR_COUNT) {
      throw new RangeError(`count must be an integer from 0 to ${MAX_BAR_COUNT}`);
    }
    return this.walkBack(this.model(symbol), timeframe, count, atMs);
  }

  private *walkBack(model: SymbolModel, timeframe: Timeframe, count: number, atMs: number): Steps<Bar[]> {
    if (count === 0) return [];
    const sizeMs = TIMEFRAME_SECONDS[timeframe] * 1000;
    const newest: Bar[] = [];
    let start = Math.floor(atMs / sizeMs) * sizeMs;
    const forming = this.formingBar(model, timeframe, start, atMs);
    if (forming) newest.push(forming);
    yield;
    // Bounds the walk back through empty periods (weekends, idle minutes at coarse tick rates).
    let budget = count * 50 + 20_000;
    while (newest.length < count && budget-- > 0) {
      start -= sizeMs;
      if (this.marketHours && !isWeeklyOpen(start) && nextWeeklyOpen(start) >= start + sizeMs) {
        start = Math.floor((previousWeeklyClose(start) - 1) / sizeMs) * sizeMs + sizeMs;
        continue;
      }
      const bar = this.closedBar(model, timeframe, start);
      if (bar) newest.push(bar);
      yield;
    }
    return newest.reverse();
  }

  /** barsBetween(), a step per bar built (its arguments checked before the first). */
  private barsBetweenSteps(symbol: string, timeframe: Timeframe, fromMs: number, toMs: number, limit: number): Steps<Bar[]> {
    if (!Number.isInteger(limit) || limit < 0 || limit > MAX_BAR_COUNT) {
      throw new RangeError(`limit must be an integer from 0 to ${MAX_BAR_COUNT}`);
    }
    if (!Number.isFinite(fromMs) || !Number.isFinite(toMs)) throw new RangeError('fromMs and toMs must be finite epoch milliseconds');
    return this.walkForward(this.model(symbol), timeframe, fromMs, toMs, limit);
  }

  private *walkForward(model: SymbolModel, timeframe: Timeframe, fromMs: number, toMs: number, limit: number): Steps<Bar[]> {
    const sizeMs = TIMEFRAME_SECONDS[timeframe] * 1000;
    const bars: Bar[] = [];
    let start = Math.ceil(fromMs / sizeMs) * sizeMs;
    while (start < toMs && bars.length < limit) {
      if (this.marketHours && !isWeeklyOpen(start) && nextWeeklyOpen(start) >= start + sizeMs) {
        // The whole period is closed: go on from the period that holds the next open.
        start = Math.floor(nextWeeklyOpen(start) / sizeMs) * sizeMs;
        continue;
      }
      const bar = this.closedBar(model, timeframe, start, false);
      if (bar) bars.push(bar);
      start += sizeMs;
      yield;
    }
    return bars;
  }

  /**
   * Converts one unit of `from` into `to` at the mid of the latest ticks (directly, inverted,
   * or through USD). Undefined when the market has no path between the two.
   */
  rate(from: string, to: string, atMs: number = this.clock.now()): number | undefined {
    if (from === to) return 1;
    const direct = this.models.get(from + to);
    if (direct) return this.mid(direct.spec.symbol, atMs);
    const inverse = this.models.get(to + from);
    if (inverse) return 1 / this.mid(inverse.spec.symbol, atMs);
    if (from === 'USD' || to === 'USD') return undefined;
    const toUsd = this.rate(from, 'USD', atMs);
    const fromUsd = this.rate('USD', to, atMs);
    return toUsd === undefined || fromUsd === undefined ? undefined : toUsd * fromUsd;
  }

  /** Emits every tick of every symbol, slot by slot, while the market is started. */
  onTick(listener: (tick: Quote) => void): Unsubscribe {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get isRunning(): boolean {
    return this.isTicking;
  }

  /**
   * Starts live ticking on the clock: each slot after now is emitted when the clock reaches
   * it; a late timer emits the slots it skipped, in order, so none is lost or repeated.
   * Idempotent. The timer does not keep the process alive.
   */
  start(): void {
    if (this.isTicking) return;
    this.isTicking = true;
    this.lastEmittedSlot = this.slotOf(this.clock.now());
    this.scheduleNextSlot();
  }

  stop(): void {
    this.isTicking = false;
    if (this.timer) this.clock.clearTimer(this.timer);
    this.timer = undefined;
  }

  private scheduleNextSlot(): void {
    let dueMs = (this.lastEmittedSlot + 1) * this.tickIntervalMs;
    if (!this.isOpen(dueMs)) dueMs = nextWeeklyOpen(dueMs);
    this.timer = this.clock.setTimeout(() => this.emitDueSlots(), Math.max(0, dueMs - this.clock.now())).unref();
  }

  private emitDueSlots(): void {
    this.timer = undefined;
    const target = this.slotOf(this.clock.now());
    let slot = this.lastEmittedSlot + 1;
    while (slot <= target && this.isTicking) {
      const slotMs = slot * this.tickIntervalMs;
      if (!this.isOpen(slotMs)) {
        slot = Math.min(target + 1, Math.ceil(nextWeeklyOpen(slotMs) / this.tickIntervalMs));
        this.lastEmittedSlot = slot - 1;
        continue;
      }
      this.emitSlot(slot);
      this.lastEmittedSlot = slot;
      slot++;
    }
    if (this.isTicking) this.scheduleNextSlot();
  }

  private emitSlot(slot: number): void {
    const minute = Math.floor((slot * this.tickIntervalMs) / MINUTE_MS);
    for (const model of this.models.values()) {
      model.minuteFrame(minute);
      if (!model.evaluateSlot(slot)) continue;
      const tick = this.quote(model, slot);
      for (const listener of [...this.listeners]) {
        try {
          listener(tick);
        } catch (err) {
          this.onListenerError(err);
        }
      }
    }
  }

  private mid(symbol: string, atMs: number): number {
    const model = this.model(symbol);
    const tick = this.latestQuote(model, atMs);
    return tick ? (tick.bid + tick.ask) / 2 : model.smoothMid(atMs);
  }

  /** lastTick without the copy: the memo's own quote, which callers inside the market only read. */
  private latestQuote(model: SymbolModel, atMs: number): Readonly<Quote> | null {
    const slot = this.slotOf(atMs);
    const memo = this.lastTicks.get(model);
    const lookbackSlot = this.slotOf(atMs - LAST_TICK_LOOKBACK_MS);
    if (memo && slot >= memo.tickSlot && (memo.quote !== null || slot >= memo.coveredSlot) && memo.coveredSlot >= lookbackSlot) {
      if (slot > memo.coveredSlot) {
        // Only the slots after the covered ones can hold a newer tick.
        const found = this.latestTickSlot(model, atMs, memo.coveredSlot + 1);
        if (found !== undefined) {
          memo.tickSlot = found;
          memo.quote = this.quote(model, found);
        }
        memo.coveredSlot = slot;
      }
      const quote = memo.quote;
      // As a fresh scan would: nothing from a minute that ended before the lookback.
      return quote && Math.floor(quote.time / MINUTE_MS + 1) * MINUTE_MS > atMs - LAST_TICK_LOOKBACK_MS ? quote : null;
    }
    const found = this.latestTickSlot(model, atMs, Number.NEGATIVE_INFINITY);
    const quote = found === undefined ? null : this.quote(model, found);
    this.lastTicks.set(model, { tickSlot: found ?? Number.NEGATIVE_INFINITY, coveredSlot: slot, quote });
    return quote;
  }

  /**
   * The latest slot at or before `atMs`, and not below `lowestSlot`, in which `model` ticks
   * (its price loaded into the model), looking back at most LAST_TICK_LOOKBACK_MS; undefined if none.
   */
  private latestTickSlot(model: SymbolModel, atMs: number, lowestSlot: number): number | undefined {
    const floorMs = Math.max(atMs - LAST_TICK_LOOKBACK_MS, lowestSlot * this.tickIntervalMs);
    let t = atMs;
    while (t >= floorMs) {
      if (!this.isOpen(t)) {
        t = previousWeeklyClose(t) - 1;
        continue;
      }
      const frame = model.minuteFrame(Math.floor(t / MINUTE_MS));
      const bottom = Math.max(frame.firstSlot, lowestSlot);
      for (let slot = this.slotOf(t); frame.tickCount > 0 && slot >= bottom; slot--) {
        if (model.evaluateSlot(slot)) return slot;
      }
      t = frame.minute * MINUTE_MS - 1;
    }
    return undefined;
  }

  private model(symbol: string): SymbolModel {
    const model = this.models.get(symbol);
    if (!model) throw new RangeError(`the simulated market does not list ${JSON.stringify(symbol)}`);
    return model;
  }

  /** The tick `model` holds for `slot` after a successful evaluateSlot. */
  private quote(model: SymbolModel, slot: number): Quote {
    const scale = 10 ** model.spec.digits;
    return {
      symbol: model.spec.symbol,
      bid: model.bidPoints / scale,
      ask: (model.bidPoints + model.spread) / scale,
      time: slot * this.tickIntervalMs,
    };
  }

  /** The bar containing `atMs`, from its ticks so far: closed parts from the cache, the rest computed. */
  private formingBar(model: SymbolModel, timeframe: Timeframe, startMs: number, atMs: number): Bar | null {
    const accumulator = new BarAccumulator(model.spec.digits);
    if (timeframe === 'M1') {
      this.accumulateTicks(model, accumulator, startMs, startMs + MINUTE_MS, atMs);
    } else {
      const child = CHILD_TIMEFRAME[timeframe];
      const childMs = TIMEFRAME_SECONDS[child] * 1000;
      const formingChildStart = Math.floor(atMs / childMs) * childMs;
      for (let childStart = startMs; childStart < formingChildStart; childStart += childMs) {
        const bar = this.closedBar(model, child, childStart);
        if (bar) accumulator.addBar(bar);
      }
      const last = this.formingBar(model, child, formingChildStart, atMs);
      if (last) accumulator.addBar(last);
    }
    return accumulator.toBar(startMs / 1000, false);
  }

  /** A bar whose period has ended, from its ticks (cached unless told not to, with "no bar" cached too). */
  private closedBar(model: SymbolModel, timeframe: Timeframe, startMs: number, isCached = true): Bar | null {
    const cache = this.barCache(model.spec.symbol, timeframe);
    const key = startMs / MINUTE_MS;
    const cached = cache.get(key);
    if (cached !== undefined) return cached;
    const bar = scanClosedBar(model, startMs, startMs + TIMEFRAME_SECONDS[timeframe] * 1000);
    const entry = bar ? Object.freeze(bar) : NO_BAR;
    if (isCached) cache.set(key, entry);
    return entry;
  }

  private barCache(symbol: string, timeframe: Timeframe): LruCache<number, Bar | null> {
    const key = `${symbol} ${timeframe}`;
    let cache = this.barCaches.get(key);
    if (!cache) {
      cache = new LruCache(this.barCacheSize);
      this.barCaches.set(key, cache);
    }
    return cache;
  }

  /** Adds the ticks with fromMs ≤ time < toMs and time ≤ upToMs (whole minutes) to `accumulator`. */
  private accumulateTicks(model: SymbolModel, accumulator: BarAccumulator, fromMs: number, toMs: number, upToMs: number): void {
    const lastSlot = Math.floor(upToMs / this.tickIntervalMs);
    const endMinute = toMs / MINUTE_MS;
    let minute = fromMs / MINUTE_MS;
    while (minute < endMinute) {
      const frame = model.minuteFrame(minute);
      if (!frame.isOpen) {
        minute = Math.max(minute + 1, nextWeeklyOpen(minute * MINUTE_MS) / MINUTE_MS);
        continue;
      }
      const endSlot = Math.min(frame.endSlot, lastSlot + 1);
      for (let slot = frame.firstSlot; slot < endSlot; slot++) {
        if (model.evaluateSlot(slot)) accumulator.addTick(model.bidPoints, model.spread);
      }
      if (endSlot < frame.endSlot) return;
      minute++;
    }
  }
}
