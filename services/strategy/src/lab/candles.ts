import type { SimulatedMarket } from '@fxdesk/broker';
import type { MarketDataClient } from '@fxdesk/client';
import { TIMEFRAME_SECONDS, type LabData, type Timeframe } from '@fxdesk/schemas';
import { candleOfInterval, candleOfSimulatedBar, midOfBid } from '../market-source.js';
import { candlesBetween } from './plan.js';
import type { LabCandle } from './types.js';

/** Where a backtest's candles come from: the simulated market, the market-data service's history by date, or its candle store. */
export interface LabHistory {
  /** What a result names as its data's source. */
  readonly source: LabData['source'];
  /**
   * Closed candles with fromSec ≤ time < toSec (time = the bar's OPEN, epoch seconds), oldest
   * first, read a page at a time under the venue's per-request limit. `onProgress` hears the
   * fraction of the range read, from 0 to 1.
   */
  candles(symbol: string, timeframe: Timeframe, fromSec: number, toSec: number, onProgress?: (fraction: number) => void): Promise<LabCandle[]>;
  /** Every symbol with a history, and the decimal places of its prices. */
  catalog(): Promise<Array<{ symbol: string; digits: number }>>;
}

/** FX markets close for the weekend: a read for some candles starts this much earlier than they alone would take. */
const WEEKEND_SLACK_SECONDS = 4 * 86_400;
const CALENDAR_PER_TRADING = 7 / 5;

/**
 * How far back to read for `count` candles of `timeframe` before a time: their trading time
 * stretched to the calendar's (five trading days a week) plus a long weekend.
 */
export function calendarSpanSec(count: number, timeframe: Timeframe): number {
  return Math.ceil(count * TIMEFRAME_SECONDS[timeframe] * CALENDAR_PER_TRADING) + WEEKEND_SLACK_SECONDS;
}

/** The index of the first candle opened at or after timeSec (candles oldest first). */
export function firstAtOrAfter(candles: readonly LabCandle[], timeSec: number): number {
  let low = 0;
  let high = candles.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((candles[mid] as LabCandle).time < timeSec) low = mid + 1;
    else high = mid;
  }
  return low;
}

/**
 * The span of market time one page of the simulated history covers, whatever the timeframe (two
 * weeks: 20,160 M1 bars, 14 D1 bars), so each page is about the same work: the ticks of two weeks.
 * Each page is built a few milliseconds at a time (the market's barsBetweenSliced), and the
 * progress moves after each.
 */
const SIMULATED_PAGE_MS = 14 * 86_400_000;

/**
 * The in-process simulated market's history: a function of SIM_SEED (and the market's settings)
 * and the range, whatever the clock, except that a bar still forming now is left out. Built a
 * page at a time, each page in slices with turns of the event loop between them.
 */
export class SimulatedLabHistory implements LabHistory {
  readonly source = 'simulated';
  constructor(private readonly market: SimulatedMarket) {}

  async catalog(): Promise<Array<{ symbol: string; digits: number }>> {
    return this.market.symbols().map((s) => ({ symbol: s.symbol, digits: s.digits }));
  }

  async candles(symbol: string, timeframe: Timeframe, fromSec: number, toSec: number, onProgress?: (fraction: number) => void): Promise<LabCandle[]> {
    const spec = this.market.spec(symbol);
    if (!spec) throw new RangeError(`the simulated market does not list ${JSON.stringify(symbol)}`);
    const sizeMs = TIMEFRAME_SECONDS[timeframe] * 1000;
    const fromMs = fromSec * 1000;
    const endMs = Math.min(toSec * 1000, Math.floor(this.market.clock.now() / sizeMs) * sizeMs);
    // Pages end on a bar's open, so no bar is cut between two pages.
    const pageMs = Math.max(sizeMs, Math.floor(SIMULATED_PAGE_MS / sizeMs) * sizeMs);
    const candles: LabCandle[] = [];
    for (let pageFromMs = fromMs; pageFromMs < endMs;) {
      const pageToMs = Math.min(endMs, Math.ceil(pageFromMs / sizeMs) * sizeMs + pageMs);
      const bars = await this.market.barsBetweenSliced(symbol, timeframe, pageFromMs, pageToMs);
      for (const bar of bars) candles.push(candleOfSimulatedBar(bar, spec.digits));
      pageFromMs = pageToMs;
      onProgress?.(progress(fromMs, pageFromMs, endMs));
    }
    onProgress?.(1);
    return candles;
  }
}

/**
 * The market-data service's history by date (GET /v1/market-data/candles with from and to),
 * page after page through `next_from`, each page at most the service's MAX_CANDLES (or
 * `pageSize`). The service reads its feed's history: the simulated market for its SIM_SEED, or
 * the real venue's documented history calls, paced within their limits.
 */
export class MarketDataLabHistory implements LabHistory {
  readonly source = 'venue';
  constructor(
    private readonly client: MarketDataClient,
    private readonly options: { pageSize?: number } = {},
  ) {}

  async catalog(): Promise<Array<{ symbol: string; digits: number }>> {
    return (await this.client.symbols()).map((e) => ({ symbol: e.symbol, digits: e.digits }));
  }

  async candles(symbol: string, timeframe: Timeframe, fromSec: number, toSec: number, onProgress?: (fraction: number) => void): Promise<LabCandle[]> {
    const lengthSec = TIMEFRAME_SECONDS[timeframe];
    const to = new Date(toSec * 1000).toISOString();
    const candles: LabCandle[] = [];
    // The service refuses an empty range (422); an empty range has no candle.
    if (fromSec >= toSec) return candles;
    for (let from: string | null = new Date(fromSec * 1000).toISOString(); from !== null;) {
      const page = await this.client.candlePage(symbol, timeframe, from, to, this.options.pageSize);
      for (const candle of page.candles) candles.push(candleOfInterval(candle, lengthSec));
      from = page.nextFrom;
      if (from !== null) onProgress?.(progress(fromSec * 1000, Date.parse(from), toSec * 1000));
    }
    onProgress?.(1);
    return candles;
  }
}

function progress(fromMs: number, reachedMs: number, endMs: number): number {
  return Math.min(1, Math.max(0, (reachedMs - fromMs) / (endMs - fromMs)));
}

/**
 * Missing market time the lab trades through as the data has it, as a venue's own history has
 * it too: a holiday the market closed for, an outage of some hours. A range lacking more is
 * missing: a backtest on stored candles over it answers 422 CANDLES_NOT_COVERED.
 */
export const TOLERATED_MISSING_MINUTES = 24 * 60;

/** A range of a pair's candles the store lacks. */
export interface MissingCandles {
  instrument: string;
  from: string;
  to: string;
  /** Market minutes in it, the FX weekend left out. */
  open_minutes: number;
}

/** One series of the candle store, as GET /v1/market-data/stored-coverage names it. */
type StoredSeries = Awaited<ReturnType<MarketDataClient['storedCoverage']>>[number];

/** A symbol's letters and digits, upper case: EUR_USD, EUR/USD and EURUSD are one pair. */
function letters(symbol: string): string {
  return symbol.replace(/[^A-Za-z0-9]/g, '').toUpperCase();
}

/**
 * The market-data service's candle store (GET /v1/market-data/stored-candles), page after page
 * through `next_cursor`. A market symbol reads the series imported under the same letters
 * (EURUSD reads EUR_USD), in the timeframe as stored or else made by the service from the
 * source's M1; of several sources, the one lacking least of the range, then by name. Prices
 * are bids with their spread in points (midOfBid, as the venues' bars); a candle stored without
 * a spread is taken as it is and pays the fill model's spread.
 */
export class StoredLabHistory implements LabHistory {
  readonly source = 'stored';
  private digits: Map<string, number> | undefined;

  constructor(
    private readonly client: MarketDataClient,
    private readonly options: { pageSize?: number } = {},
  ) {}

  async catalog(): Promise<Array<{ symbol: string; digits: number }>> {
    return (await this.client.symbols()).map((e) => ({ symbol: e.symbol, digits: e.digits }));
  }

  /** Whether the store holds any candles of any of these symbols, in any timeframe. */
  async holdsAny(symbols: readonly string[]): Promise<boolean> {
    const wanted = new Set(symbols.map(letters));
    return (await this.client.storedCoverage()).some((s) => s.first !== null && wanted.has(letters(s.symbol)));
  }

  /** What the store lacks of [fromSec, toSec) for each pair, beyond TOLERATED_MISSING_MINUTES at a time: nothing when it covers them all. */
  async missing(pairs: ReadonlyArray<{ instrument: string; symbol: string }>, timeframe: Timeframe, fromSec: number, toSec: number): Promise<MissingCandles[]> {
    const series = await this.client.storedCoverage({ from: iso(fromSec), to: iso(toSec) });
    const missing: MissingCandles[] = [];
    for (const pair of pairs) {
      const chosen = chosenSeries(series, pair.symbol, timeframe);
      if (chosen === undefined) missing.push({ instrument: pair.instrument, from: iso(fromSec), to: iso(toSec), open_minutes: openMinutes(fromSec, toSec) });
      else for (const gap of lacking(chosen)) missing.push({ instrument: pair.instrument, from: gap.from, to: gap.to, open_minutes: gap.open_minutes });
    }
    return missing;
  }

  async candles(symbol: string, timeframe: Timeframe, fromSec: number, toSec: number, onProgress?: (fraction: number) => void): Promise<LabCandle[]> {
    const candles: LabCandle[] = [];
    if (fromSec >= toSec) return candles;
    const [from, to] = [iso(fromSec), iso(toSec)];
    const chosen = chosenSeries(await this.client.storedCoverage({ from, to }), symbol, timeframe);
    if (chosen === undefined) throw new RangeError(`the candle store holds no ${timeframe} or M1 candles of ${symbol}`);
    const point = 10 ** -(await this.digitsOf(symbol));
    const query = { symbol: chosen.symbol, timeframe, source: chosen.source, to, limit: this.options.pageSize };
    for (let page = await this.client.storedCandles({ ...query, from }); ;) {
      for (const c of page.candles) {
        candles.push(midOfBid(Date.parse(c.time) / 1000, c.open, c.high, c.low, c.close, c.volume, c.spread === null ? null : c.spread * point));
      }
      if (page.next_cursor === null) break;
      onProgress?.(progress(fromSec * 1000, Date.parse(page.candles.at(-1)?.time ?? from), toSec * 1000));
      page = await this.client.storedCandles({ ...query, cursor: page.next_cursor });
    }
    onProgress?.(1);
    return candles;
  }

  private async digitsOf(symbol: string): Promise<number> {
    this.digits ??= new Map((await this.catalog()).map((e) => [e.symbol, e.digits]));
    const digits = this.digits.get(symbol);
    if (digits === undefined) throw new RangeError(`the market does not list ${symbol}: its candles' spread cannot be read in points`);
    return digits;
  }
}

/** The series a pair reads: per source the timeframe as stored or else its M1; of those, the one lacking least, then by source. */
function chosenSeries(series: readonly StoredSeries[], symbol: string, timeframe: Timeframe): StoredSeries | undefined {
  const wanted = letters(symbol);
  const bySource = new Map<string, StoredSeries>();
  for (const s of series) {
    if (letters(s.symbol) !== wanted || (s.timeframe !== timeframe && s.timeframe !== 'M1')) continue;
    const held = bySource.get(s.source);
    if (held === undefined || s.timeframe === timeframe) bySource.set(s.source, s);
  }
  const lackedMinutes = (s: StoredSeries) => lacking(s).reduce((sum, gap) => sum + gap.open_minutes, 0);
  return [...bySource.values()].filter((s) => s.first !== null).sort((a, b) => lackedMinutes(a) - lackedMinutes(b) || a.source.localeCompare(b.source))[0];
}

/** What a series lacks of the range beyond TOLERATED_MISSING_MINUTES at a time. */
function lacking(series: StoredSeries): StoredSeries['missing'] {
  return series.missing.filter((gap) => gap.open_minutes > TOLERATED_MISSING_MINUTES);
}

/** Market minutes of [fromSec, toSec) by the FX week of the lab's plan (Sunday 22:00 to Friday 22:00 UTC). */
function openMinutes(fromSec: number, toSec: number): number {
  return candlesBetween('M1', fromSec, toSec, 'fx_week');
}

function iso(sec: number): string {
  return new Date(sec * 1000).toISOString();
}
