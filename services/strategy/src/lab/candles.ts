import type { SimulatedMarket } from '@fxdesk/broker';
import type { MarketDataClient } from '@fxdesk/client';
import { TIMEFRAME_SECONDS, type LabData, type Timeframe } from '@fxdesk/schemas';
import { candleOfInterval, candleOfSimulatedBar } from '../market-source.js';
import type { LabCandle } from './types.js';

/** Where a backtest's candles come from: the simulated market, or the market-data service's history by date. */
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
