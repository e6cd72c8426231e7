import { SimulatedMarket } from '@fxdesk/broker';
import { ManualClock } from '@fxdesk/primitives';
import { describe, expect, it } from 'vitest';
import { ratesFromCandles, runBacktest, type BacktestInput, type BacktestPair } from '../src/lab/backtest.js';
import { FILLS, RULES, TERMS, simulatedCandles } from './lab-fixtures.js';

const FROM = Date.UTC(2025, 2, 3);
const TO = Date.UTC(2025, 4, 3);
const INSTRUMENTS = ['EUR_USD', 'GBP_USD', 'USD_JPY', 'AUD_USD'];

/** Two months of M5 on four pairs, with a day of warm-up. */
function pairs(): BacktestPair[] {
  const market = new SimulatedMarket({ seed: 'lab-order', tickIntervalMs: 1000, marketHours: true, clock: new ManualClock(TO) });
  return INSTRUMENTS.map((instrument) => simulatedCandles(market, instrument, 'M5', FROM - 86_400_000, TO));
}

function run(listed: BacktestPair[], rules: Partial<BacktestInput['rules']>): ReturnType<typeof runBacktest> {
  return runBacktest({
    timeframe: 'M5',
    pairs: listed,
    rules: { ...RULES, minConfluence: 2, ...rules },
    terms: TERMS,
    fills: FILLS,
    initialBalance: 10_000,
    accountCurrency: 'USD',
    fromSec: FROM / 1000,
    toSec: TO / 1000,
    rates: ratesFromCandles(listed, 'USD'),
  });
}

describe('a backtest whatever order its instruments are listed in (issue 26)', () => {
  const forward = pairs();
  const reversed = [...forward].reverse();

  it.each([
    ['sized by risk', { riskPercent: 1 }],
    ['sized by risk under every limit', { riskPercent: 1, maxOpenTrades: 2, maxCurrencyExposureLots: 6, cooldownLosses: 3, cooldownCandles: 24 }],
  ])('%s: the same trades, sizes, metrics and skips', (_, rules) => {
    const a = run(forward, rules);
    const b = run(reversed, rules);
    // Enough trades that sizing on other pairs' marks, or entries at one open taken in the listing's order, would show.
    expect(a.trades.length).toBeGreaterThan(50);
    expect(b.trades).toEqual(a.trades);
    expect(b.metrics.overall).toEqual(a.metrics.overall);
    expect(b.metrics.per_pair).toEqual(a.metrics.per_pair);
    expect(b.metrics.skipped).toEqual(a.metrics.skipped);
    expect(b.equity).toEqual(a.equity);
  });
});
