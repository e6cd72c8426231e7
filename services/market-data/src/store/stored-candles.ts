import type { Timeframe } from '@fxdesk/schemas';
import { errors } from '../errors.js';
import type { CandleStore, SeriesKey } from './candle-store.js';
import { gapsOf, gapThresholdMs, type Gap } from './coverage.js';
import { FxCalendar } from './fx-calendar.js';
import { Resampler, timeframeMs, type StoredCandle } from './resample.js';

export interface StoredCandlesQuery {
  symbol: string;
  timeframe: Timeframe;
  /** Unset: the one source holding the symbol (several: 422 `source_required`). */
  source?: string;
  /** The candles whose start is in [fromMs, toMs). */
  fromMs: number;
  toMs: number;
  limit: number;
}

/** What a series holds of a range: its first and last candle there (null: none), the gaps between, and all it lacks of the range. */
export interface SeriesCoverageOf extends SeriesKey {
  firstMs: number | null;
  lastMs: number | null;
  gaps: Gap[];
  /** The gaps, and the range's market time before the first candle (from a bounded `from`) and after the last (to a bounded `to`) beyond the threshold. */
  missing: Gap[];
}

export interface StoredCandlesPage {
  source: string;
  /** `M1` when the timeframe is not stored and its bars were made from the stored M1, else null. */
  resampledFrom: 'M1' | null;
  candles: StoredCandle[];
  /** Where the next page starts (the start of its first candle), or null when the range holds no more. */
  nextMs: number | null;
}

/**
 * Stored history by date range, a page at a time: the timeframe as stored, or else made from
 * the stored M1 of the same source (see Resampler: D1 at 17:00 New York, no weekend bars).
 */
export class StoredCandles {
  constructor(
    private readonly store: CandleStore,
    private readonly calendar = new FxCalendar(),
  ) {}

  async page(query: StoredCandlesQuery): Promise<StoredCandlesPage> {
    const source = query.source ?? (await this.onlySource(query.symbol));
    const stored = await this.store.seriesId({ source, symbol: query.symbol, timeframe: query.timeframe });
    if (stored !== undefined) {
      const rows = await this.store.page(stored, query.fromMs, query.toMs, query.limit + 1);
      const next = rows.length > query.limit ? (rows[query.limit] as StoredCandle).time : null;
      return { source, resampledFrom: null, candles: rows.slice(0, query.limit), nextMs: next };
    }
    const m1 = await this.store.seriesId({ source, symbol: query.symbol, timeframe: 'M1' });
    if (m1 === undefined) throw errors.create('no_stored_candles', `no ${query.timeframe} or M1 candles of ${query.symbol} from ${source} are stored`);
    return { source, resampledFrom: 'M1', ...(await this.resampled(m1, query)) };
  }

  /**
   * Per series of the symbol (every symbol's when unset), what it holds of [fromMs, toMs): its
   * first and last candle there and the gaps between them beyond the weekend (coverage.ts). Two
   * seeks a series, and the steps a span of candles at a time: never the whole series at once.
   */
  async coverage(symbol: string | undefined, fromMs: number, toMs: number): Promise<SeriesCoverageOf[]> {
    const covered: SeriesCoverageOf[] = [];
    for (const series of await this.store.seriesOf(symbol)) {
      const bounds = await this.store.bounds(series.id, fromMs, toMs);
      const gaps = bounds === undefined ? [] : await gapsOf(this.store, series, this.calendar, fromMs, toMs);
      const { id: _id, ...key } = series;
      covered.push({
        ...key,
        firstMs: bounds?.firstMs ?? null,
        lastMs: bounds?.lastMs ?? null,
        gaps,
        missing: this.missing(series.timeframe, fromMs, toMs, bounds, gaps),
      });
    }
    return covered;
  }

  /** The gaps and the bounded range's uncovered ends, each when its market time is beyond the gap threshold. */
  private missing(timeframe: Timeframe, fromMs: number, toMs: number, bounds: { firstMs: number; lastMs: number } | undefined, gaps: Gap[]): Gap[] {
    const bounded = (ms: number) => ms > 0 && ms < Number.MAX_SAFE_INTEGER;
    const span = (from: number, to: number): Gap[] => {
      const openMs = bounded(from) && bounded(to) && to > from ? this.calendar.openMs(from, to) : 0;
      return openMs > gapThresholdMs(timeframe) ? [{ fromMs: from, toMs: to, openMinutes: Math.round(openMs / 60_000) }] : [];
    };
    if (bounds === undefined) return span(fromMs, toMs);
    return [...span(fromMs, bounds.firstMs), ...gaps, ...span(bounds.lastMs + timeframeMs(timeframe), toMs)];
  }

  private async onlySource(symbol: string): Promise<string> {
    const sources = await this.store.sources(symbol);
    if (sources.length === 0) throw errors.create('no_stored_candles', `no candles of ${symbol} are stored`);
    if (sources.length > 1) throw errors.create('source_required', `candles of ${symbol} come from ${sources.join(', ')}: name one as \`source\``);
    return sources[0] as string;
  }

  /** Bars of `query.timeframe` from the M1 series, read a page of M1 at a time up to the end of the bar that starts last before `toMs`. */
  private async resampled(m1: number, query: StoredCandlesQuery): Promise<Pick<StoredCandlesPage, 'candles' | 'nextMs'>> {
    const resampler = new Resampler(query.timeframe, this.calendar);
    const bars: StoredCandle[] = [];
    const keep = (bar: StoredCandle | undefined): boolean => {
      if (bar === undefined || bar.time < query.fromMs) return true;
      if (bar.time >= query.toMs) return false;
      bars.push(bar);
      return bars.length <= query.limit;
    };
    // A bar that starts before `toMs` ends at most a bar (25 hours for a D1 across a DST change) after it.
    const untilMs = Math.min(Number.MAX_SAFE_INTEGER, query.toMs + timeframeMs(query.timeframe) + 3_600_000);
    reading: for await (const page of this.store.read(m1, query.fromMs, untilMs)) {
      for (const candle of page) if (!keep(resampler.push(candle))) break reading;
    }
    if (bars.length <= query.limit) keep(resampler.flush());
    const next = bars.length > query.limit ? (bars[query.limit] as StoredCandle).time : null;
    return { candles: bars.slice(0, query.limit), nextMs: next };
  }
}
