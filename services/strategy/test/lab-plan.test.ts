import { isWeeklyOpen, SimulatedMarket } from '@fxdesk/broker';
import { AppError } from '@fxdesk/core';
import { ManualClock } from '@fxdesk/primitives';
import { TIMEFRAME_SECONDS, TIMEFRAMES, type BacktestRequest, type Timeframe } from '@fxdesk/schemas';
import { describe, expect, it } from 'vitest';
import { SimulatedLabHistory } from '../src/lab/candles.js';
import { candlesBetween, planBacktest, type Catalog, type HistoryHours } from '../src/lab/plan.js';
import { testConfig } from './helpers.js';

const NOW_MS = Date.UTC(2026, 5, 1);
const FIVE_YEARS_M1: BacktestRequest = { instruments: ['EUR_USD'], timeframe: 'M1', from: '2021-05-01', to: '2026-05-01' };
const catalog: Catalog = new Map([['EURUSD', 5]]);

function history(marketHours: boolean): SimulatedLabHistory {
  return new SimulatedLabHistory(new SimulatedMarket({ seed: 'lab-plan', tickIntervalMs: 1000, marketHours, clock: new ManualClock(NOW_MS) }));
}

function plan(request: BacktestRequest, hours: HistoryHours, maxCandles: number) {
  const config = testConfig({ LAB_MAX_CANDLES: String(maxCandles), WARMUP_CANDLES: '300' });
  return planBacktest(request, { config, catalog, hours, nowMs: NOW_MS });
}

/** The periods of [fromSec, toSec) with a minute in session, one minute at a time. */
function periodsInSession(timeframe: Timeframe, fromSec: number, toSec: number, hours: HistoryHours): number {
  const size = TIMEFRAME_SECONDS[timeframe];
  let count = 0;
  for (let start = Math.ceil(fromSec / size) * size; start < toSec; start += size) {
    let isOpen = false;
    for (let minute = start; minute < start + size && !isOpen; minute += 60) isOpen = hours === 'all_week' || isWeeklyOpen(minute * 1000);
    if (isOpen) count++;
  }
  return count;
}

function refusal(make: () => unknown): AppError {
  try {
    make();
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('the request was accepted');
}

describe('the candles a backtest loads, counted against LAB_MAX_CANDLES', { timeout: 120_000 }, () => {
  it('refuses five years of M1 on a market that trades all week (2,629,440 candles over the 2,000,000 default)', () => {
    const err = refusal(() => plan(FIVE_YEARS_M1, 'all_week', 2_000_000));
    expect(err.code).toBe('validation_error');
    expect(err.details).toEqual([{ path: 'body.to', message: expect.stringMatching(/holds 2629740 candles of M1 .* more than LAB_MAX_CANDLES \(2000000\)/) }]);
  });

  it('counts the same five years with FX hours exactly: the cap at that count takes it, one less refuses it', () => {
    const fromSec = Date.parse(FIVE_YEARS_M1.from) / 1000;
    const toSec = Date.parse(FIVE_YEARS_M1.to) / 1000;
    const count = candlesBetween('M1', fromSec, toSec, 'fx_week');
    // Whole FX weeks hold 5 × 1,440 minutes: five years are about 261 of them.
    expect(Math.abs(count - ((toSec - fromSec) / (7 * 86_400)) * 5 * 1440)).toBeLessThan(1440);
    expect(plan(FIVE_YEARS_M1, 'fx_week', count + 300).settings.warmup_candles).toBe(300);
    expect(refusal(() => plan(FIVE_YEARS_M1, 'fx_week', count + 299)).details?.[0]?.message).toMatch(new RegExp(`holds ${count + 300} candles`));
  });

  it.each([true, false])(
    'counts the periods in session, which the simulated market gives a bar each, every timeframe (market hours %s)',
    async (marketHours) => {
      const source = history(marketHours);
      const hours: HistoryHours = marketHours ? 'fx_week' : 'all_week';
      // Ranges that start and end inside weekends, sessions and bars.
      const ranges: Array<[string, string]> = [
        ['2026-01-02T21:37:00Z', '2026-01-12T03:11:00Z'],
        ['2025-12-27T00:00:00Z', '2026-01-04T22:00:00Z'],
        ['2025-11-30T23:59:00Z', '2025-12-06T00:01:00Z'],
      ];
      for (const timeframe of TIMEFRAMES) {
        for (const [from, to] of ranges) {
          const fromSec = Date.parse(from) / 1000;
          const toSec = Date.parse(to) / 1000;
          const loaded = await source.candles('EURUSD', timeframe, fromSec, toSec);
          const count = candlesBetween(timeframe, fromSec, toSec, hours);
          expect(count, `${timeframe} ${from} → ${to}`).toBe(periodsInSession(timeframe, fromSec, toSec, hours));
          // A bar for every period in session, but for a minute that happened to have no tick (M1).
          if (timeframe === 'M1') expect(count - loaded.length).toBeLessThanOrEqual(Math.ceil(loaded.length / 1000));
          else expect(loaded.length, `${timeframe} ${from} → ${to}`).toBe(count);
        }
      }
    },
  );

  it('counts D1 over five years as the simulated market gives them, six bars a week with FX hours', async () => {
    const fromSec = Date.parse(FIVE_YEARS_M1.from) / 1000;
    const toSec = Date.parse(FIVE_YEARS_M1.to) / 1000;
    const loaded = await history(true).candles('EURUSD', 'D1', fromSec, toSec);
    expect(candlesBetween('D1', fromSec, toSec, 'fx_week')).toBe(loaded.length);
  });
});
