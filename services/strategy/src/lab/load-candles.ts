import { createHash } from 'node:crypto';
import { TIMEFRAME_SECONDS, type LabData } from '@fxdesk/schemas';
import { calendarSpanSec, type LabHistory } from './candles.js';
import { ColumnsBuilder, type CandleColumns } from './columns.js';
import { candlesBetween, type BacktestPlan, type HistoryHours, type PlannedPair } from './plan.js';
import type { BacktestPair, LabCandle } from './types.js';
import type { VolumeTerms } from '@fxdesk/trading';

/**
 * The periods of a job's range read from the history at a time: each part's candles (as objects)
 * go into the pair's columns before the next part is read, so loading holds the columns and one
 * part (some 20 MB), never the whole range as objects.
 */
const LOAD_PART_CANDLES = 100_000;

/** The candles a job loaded: the traded pairs and the pairs their conversion needs; the venue's volume terms when it sizes by risk. */
export interface LoadedCandles {
  pairs: BacktestPair[];
  conversion: BacktestPair[];
  terms?: Record<string, VolumeTerms>;
  /** Where they came from and their digest (absent on a part of them, a walk-forward window's: it names its sweep's). */
  data?: LabData;
}

/** The market could not give a job's candles. */
export class CandlesUnavailable extends Error {}

/**
 * The candles of a plan's pairs as columns, one pair after another: `warmup` candles before
 * fromSec (read from early enough to cover weekends), then those of [fromSec, toSec), a part of
 * LOAD_PART_CANDLES periods at a time. Settles at once when the signal aborts, whatever the
 * market is doing.
 */
export async function loadCandles(
  lab: { history: LabHistory; hours: HistoryHours },
  plan: BacktestPlan,
  onProgress: (f: number) => void,
  signal: AbortSignal,
): Promise<LoadedCandles> {
  const all = [...plan.pairs, ...plan.conversion];
  const loaded: BacktestPair[] = [];
  const partSec = LOAD_PART_CANDLES * TIMEFRAME_SECONDS[plan.timeframe];
  const parts: Array<[number, number]> = [[plan.fromSec - calendarSpanSec(plan.warmup, plan.timeframe), plan.fromSec]];
  for (let fromSec = plan.fromSec; fromSec < plan.toSec; fromSec += partSec) parts.push([fromSec, Math.min(plan.toSec, fromSec + partSec)]);
  // Room for what the plan counted: the columns are made once when the history has them all.
  const expected = plan.warmup + candlesBetween(plan.timeframe, plan.fromSec, plan.toSec, lab.hours);
  for (const [i, pair] of all.entries()) {
    const columns = new ColumnsBuilder(expected);
    for (const [p, [fromSec, toSec]] of parts.entries()) {
      const reading = lab.history.candles(pair.symbol, plan.timeframe, fromSec, toSec, (f) => onProgress((i + (p + f) / parts.length) / all.length));
      const candles = await untilAborted(reading, signal).catch((err: unknown) => {
        if (signal.aborted) throw err;
        throw new CandlesUnavailable(`the market could not give the candles of ${pair.symbol}: ${err instanceof Error ? err.message : String(err)}`, {
          cause: err,
        });
      });
      // Of the warm-up's part, its last `warmup` candles.
      for (let k = p === 0 ? Math.max(0, candles.length - plan.warmup) : 0; k < candles.length; k++) columns.push(candles[k] as LabCandle);
    }
    loaded.push(pairOf(pair, columns.finish()));
    onProgress((i + 1) / all.length);
  }
  return { pairs: loaded.slice(0, plan.pairs.length), conversion: loaded.slice(plan.pairs.length), data: await dataOf(lab.history.source, loaded) };
}

const COLUMNS = ['time', 'open', 'high', 'low', 'close', 'volume', 'spread'] as const;

/**
 * The data a result names: its source and the SHA-256 of every pair's symbol and columns (as
 * 64-bit floats, a spread of none being NaN), a turn of the event loop after each column so that
 * years of M1 never hold it.
 */
async function dataOf(source: LabData['source'], pairs: readonly BacktestPair[]): Promise<LabData> {
  const hash = createHash('sha256');
  let candles = 0;
  for (const pair of pairs) {
    const { length } = pair.candles;
    hash.update(`${pair.symbol}\n${length}\n`);
    for (const column of COLUMNS) {
      const values = pair.candles[column].subarray(0, length);
      hash.update(new Uint8Array(values.buffer, values.byteOffset, values.byteLength));
      await new Promise((resolve) => setImmediate(resolve));
    }
    candles += length;
  }
  return { source, sha256: hash.digest('hex'), candles };
}

function pairOf(pair: PlannedPair, candles: CandleColumns): BacktestPair {
  return { instrument: pair.instrument, symbol: pair.symbol, digits: pair.digits, candles };
}

function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  signal.throwIfAborted();
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
