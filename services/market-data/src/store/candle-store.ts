import type { Database, SqlParams } from '@fxdesk/core';
import type { Timeframe } from '@fxdesk/schemas';
import type { StoredCandle } from './resample.js';

/** One series of candles: what a candle is keyed by, beside its time. */
export interface SeriesKey {
  source: string;
  symbol: string;
  timeframe: Timeframe;
}

/** Prices are stored in millionths: integers, exact to six decimals, and smaller and faster to store than doubles. */
export const MICROS = 1_000_000;

/** A candle as a row of the store: of the series `series` (the id the store gave its key), its prices in millionths. */
export interface CandleRow {
  series: number;
  time: number;
  open_micros: number;
  high_micros: number;
  low_micros: number;
  close_micros: number;
  volume: number;
  spread: number | null;
}

/** The row of a candle in `series`: its prices rounded to millionths. */
export function rowOf(series: number, c: StoredCandle): CandleRow {
  const micros = (price: number) => Math.round(price * MICROS);
  return {
    series,
    time: c.time,
    open_micros: micros(c.open),
    high_micros: micros(c.high),
    low_micros: micros(c.low),
    close_micros: micros(c.close),
    volume: c.volume,
    spread: c.spread,
  };
}

/** A stored row as a candle; a price in millionths over a million reads as the double its six decimals write. */
function candleOf(row: Omit<CandleRow, 'series'>): StoredCandle {
  return {
    time: row.time,
    open: row.open_micros / MICROS,
    high: row.high_micros / MICROS,
    low: row.low_micros / MICROS,
    close: row.close_micros / MICROS,
    volume: row.volume,
    spread: row.spread,
  };
}

/** A series the store holds, with the range of its candles. */
export interface SeriesRange extends SeriesKey {
  id: number;
  candles: number;
  /** Start of the first and of the last candle, UTC epoch ms. */
  firstMs: number;
  lastMs: number;
}

/** Candles a read holds in memory at most, per page. */
export const MAX_PAGE_CANDLES = 10_000;

const COLUMNS = ['series', 'time', 'open_micros', 'high_micros', 'low_micros', 'close_micros', 'volume', 'spread'] as const;
const ON_CONFLICT = 'ON CONFLICT (series, time) DO NOTHING';
const ADD_SERIES = `INSERT INTO market_data_series (source, symbol, timeframe) VALUES (@source, @symbol, @timeframe)
  ON CONFLICT (source, symbol, timeframe) DO NOTHING`;
const SERIES_ID = 'SELECT id FROM market_data_series WHERE source = @source AND symbol = @symbol AND timeframe = @timeframe';
const PAGE = `SELECT time, open_micros, high_micros, low_micros, close_micros, volume, spread FROM market_data_candles
  WHERE series = @series AND time >= @from AND time < @to ORDER BY time LIMIT @limit`;
const RANGES = `SELECT s.id, s.source, s.symbol, s.timeframe, COUNT(c.time) AS candles, MIN(c.time) AS "firstMs", MAX(c.time) AS "lastMs"
  FROM market_data_series s JOIN market_data_candles c ON c.series = s.id
  GROUP BY s.id, s.source, s.symbol, s.timeframe ORDER BY s.symbol, s.timeframe, s.source`;
// The steps between a series' consecutive candles of [@from, @to) longer than @stepMs: few rows (weekends, holidays, holes).
const STEPS = `SELECT prev AS "fromMs", time AS "toMs" FROM (
    SELECT time, LAG(time) OVER (ORDER BY time) AS prev FROM market_data_candles WHERE series = @series AND time >= @from AND time < @to
  ) steps WHERE time - prev > @stepMs ORDER BY time`;
// The first and last candle of a series in [@from, @to): two seeks of the primary key, however long the series.
const BOUNDS = `SELECT MIN(time) AS "firstMs", MAX(time) AS "lastMs" FROM market_data_candles WHERE series = @series AND time >= @from AND time < @to`;
const SERIES_OF = `SELECT id, source, symbol, timeframe FROM market_data_series WHERE CAST(@symbol AS TEXT) IS NULL OR symbol = @symbol ORDER BY symbol, timeframe, source`;

/** The span of candles a query for steps reads at a time (30 days: 43,200 M1), with a turn of the event loop between spans. */
const STEPS_SPAN_MS = 30 * 86_400_000;

/**
 * The candles of every (source, symbol, timeframe), on the database openStoreDatabase picks. A
 * write adds only candles it does not hold yet, so importing a range again adds nothing; reads
 * come a page at a time.
 */
export class CandleStore {
  constructor(private readonly db: Database) {}

  /**
   * Adds the rows `rowsOf` makes for the series' id (each batch oldest first) in one transaction:
   * committed whole once the last batch is in, or not at all (the series' id included) if it
   * throws. Answers how many rows were new.
   *
   * The transaction stays open while `rowsOf` produces (a file being read): on SQLite it holds
   * this connection's other writes back meanwhile, which only an import makes; other processes
   * read the last committed state (WAL).
   */
  async add(key: SeriesKey, rowsOf: (series: number) => AsyncIterable<readonly CandleRow[]> | Iterable<readonly CandleRow[]>): Promise<{ added: number }> {
    return this.db.transaction(async (tx) => {
      await tx.run(ADD_SERIES, { ...key });
      const { id } = (await tx.one<{ id: number }>(SERIES_ID, { ...key })) as { id: number };
      let added = 0;
      for await (const rows of rowsOf(id)) {
        added += (await tx.insertMany('market_data_candles', COLUMNS, rows as unknown as readonly SqlParams[], ON_CONFLICT)).changes;
      }
      return { added };
    });
  }

  /** The id of a series, if the store has it. */
  async seriesId(key: SeriesKey): Promise<number | undefined> {
    return (await this.db.one<{ id: number }>(SERIES_ID, { ...key }))?.id;
  }

  /** The candles of a series whose start is in [fromMs, toMs), oldest first, at most `limit` (≤ MAX_PAGE_CANDLES). */
  async page(seriesId: number, fromMs: number, toMs: number, limit: number): Promise<StoredCandle[]> {
    const rows = await this.db.query<Omit<CandleRow, 'series'> & Record<string, unknown>>(PAGE, {
      series: seriesId,
      from: fromMs,
      to: toMs,
      limit: Math.min(Math.max(1, limit), MAX_PAGE_CANDLES),
    });
    return rows.map(candleOf);
  }

  /** The candles of a series in [fromMs, toMs), oldest first, read `pageSize` at a time: never more in memory. */
  async *read(seriesId: number, fromMs: number, toMs: number, pageSize = MAX_PAGE_CANDLES): AsyncGenerator<StoredCandle[]> {
    let from = fromMs;
    for (;;) {
      const page = await this.page(seriesId, from, toMs, pageSize);
      if (page.length > 0) yield page;
      if (page.length < Math.min(pageSize, MAX_PAGE_CANDLES)) return;
      from = (page[page.length - 1] as StoredCandle).time + 1;
    }
  }

  /** Every series holding candles, with its range; by symbol, timeframe and source. */
  ranges(): Promise<SeriesRange[]> {
    return this.db.query<SeriesRange & Record<string, unknown>>(RANGES);
  }

  /**
   * The steps between consecutive candles of a series longer than `stepMs`, as [fromMs, toMs] of
   * the candles on either side; only the candles that start in [fromMs, toMs). Read STEPS_SPAN_MS
   * of candles at a time, with a turn of the event loop after each span, so that a service
   * answering other requests never waits for a year of M1 at once.
   */
  async steps(seriesId: number, stepMs: number, fromMs = 0, toMs = Number.MAX_SAFE_INTEGER): Promise<{ fromMs: number; toMs: number }[]> {
    const bounds = await this.bounds(seriesId, fromMs, toMs);
    if (bounds === undefined) return [];
    const steps: { fromMs: number; toMs: number }[] = [];
    let last: number | undefined;
    for (let from = bounds.firstMs; from <= bounds.lastMs; from += STEPS_SPAN_MS) {
      const to = Math.min(from + STEPS_SPAN_MS, bounds.lastMs + 1);
      const span = await this.bounds(seriesId, from, to);
      if (span === undefined) continue;
      // The step into this span from the last candle of the one before.
      if (last !== undefined && span.firstMs - last > stepMs) steps.push({ fromMs: last, toMs: span.firstMs });
      steps.push(...(await this.db.query<{ fromMs: number; toMs: number }>(STEPS, { series: seriesId, stepMs, from, to })));
      last = span.lastMs;
      await new Promise((resolve) => setImmediate(resolve));
    }
    return steps;
  }

  /** The start of the first and of the last candle of a series in [fromMs, toMs), if it holds any there. */
  async bounds(seriesId: number, fromMs = 0, toMs = Number.MAX_SAFE_INTEGER): Promise<{ firstMs: number; lastMs: number } | undefined> {
    const row = await this.db.one<{ firstMs: number | null; lastMs: number | null }>(BOUNDS, { series: seriesId, from: fromMs, to: toMs });
    return row?.firstMs == null || row.lastMs == null ? undefined : { firstMs: Number(row.firstMs), lastMs: Number(row.lastMs) };
  }

  /** The series of a symbol (every symbol's when unset), with candles or not, by symbol, timeframe and source. */
  seriesOf(symbol?: string): Promise<Array<SeriesKey & { id: number }>> {
    return this.db.query<SeriesKey & { id: number } & Record<string, unknown>>(SERIES_OF, { symbol: symbol ?? null });
  }

  /** Sources holding candles of `symbol` in any timeframe (a series an import left empty aside). */
  async sources(symbol: string): Promise<string[]> {
    const rows = await this.db.query<{ source: string }>(
      `SELECT DISTINCT source FROM market_data_series s WHERE symbol = @symbol
        AND EXISTS (SELECT 1 FROM market_data_candles c WHERE c.series = s.id) ORDER BY source`,
      { symbol },
    );
    return rows.map((r) => r.source);
  }

  health(): Promise<{ ok: boolean; detail: string }> {
    return this.db.health();
  }

  close(): Promise<void> {
    return this.db.close();
  }
}
