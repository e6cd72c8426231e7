/**
 * A pair's candles as the lab holds them: one typed column per field in one SharedArrayBuffer,
 * 56 bytes a candle (an array of candle objects costs about 180), which the lab's worker threads
 * read in place (a posted SharedArrayBuffer is shared, not copied).
 */
import type { LabCandle } from './types.js';

/** The fields of a candle, in their order in the buffer. */
const FIELDS = ['time', 'open', 'high', 'low', 'close', 'volume', 'spread'] as const;
const BYTES = FIELDS.length * Float64Array.BYTES_PER_ELEMENT;

/**
 * Closed candles oldest first, `length` of them: `time` is the bar's open (epoch seconds), a
 * `spread` of NaN is none (a candle's null).
 */
export interface CandleColumns {
  readonly length: number;
  readonly time: Float64Array;
  readonly open: Float64Array;
  readonly high: Float64Array;
  readonly low: Float64Array;
  readonly close: Float64Array;
  readonly volume: Float64Array;
  readonly spread: Float64Array;
}

/** Room for `capacity` candles, in shared memory. */
function allocate(capacity: number): CandleColumns {
  const buffer = new SharedArrayBuffer(Math.max(1, capacity) * BYTES);
  const column = (i: number) => new Float64Array(buffer, i * capacity * Float64Array.BYTES_PER_ELEMENT, capacity);
  return { length: capacity, time: column(0), open: column(1), high: column(2), low: column(3), close: column(4), volume: column(5), spread: column(6) };
}

/** The candles [start, end) of `columns`, over the same memory. */
export function sliceColumns(columns: CandleColumns, start: number, end: number): CandleColumns {
  const from = Math.max(0, Math.min(start, columns.length));
  const to = Math.max(from, Math.min(end, columns.length));
  return {
    length: to - from,
    time: columns.time.subarray(from, to),
    open: columns.open.subarray(from, to),
    high: columns.high.subarray(from, to),
    low: columns.low.subarray(from, to),
    close: columns.close.subarray(from, to),
    volume: columns.volume.subarray(from, to),
    spread: columns.spread.subarray(from, to),
  };
}

/**
 * Columns filled a candle at a time: room for the expected count at once (no copy on the way
 * when it is right), doubled when more come; `finish` answers exactly the candles pushed.
 */
export class ColumnsBuilder {
  private columns: CandleColumns;
  private count = 0;

  constructor(expected: number) {
    this.columns = allocate(expected);
  }

  get length(): number {
    return this.count;
  }

  push(candle: LabCandle): void {
    if (this.count === this.columns.length) this.columns = copyInto(this.columns, this.count, allocate(Math.max(1024, this.count * 2)));
    const c = this.columns;
    const i = this.count++;
    c.time[i] = candle.time;
    c.open[i] = candle.open;
    c.high[i] = candle.high;
    c.low[i] = candle.low;
    c.close[i] = candle.close;
    c.volume[i] = candle.volume;
    c.spread[i] = candle.spread ?? Number.NaN;
  }

  /** The candles pushed, in memory of their own size. */
  finish(): CandleColumns {
    if (this.count === this.columns.length) return this.columns;
    return copyInto(this.columns, this.count, allocate(this.count));
  }
}

function copyInto(source: CandleColumns, length: number, target: CandleColumns): CandleColumns {
  for (const field of FIELDS) target[field].set(source[field].subarray(0, length));
  return target;
}

/** The candles as columns. */
export function columnsOf(candles: readonly LabCandle[]): CandleColumns {
  const builder = new ColumnsBuilder(candles.length);
  for (const candle of candles) builder.push(candle);
  return builder.finish();
}

/** Candle `i` of the columns written into `into` (a new candle by default). */
export function candleAt(
  columns: CandleColumns,
  i: number,
  into: LabCandle = { time: 0, open: 0, high: 0, low: 0, close: 0, volume: 0, spread: null },
): LabCandle {
  into.time = columns.time[i]!;
  into.open = columns.open[i]!;
  into.high = columns.high[i]!;
  into.low = columns.low[i]!;
  into.close = columns.close[i]!;
  into.volume = columns.volume[i]!;
  const spread = columns.spread[i]!;
  into.spread = Number.isNaN(spread) ? null : spread;
  return into;
}

/** The candles of the columns as objects (tests, charts). */
export function candlesOf(columns: CandleColumns): LabCandle[] {
  return Array.from({ length: columns.length }, (_, i) => candleAt(columns, i));
}

/** The index of the first candle opened at or after timeSec. */
export function firstAtOrAfter(time: Float64Array, timeSec: number): number {
  let low = 0;
  let high = time.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (time[mid]! < timeSec) low = mid + 1;
    else high = mid;
  }
  return low;
}
