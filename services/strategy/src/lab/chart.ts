import { isRealTime, LAB_TIME_MESSAGE, type Backtest, type BacktestCandlesQuery, type PairCandles } from '@fxdesk/schemas';
import { downstreamFailure, errors, refuseParameter } from '../errors.js';
import { PairTracker, trackerSettingsOf } from '../pair-tracker.js';
import { symbolOf } from '../symbols.js';
import { calendarSpanSec, firstAtOrAfter, type LabHistory } from './candles.js';
import { strategyRules } from '../rules.js';
import type { Catalog } from './plan.js';

export interface BacktestChartContext {
  /** The lab's history, the one its jobs read. */
  history: LabHistory;
  /** What the market lists (the pair's digits round the indicators as the run's tracker did). */
  catalog: () => Promise<Catalog>;
  symbolMap: Readonly<Record<string, string>>;
}

/**
 * Candles a chart's tracker reads before the first candle it answers, when the run started
 * earlier still. Measured on the simulated market (a year of M5, four pairs, two seeds, 280
 * windows of 600 candles): started 300 candles before, 34 windows chart a gap or a %K/%D
 * otherwise than the run did somewhere; started 1,200 or more before, none does.
 */
export const CHART_WARMUP_CANDLES = 3000;

/**
 * One pair's candles of a backtest for a chart (GET /backtests/{id}/candles): those of [from, to)
 * within the run's window, at most `limit` (the newest before `to` when the range holds more),
 * each with the indicators after it as a PairTracker on the RUN's rules gives them. The tracker
 * starts where the run's did (`warmup_candles` before its `from`), or CHART_WARMUP_CANDLES before
 * the first candle answered when that is later: a range within that reach of the run's start
 * charts exactly the indicators the run decided on, a later one those of a run started 3,000
 * candles before it, which were measured to be the same.
 */
export async function backtestCandles(backtest: Backtest, query: BacktestCandlesQuery, context: BacktestChartContext): Promise<PairCandles> {
  const { settings } = backtest;
  const { instrument, limit } = query;
  const { timeframe, warmup_candles: warmup } = settings;
  if (!settings.instruments.includes(instrument)) {
    throw errors.create('instrument_not_found', `${instrument} is not one of backtest ${backtest.id}'s instruments (${settings.instruments.join(', ')})`);
  }
  const { startSec, endSec } = rangeOf(settings, query);

  const symbol = symbolOf(instrument, context.symbolMap);
  const digits = (await context.catalog()).get(symbol);
  if (digits === undefined) throw errors.create('instrument_not_found', `${instrument} (symbol ${symbol}) is no longer listed by the market`);

  // Enough time before the end for `limit` candles (less when the range starts later), then the
  // warm-up before them, back to the run's own start at most.
  const runFromSec = Date.parse(settings.from) / 1000;
  const readFromSec = Math.max(
    runFromSec - calendarSpanSec(warmup, timeframe),
    Math.max(startSec, endSec - calendarSpanSec(limit, timeframe)) - calendarSpanSec(CHART_WARMUP_CANDLES, timeframe),
  );
  const candles = await context.history.candles(symbol, timeframe, readFromSec, endSec).catch((err: unknown) => {
    throw downstreamFailure(err, 'market-data');
  });
  const end = firstAtOrAfter(candles, endSec);
  const first = Math.max(firstAtOrAfter(candles, startSec), end - limit);
  const count = end - first;
  if (count <= 0) return { instrument, timeframe, candles: [] };

  // The run read `warmup` candles before its from; when those were read here, that is where it started.
  const runStart = Math.max(0, firstAtOrAfter(candles, runFromSec) - warmup);
  const tracker = new PairTracker(instrument, symbol, digits, trackerSettingsOf(strategyRules(settings.rules), timeframe, count));
  tracker.ingest(candles.slice(Math.max(runStart, first - CHART_WARMUP_CANDLES), end));
  return { instrument, timeframe, candles: tracker.chartCandles(count) };
}

/** The query's range within the run's window, in epoch seconds; 422 for a range that is empty or outside the window. */
function rangeOf(settings: Backtest['settings'], query: BacktestCandlesQuery): { startSec: number; endSec: number } {
  for (const field of ['from', 'to'] as const) {
    const text = query[field];
    if (text !== undefined && !isRealTime(text)) refuseParameter(`query.${field}`, LAB_TIME_MESSAGE);
  }
  const runFromSec = Date.parse(settings.from) / 1000;
  const runToSec = Date.parse(settings.to) / 1000;
  const fromSec = query.from === undefined ? runFromSec : Math.floor(Date.parse(query.from) / 1000);
  const toSec = query.to === undefined ? runToSec : Math.floor(Date.parse(query.to) / 1000);
  if (query.from !== undefined && query.to !== undefined && toSec <= fromSec) refuseParameter('query.to', `must be after from (${query.from})`);
  const startSec = Math.max(fromSec, runFromSec);
  const endSec = Math.min(toSec, runToSec);
  if (endSec <= startSec) {
    refuseParameter(
      query.from !== undefined && fromSec >= runToSec ? 'query.from' : 'query.to',
      `outside the backtest's window [${settings.from}, ${settings.to})`,
    );
  }
  return { startSec, endSec };
}
