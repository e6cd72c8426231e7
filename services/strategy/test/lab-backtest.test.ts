import { describe, expect, it } from 'vitest';
import { PairTracker, trackerSettingsOf } from '../src/pair-tracker.js';
import { decide, ruleSettingsOf } from '../src/signal-rule.js';
import {
  BacktestCancelledError,
  MAX_EQUITY_POINTS,
  conversionInstruments,
  ratesFromCandles,
  type ConversionRates,
  type LabCandle,
} from '../src/lab/backtest.js';
import { FILLS, FRIDAY_LAST, M5, RULES, SUNDAY_OPEN, TERMS, WEDNESDAY, backtest, candle, history, pairOf } from './lab-fixtures.js';

const iso = (timeSec: number) => new Date(timeSec * 1000).toISOString();

// Every fixture: the default spread of 10 points (half: 5 points), 2 points of slippage, 7 USD
// commission a lot, 1 lot (100 000 units) unless said otherwise. EUR_USD: a point is 0.00001.
// The signal on the last history candle: LONG entry 1.08206, stop 1.08152, target 1.08314.
// An entry candle opening at 1.08210 fills at 1.08210 + 0.00005 + 0.00002 = 1.08217; the position
// then closes at the bid (mid − 0.00005).

describe('the fixtures’ signal', () => {
  it('is the rule’s own on the last history candle, at each scale', () => {
    for (const [scale, digits, expected] of [
      [1, 5, { type: 'LONG', entry: 1.08206, stopLoss: 1.08152, takeProfit: 1.08314 }],
      [130, 3, { type: 'LONG', entry: 140.667, stopLoss: 140.597, takeProfit: 140.807 }],
      [0.8, 5, { type: 'LONG', entry: 0.86565, stopLoss: 0.86521, takeProfit: 0.86653 }],
    ] as const) {
      const tracker = new PairTracker('X_Y', 'XY', digits, trackerSettingsOf(RULES, 'M5', 0));
      const candles = history(WEDNESDAY, scale, digits);
      for (const c of candles.slice(0, -1)) tracker.push(c);
      tracker.push(candles.at(-1)!);
      expect(decide(tracker.latest!, ruleSettingsOf(RULES, digits))).toMatchObject(expected);
    }
  });
});

describe('a backtest trades', () => {
  const t1 = WEDNESDAY + M5;
  const t2 = WEDNESDAY + 2 * M5;

  it('the stop when the stop and the target both lie inside one candle', () => {
    // Entry candle: bid high 1.08400 − 0.00005 = 1.08395 ≥ target 1.08314 and bid low
    // 1.08100 − 0.00005 = 1.08095 ≤ stop 1.08152: which came first is unknown, the stop is taken,
    // at 1.08152 − 0.00002 = 1.08150. P/L (1.08150 − 1.08217) × 100 000 = −67 − 7 = −74 USD;
    // risk (1.08217 − 1.08152) × 100 000 = 65 USD, so R = −74 / 65 = −1.1385.
    const r = backtest([pairOf('EUR_USD', [...history(WEDNESDAY), candle(t1, 1.0821, 1.084, 1.081, 1.083)])], WEDNESDAY);
    expect(r.trades).toEqual([
      {
        instrument: 'EUR_USD',
        side: 'LONG',
        signal_time: iso(WEDNESDAY),
        entry_time: iso(t1),
        entry_price: 1.08217,
        exit_time: iso(t1),
        exit_price: 1.0815,
        exit_reason: 'stop',
        volume_lots: 1,
        pnl: -74,
        r_multiple: -1.1385,
        duration_seconds: 300,
        commission: 7,
      },
    ]);
    expect(r.metrics.overall.final_equity).toBe(100_000 - 74);
  });

  it('a gap through the stop at the open, less the slippage', () => {
    // Entry candle quiet (bid 1.08185..1.08225). The next opens at 1.08100: bid 1.08095 is below
    // the stop, so it fills there − 0.00002 = 1.08093. P/L (1.08093 − 1.08217) × 100 000 = −124 − 7
    // = −131 USD; R = −131 / 65 = −2.0154.
    const r = backtest(
      [pairOf('EUR_USD', [...history(WEDNESDAY), candle(t1, 1.0821, 1.0823, 1.0819, 1.0822), candle(t2, 1.081, 1.0812, 1.0805, 1.0811)])],
      WEDNESDAY,
    );
    expect(r.trades).toHaveLength(1);
    expect(r.trades[0]).toMatchObject({ exit_time: iso(t2), exit_price: 1.08093, exit_reason: 'stop', pnl: -131, r_multiple: -2.0154, duration_seconds: 600 });
  });

  it('a weekend gap through the stop at the week’s open', () => {
    // Signal Friday 21:50, entry 21:55 at 1.08217. Sunday 22:00 opens at 1.08000: bid 1.07995,
    // fill 1.07993. P/L (1.07993 − 1.08217) × 100 000 = −224 − 7 = −231 USD; R = −231 / 65 = −3.5538.
    // Held from Friday 21:55 to the end of Sunday's 22:00 candle: 48 h 10 min = 173 400 s.
    const signal = FRIDAY_LAST - M5;
    const r = backtest(
      [pairOf('EUR_USD', [...history(signal), candle(FRIDAY_LAST, 1.0821, 1.0823, 1.0819, 1.0822), candle(SUNDAY_OPEN, 1.08, 1.0801, 1.0795, 1.0799)])],
      signal,
    );
    expect(r.trades).toHaveLength(1);
    expect(r.trades[0]).toMatchObject({ entry_time: iso(FRIDAY_LAST), exit_time: iso(SUNDAY_OPEN), exit_price: 1.07993, pnl: -231, r_multiple: -3.5538 });
    expect(r.trades[0]!.duration_seconds).toBe(173_400);
  });

  it('a Friday signal at the week’s next open, gap included, then its target', () => {
    // Signal Friday 21:55; the next candle is Sunday 22:00, opening at 1.08260: entry 1.08260 +
    // 0.00007 = 1.08267 (the stops are still valid: bid 1.08255 lies between 1.08152 and 1.08314).
    // The candle after reaches bid 1.08330 − 0.00005 = 1.08325 ≥ 1.08314: the target fills at
    // 1.08314, no slippage (a limit). P/L (1.08314 − 1.08267) × 100 000 = 47 − 7 = 40 USD;
    // R = 40 / ((1.08267 − 1.08152) × 100 000 = 115) = 0.3478.
    const r = backtest(
      [
        pairOf('EUR_USD', [
          ...history(FRIDAY_LAST),
          candle(SUNDAY_OPEN, 1.0826, 1.0827, 1.0825, 1.0826),
          candle(SUNDAY_OPEN + M5, 1.0826, 1.0833, 1.0825, 1.0832),
        ]),
      ],
      FRIDAY_LAST,
    );
    expect(r.trades).toHaveLength(1);
    expect(r.trades[0]).toMatchObject({
      signal_time: iso(FRIDAY_LAST),
      entry_time: iso(SUNDAY_OPEN),
      entry_price: 1.08267,
      exit_price: 1.08314,
      exit_reason: 'target',
      pnl: 40,
      r_multiple: 0.3478,
    });
  });

  it('a target the open already passed at that open', () => {
    // The candle after the entry opens at 1.08400: bid 1.08395 is beyond the target 1.08314, so the
    // limit fills at 1.08395. P/L (1.08395 − 1.08217) × 100 000 = 178 − 7 = 171 USD.
    const r = backtest(
      [pairOf('EUR_USD', [...history(WEDNESDAY), candle(t1, 1.0821, 1.0823, 1.0819, 1.0822), candle(t2, 1.084, 1.0841, 1.0839, 1.084)])],
      WEDNESDAY,
    );
    expect(r.trades[0]).toMatchObject({ exit_price: 1.08395, exit_reason: 'target', pnl: 171 });
  });

  it('a JPY pair in JPY, converted to USD at the exit candle’s close', () => {
    // USD_JPY (3 digits, a point 0.001): signal LONG 140.667, stop 140.597, target 140.807. Entry
    // candle opens at 140.670: 140.670 + 0.005 + 0.002 = 140.677. It reaches bid 140.900 − 0.005 =
    // 140.895 ≥ 140.807 (low bid 140.645 stays above the stop): target 140.807. P/L (140.807 −
    // 140.677) × 100 000 = 13 000 JPY, at the candle's close 140.850: 92.2968 USD − 7 = 85.30 USD.
    // Risk (140.677 − 140.597) × 100 000 = 8 000 JPY = 56.7980 USD: R = 85.30 / 56.7980 = 1.5018.
    const r = backtest([pairOf('USD_JPY', [...history(WEDNESDAY, 130, 3), candle(t1, 140.67, 140.9, 140.65, 140.85)], 3)], WEDNESDAY);
    expect(r.trades).toHaveLength(1);
    expect(r.trades[0]).toMatchObject({ entry_price: 140.677, exit_price: 140.807, exit_reason: 'target', pnl: 85.3, r_multiple: 1.5018 });
  });

  it('a cross in its quote currency, converted through the rates at the exit', () => {
    // EUR_GBP: signal LONG 0.86565, stop 0.86521, target 0.86653. Entry candle opens 0.86570:
    // 0.86577. Its bid high 0.86700 − 0.00005 = 0.86695 ≥ target: 0.86653. P/L (0.86653 − 0.86577)
    // × 100 000 = 76 GBP; GBP→USD is 1.20 before the exit candle and 1.25 at it: 95 USD − 7 = 88 USD.
    // Risk (0.86577 − 0.86521) × 100 000 = 56 GBP = 70 USD: R = 88 / 70 = 1.2571.
    const exitTime = t1;
    const rates: ConversionRates = { rate: (from, to, timeSec) => (from === 'GBP' && to === 'USD' ? (timeSec >= exitTime ? 1.25 : 1.2) : undefined) };
    const r = backtest([pairOf('EUR_GBP', [...history(WEDNESDAY, 0.8, 5), candle(t1, 0.8657, 0.867, 0.8656, 0.8668)])], WEDNESDAY, { rates });
    expect(r.trades[0]).toMatchObject({ entry_price: 0.86577, exit_price: 0.86653, pnl: 88, r_multiple: 1.2571 });
  });

  it('refuses to guess a rate it was not given', () => {
    const pairs = [pairOf('EUR_GBP', [...history(WEDNESDAY, 0.8, 5), candle(t1, 0.8657, 0.867, 0.8656, 0.8668)])];
    expect(() => backtest(pairs, WEDNESDAY, { rates: { rate: () => undefined } })).toThrow('no GBP→USD rate');
  });

  it('sizes by risk percent, rounded down to 0.01 lots, and skips a signal that rounds to 0', () => {
    // 1 % of 100 000 = 1 000 USD over 54 USD a lot (the signal's entry 1.08206 to stop 1.08152, as
    // live measures it before the fill) = 18.51 lots (18.518… rounded down); of 500: 5 / 54 = 0.0925
    // → 0.09; of 50: 0.5 / 54 = 0.0092 → 0, skipped. 18.51 lots stopped as in the first fixture (the
    // fill at 1.08217, so a 65-point loss): (−67 − 7) × 18.51 = −1 369.74 USD.
    const pairs = [pairOf('EUR_USD', [...history(WEDNESDAY), candle(t1, 1.0821, 1.084, 1.081, 1.083)])];
    const byRisk = { rules: { ...RULES, riskPercent: 1 }, terms: TERMS };
    const big = backtest(pairs, WEDNESDAY, byRisk);
    expect(big.trades[0]).toMatchObject({ volume_lots: 18.51, pnl: -1369.74, commission: 129.57 });
    expect(backtest(pairs, WEDNESDAY, { ...byRisk, initialBalance: 500 }).trades[0]?.volume_lots).toBe(0.09);
    const none = backtest(pairs, WEDNESDAY, { ...byRisk, initialBalance: 50 });
    expect(none.trades).toEqual([]);
    expect(none.skipped_signals).toBeGreaterThanOrEqual(1);
  });

  it('rounds fixed lots down to the step too', () => {
    const pairs = [pairOf('EUR_USD', [...history(WEDNESDAY), candle(t1, 1.0821, 1.084, 1.081, 1.083)])];
    expect(backtest(pairs, WEDNESDAY, { fills: { ...FILLS, volume: { lots: 0.299 } } }).trades[0]?.volume_lots).toBe(0.29);
  });

  it('closes what is open at the end at the last candle’s close (end_of_data)', () => {
    // Two quiet candles; the window ends. Close 1.08240, bid 1.08235: (1.08235 − 1.08217) × 100 000
    // = 18 − 7 = 11 USD.
    const r = backtest(
      [pairOf('EUR_USD', [...history(WEDNESDAY), candle(t1, 1.0821, 1.0823, 1.0819, 1.0822), candle(t2, 1.0822, 1.0825, 1.0821, 1.0824)])],
      WEDNESDAY,
    );
    expect(r.trades).toHaveLength(1);
    expect(r.trades[0]).toMatchObject({ exit_time: iso(t2), exit_price: 1.08235, exit_reason: 'end_of_data', pnl: 11 });
    expect(r.metrics.overall.net_profit).toBe(11);
    expect(r.equity.at(-1)).toMatchObject({ time: iso(t2), equity: 100_011 });
  });

  it('ends a position at the last good candle when the data ends in a malformed one', () => {
    const bad = { ...candle(t2 + M5, 1.0824, 1.0823, 1.0825, 1.0824) };
    const r = backtest(
      [pairOf('EUR_USD', [...history(WEDNESDAY), candle(t1, 1.0821, 1.0823, 1.0819, 1.0822), candle(t2, 1.0822, 1.0825, 1.0821, 1.0824), bad])],
      WEDNESDAY,
    );
    expect(r.trades.map((t) => [t.exit_time, t.exit_reason, t.pnl])).toEqual([[iso(t2), 'end_of_data', 11]]);
  });

  it('does not enter where the broker would refuse the stops: the open already beyond the stop', () => {
    const r = backtest([pairOf('EUR_USD', [...history(WEDNESDAY), candle(t1, 1.0814, 1.0816, 1.0812, 1.0815)])], WEDNESDAY);
    expect(r.trades).toEqual([]);
    expect(r.skipped_signals).toBeGreaterThanOrEqual(1);
  });

  it('holds one position per pair: signals while it is open are skipped, on each pair alike', () => {
    // Stops and targets out of reach (20 ATRs, 20 R): the first position lasts to the end of the data.
    const candles = history(WEDNESDAY).concat([]);
    const long = [...candles, ...Array.from({ length: 600 }, (_, i) => candles[i % 200]!).map((c, i) => ({ ...c, time: WEDNESDAY + (i + 1) * M5 }))];
    const rules = { ...RULES, minStopAtr: 20, riskReward: 20, minConfluence: 1 };
    const r = backtest([pairOf('EUR_USD', long), pairOf('GBP_USD', long)], WEDNESDAY, { rules });
    expect(r.trades.map((t) => [t.instrument, t.exit_reason])).toEqual([
      ['EUR_USD', 'end_of_data'],
      ['GBP_USD', 'end_of_data'],
    ]);
    expect(r.signals).toBeGreaterThan(10);
    expect(r.skipped_signals).toBe(r.signals - 2);
  });
});

describe('a backtest run', () => {
  const pairs = [pairOf('EUR_USD', history(WEDNESDAY))];
  const from = pairs[0]!.candles.time[150]!;

  it('is deterministic', () => {
    expect(backtest(pairs, from)).toEqual(backtest(pairs, from));
  });

  it('reports progress at most 100 times, ending at 1, and stops when cancelled', () => {
    const base = history(WEDNESDAY);
    const long = [
      pairOf(
        'EUR_USD',
        Array.from({ length: 20_000 }, (_, i) => ({ ...base[i % 207]!, time: WEDNESDAY + i * M5 })),
      ),
    ];
    const seen: number[] = [];
    backtest(long, WEDNESDAY + 300 * M5, { onProgress: (f) => seen.push(f) });
    expect(seen.length).toBeLessThanOrEqual(100);
    expect(seen.at(-1)).toBe(1);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    expect(() => backtest(long, WEDNESDAY + 300 * M5, { isCancelled: () => true })).toThrow(BacktestCancelledError);
  });

  it('keeps at most 5 000 equity points and the first and last, in time order', () => {
    const base = history(WEDNESDAY);
    const long = [
      pairOf(
        'EUR_USD',
        Array.from({ length: 20_000 }, (_, i) => ({ ...base[i % 207]!, time: WEDNESDAY + i * M5 })),
      ),
    ];
    const { equity } = backtest(long, WEDNESDAY + 300 * M5);
    expect(equity.length).toBeGreaterThan(4000);
    expect(equity.length).toBeLessThanOrEqual(MAX_EQUITY_POINTS + 2);
    expect(equity[0]!.time).toBe(iso(WEDNESDAY + 300 * M5));
    expect(equity.at(-1)!.time).toBe(iso(WEDNESDAY + 19_999 * M5));
    const times = equity.map((p) => Date.parse(p.time));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(new Set(times).size).toBe(times.length);
  });
});

describe('conversion', () => {
  it('names the pairs a cross needs that are not traded, as the market quotes them', () => {
    expect(conversionInstruments(['EUR_USD', 'USD_JPY', 'EUR_GBP', 'AUD_JPY', 'EUR_CHF', 'GBP_AUD', 'GBP_USD'], 'USD')).toEqual(['USD_CHF', 'AUD_USD']);
  });

  it('reads rates from candles: the latest close at or before the time, inverted, or through USD', () => {
    const series = (closes: number[]): LabCandle[] => closes.map((close, i) => candle(1000 + i * M5, close, close, close, close));
    const rates = ratesFromCandles([pairOf('GBP_USD', series([1.25, 1.26, 1.27])), pairOf('USD_JPY', series([150, 151, 152]), 3)], 'USD');
    expect(rates.rate('GBP', 'USD', 999)).toBeUndefined();
    expect(rates.rate('GBP', 'USD', 1000 + M5 + 10)).toBe(1.26);
    expect(rates.rate('GBP', 'USD', 1000)).toBe(1.25);
    expect(rates.rate('JPY', 'USD', 99_999)).toBe(1 / 152);
    expect(rates.rate('GBP', 'JPY', 1000 + M5)).toBeCloseTo(1.26 * 151, 10);
    expect(rates.rate('CHF', 'USD', 1000)).toBeUndefined();
  });
});
