import { SimulatedMarket } from '@fxdesk/broker';
import { ManualClock } from '@fxdesk/primitives';
import { describe, expect, it } from 'vitest';
import type { BacktestPair, BacktestResult, StrategyRules } from '../src/lab/backtest.js';
import { backtest, RULES, simulatedCandles } from './lab-fixtures.js';

const WEEK_MS = 7 * 86_400_000;
/** Monday 2026-01-05. */
const FROM = Date.UTC(2026, 0, 5);

let pairs: BacktestPair[] | undefined;
/** Two weeks of M5 on EUR_USD and USD_JPY from the simulated market; decisions from the second day. */
function run(rules: Partial<StrategyRules>): BacktestResult {
  const market = new SimulatedMarket({ seed: 'exits', tickIntervalMs: 1000, marketHours: true, clock: new ManualClock(FROM + 2 * WEEK_MS) });
  pairs ??= ['EUR_USD', 'USD_JPY'].map((i) => simulatedCandles(market, i, 'M5', FROM, FROM + 2 * WEEK_MS));
  return backtest(pairs, FROM / 1000 + 86_400, { rules: { ...RULES, minConfluence: 2, ...rules } });
}

const reasons = (r: BacktestResult) => new Set(r.trades.map((t) => t.exit_reason));
const seconds = (iso: string) => Date.parse(iso) / 1000;

describe('the exit rules in a backtest', () => {
  it('leave every trade to its stop and target when off (the run of before)', () => {
    expect([...reasons(run({}))].every((reason) => ['stop', 'target', 'end_of_data'].includes(reason))).toBe(true);
  });

  it('close a trade still open after time_exit_candles at the next open, by time', () => {
    const r = run({ timeExitCandles: 3 });
    const timed = r.trades.filter((t) => t.exit_reason === 'time');
    expect(timed.length).toBeGreaterThan(5);
    // Entered at candle e's open, held through e, e+1, e+2: out at e+3's open, which the trade's exit time names.
    for (const t of timed) expect(seconds(t.exit_time) - seconds(t.entry_time)).toBeGreaterThanOrEqual(3 * 300);
    for (const t of r.trades) expect(seconds(t.exit_time) - seconds(t.entry_time)).toBeLessThanOrEqual(3 * 300 + 3 * 86_400);
  });

  it('record the moved stops as break_even and trailing, a break-even exit losing well under the risk', () => {
    const r = run({ breakEvenR: 0.5, trailingStopAtr: 1.5 });
    expect(reasons(r)).toContain('break_even');
    expect(reasons(r)).toContain('trailing');
    // The entry paid the spread; a stop at the entry sells there less 2 points of slippage (or at a
    // gapped open a few points beyond), and 7 USD of commission: a small share of the risk.
    const breakEven = r.trades.filter((x) => x.exit_reason === 'break_even');
    expect(breakEven.length).toBeGreaterThan(3);
    for (const t of breakEven) expect(t.r_multiple, `${t.instrument} ${t.entry_time}`).toBeGreaterThan(-0.6);
    expect(breakEven.filter((t) => t.r_multiple > -0.5).length).toBeGreaterThan(0.9 * breakEven.length);
  });

  it('reverse on an opposite signal: the trade closes at the open the next one enters at', () => {
    const r = run({ exitOnOppositeSignal: 1 });
    const reversed = r.trades.filter((t) => t.exit_reason === 'opposite_signal');
    expect(reversed.length).toBeGreaterThan(0);
    for (const t of reversed) {
      const next = r.trades.find((n) => n.instrument === t.instrument && n.entry_time === t.exit_time);
      expect(next?.side).not.toBe(t.side);
    }
  });

  it('still hold one position per pair: no trade of a pair enters before the one before it left', () => {
    const r = run({ breakEvenR: 1, trailingStopR: 1.5, timeExitCandles: 24, exitOnOppositeSignal: 1 });
    for (const instrument of ['EUR_USD', 'USD_JPY']) {
      const own = r.trades.filter((t) => t.instrument === instrument);
      for (let i = 1; i < own.length; i++) expect(seconds(own[i]!.entry_time)).toBeGreaterThanOrEqual(seconds(own[i - 1]!.exit_time));
    }
  });
});
