import { LAB_SKIP_REASONS, type LabSkipReason } from '@fxdesk/schemas';
import { describe, expect, it } from 'vitest';
import type { BacktestResult } from '../src/lab/backtest.js';
import { FILLS, M5, RULES, TERMS, WEDNESDAY, backtest, candle, history, pairOf } from './lab-fixtures.js';

// The fixtures of lab-backtest.test.ts: EUR_USD's signal on WEDNESDAY is LONG, stop 1.08152; its
// entry candle t1 opens at 1.08210 and fills at 1.08217 (half the 10-point spread and 2 points of
// slippage), 1 lot of 100 000 units, 7 USD a lot. GBP_USD's signal is the same candles' one
// candle later (history(t1)): LONG at t2's open. Every limit below refuses GBP_USD's entry at t2.
const t1 = WEDNESDAY + M5;
const t2 = WEDNESDAY + 2 * M5;
const t3 = WEDNESDAY + 3 * M5;

/** Bid 1.08185..1.08225: no stop or target reached. */
const quiet = (time: number) => candle(time, 1.0821, 1.0823, 1.0819, 1.0822);

/** EUR_USD's entry candle takes its stop (bid low 1.08095): (1.08150 − 1.08217) × 100 000 − 7 = −74 USD. */
const stopped = candle(t1, 1.0821, 1.0822, 1.081, 1.0815);

function eurUsd(entryCandle = quiet(t1)) {
  return pairOf('EUR_USD', [...history(WEDNESDAY), entryCandle, quiet(t2), quiet(t3)]);
}
function gbpUsd() {
  return pairOf('GBP_USD', [...history(t1), quiet(t2), quiet(t3)]);
}

/** The skips by reason with a count, overall and of one pair. */
function skips(result: BacktestResult, instrument?: string): Partial<Record<LabSkipReason, number>> {
  const all = instrument === undefined ? result.metrics.skipped?.overall : result.metrics.skipped?.per_pair[instrument];
  return Object.fromEntries(Object.entries(all ?? {}).filter(([, n]) => n > 0));
}

describe('the lab’s limits (RiskBook, @fxdesk/trading)', () => {
  it('change nothing when off: both pairs enter, nothing is skipped', () => {
    const r = backtest([eurUsd(), gbpUsd()], WEDNESDAY);
    expect(r.trades.map((t) => [t.instrument, t.entry_time])).toEqual([
      ['EUR_USD', new Date(t1 * 1000).toISOString()],
      ['GBP_USD', new Date(t2 * 1000).toISOString()],
    ]);
    expect(r.skipped_signals).toBe(0);
    expect(Object.keys(r.metrics.skipped!.overall)).toEqual([...LAB_SKIP_REASONS]);
  });

  it('skip an entry whose margin at the account’s leverage the free margin cannot hold, as the venue refuses it', () => {
    const lots = (n: number) => ({ fills: { ...FILLS, volume: { lots: n } }, leverage: 30 });
    // 15 lots at EUR_USD's entry 1.08206: 15 × 100 000 × 1.08206 / 30 = 54 103 USD of margin, within 100 000 free.
    // GBP_USD's 15 lots at t2 ask as much again, of the ~45 900 left: refused.
    const r = backtest([eurUsd(), gbpUsd()], WEDNESDAY, lots(15));
    expect(r.trades.map((t) => t.instrument)).toEqual(['EUR_USD']);
    expect(skips(r)).toEqual({ insufficient_margin: 1 });
    expect(skips(r, 'GBP_USD')).toEqual({ insufficient_margin: 1 });
    // 13 lots hold 46 889 each: both fit.
    expect(backtest([eurUsd(), gbpUsd()], WEDNESDAY, lots(13)).trades).toHaveLength(2);
    // 31 lots hold 111 813: more than the whole equity, refused at once.
    expect(skips(backtest([eurUsd()], WEDNESDAY, lots(31)))).toEqual({ insufficient_margin: 1 });
    // At 100:1 the same 15 lots hold 16 231 each.
    expect(backtest([eurUsd(), gbpUsd()], WEDNESDAY, { ...lots(15), leverage: 100 }).trades).toHaveLength(2);
    // Without a leverage (a caller of runBacktest that names none) no margin is held.
    expect(backtest([eurUsd(), gbpUsd()], WEDNESDAY, { fills: { ...FILLS, volume: { lots: 31 } } }).trades).toHaveLength(2);
  });

  it('refuse an entry past MAX_OPEN_TRADES, counted for its pair', () => {
    // EUR_USD is open at t2 (quiet candles): one open, the limit 1.
    const r = backtest([eurUsd(), gbpUsd()], WEDNESDAY, { rules: { ...RULES, maxOpenTrades: 1 } });
    expect(r.trades.map((t) => t.instrument)).toEqual(['EUR_USD']);
    expect(skips(r)).toEqual({ max_open_trades: 1 });
    expect(skips(r, 'GBP_USD')).toEqual({ max_open_trades: 1 });
    expect(skips(r, 'EUR_USD')).toEqual({});
    expect(r.skipped_signals).toBe(1);
  });

  it('refuse an entry that takes a currency past its exposure cap', () => {
    // Long EUR_USD 1 lot: USD −1. Long GBP_USD 1 lot would make USD −2, over 1.5.
    const r = backtest([eurUsd(), gbpUsd()], WEDNESDAY, { rules: { ...RULES, maxCurrencyExposureLots: 1.5 } });
    expect(r.trades.map((t) => t.instrument)).toEqual(['EUR_USD']);
    expect(skips(r, 'GBP_USD')).toEqual({ currency_exposure: 1 });
    // At 2 lots, USD −2 is within the cap.
    expect(backtest([eurUsd(), gbpUsd()], WEDNESDAY, { rules: { ...RULES, maxCurrencyExposureLots: 2 } }).trades).toHaveLength(2);
  });

  it('halt at the daily loss limit for the rest of the run, the skip counted under it', () => {
    // The day starts at 100 000 (the first mark); EUR_USD's stop at t1 leaves 99 926: 74 lost, over
    // 0.05 % (50). The halt is marked after t1's candles; GBP_USD's entry at t2 is refused.
    const r = backtest([eurUsd(stopped), gbpUsd()], WEDNESDAY, { rules: { ...RULES, dailyLossLimitPercent: 0.05 } });
    expect(r.trades.map((t) => [t.instrument, t.pnl])).toEqual([['EUR_USD', -74]]);
    expect(skips(r)).toEqual({ daily_loss_limit: 1 });
    // 0.08 % is 80: 74 does not reach it.
    expect(backtest([eurUsd(stopped), gbpUsd()], WEDNESDAY, { rules: { ...RULES, dailyLossLimitPercent: 0.08 } }).trades).toHaveLength(2);
  });

  it('halt at the drawdown below the equity’s peak', () => {
    // The peak is 100 000; 99 926 is 74 below it, over 0.07 % (70).
    const r = backtest([eurUsd(stopped), gbpUsd()], WEDNESDAY, { rules: { ...RULES, maxDrawdownPercent: 0.07 } });
    expect(r.trades).toHaveLength(1);
    expect(skips(r, 'GBP_USD')).toEqual({ max_drawdown: 1 });
  });

  it('cool down for N candles after K losses in a row, from the last loss’s exit', () => {
    // One loss, out at t1: no entry until t1 + 2 candles = t3; GBP_USD's at t2 is refused.
    const r = backtest([eurUsd(stopped), gbpUsd()], WEDNESDAY, { rules: { ...RULES, cooldownLosses: 1, cooldownCandles: 2 } });
    expect(r.trades).toHaveLength(1);
    expect(skips(r)).toEqual({ cooldown: 1 });
    // One candle of cooldown ends at t2: the entry goes.
    expect(backtest([eurUsd(stopped), gbpUsd()], WEDNESDAY, { rules: { ...RULES, cooldownLosses: 1, cooldownCandles: 1 } }).trades).toHaveLength(2);
  });
});

describe('the lab’s sizing by risk (riskLots on the venue’s terms)', () => {
  const pairs = () => [pairOf('EUR_USD', [...history(WEDNESDAY), candle(t1, 1.0821, 1.084, 1.081, 1.083)])];

  it('skips a size that rounds to zero, counted as such', () => {
    // 1 % of 50 = 0.50 USD over 65 USD a lot at the stop: 0.0077 lots, 0 steps of 0.01.
    const r = backtest(pairs(), WEDNESDAY, { rules: { ...RULES, riskPercent: 1 }, terms: TERMS, initialBalance: 50 });
    expect(r.trades).toEqual([]);
    expect(skips(r)).toEqual({ volume_rounds_to_zero: 1 });
  });

  it('skips a size below the venue’s minimum, never raised to it', () => {
    // 1 % of 500 = 5 USD over 65: 0.07 lots, under a minimum of 0.10.
    const terms = { EUR_USD: { ...TERMS.EUR_USD!, volumeMin: '0.10' } };
    const r = backtest(pairs(), WEDNESDAY, { rules: { ...RULES, riskPercent: 1 }, terms, initialBalance: 500 });
    expect(r.trades).toEqual([]);
    expect(skips(r, 'EUR_USD')).toEqual({ volume_below_minimum: 1 });
  });

  it('caps the size at the venue’s maximum and books P/L on its contract size', () => {
    // 1 % of 100 000 = 1 000 USD over 65: 15.38 lots, capped at 5; a contract of 10 000 units
    // makes a lot lose 6.50 at the stop: 153.84 lots, capped at 5 too; P/L (−67 × 0.1 − 7) × 5 = −68.50.
    const capped = { EUR_USD: { ...TERMS.EUR_USD!, volumeMax: '5' } };
    expect(backtest(pairs(), WEDNESDAY, { rules: { ...RULES, riskPercent: 1 }, terms: capped }).trades[0]?.volume_lots).toBe(5);
    const mini = { EUR_USD: { ...capped.EUR_USD, contractSize: 10_000 } };
    expect(backtest(pairs(), WEDNESDAY, { rules: { ...RULES, riskPercent: 1 }, terms: mini }).trades[0]).toMatchObject({ volume_lots: 5, pnl: -68.5 });
  });

  it('refuses to size by risk without the venue’s terms, and a fill volume by risk', () => {
    expect(() => backtest(pairs(), WEDNESDAY, { rules: { ...RULES, riskPercent: 1 } })).toThrow("venue's volume terms of EUR_USD");
    expect(() => backtest(pairs(), WEDNESDAY, { fills: { ...FILLS, volume: { risk_percent: 1 } } })).toThrow('rules.riskPercent');
  });
});
