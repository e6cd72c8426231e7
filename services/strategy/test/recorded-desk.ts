import type { SimulatedMarket } from '@fxdesk/broker';
import type { ManualClock } from '@fxdesk/primitives';
import type { StrategySignal } from '@fxdesk/schemas';
import { ratesFromCandles, runBacktest, type BacktestInput, type BacktestPair, type BacktestResult } from '../src/lab/backtest.js';
import { candlesOf } from '../src/lab/columns.js';
import type { StrategyConfig } from '../src/config.js';
import type { MarketSource } from '../src/market-source.js';
import { paperFillsOf } from '../src/paper-account.js';
import { rulesOf } from '../src/rules.js';
import type { Harness } from './helpers.js';

/*
 * The parity tests' shared parts: a desk run on a recorded candle sequence, and the backtest of
 * the same candles as that desk's config trades them.
 */

/**
 * A market that serves a recorded candle sequence as it would have closed: at the clock's time,
 * the candles that had closed by then. No quotes.
 */
export function recordedSource(market: SimulatedMarket, pairs: BacktestPair[], clock: ManualClock): MarketSource {
  const bySymbol = new Map(pairs.map((p) => [p.symbol, candlesOf(p.candles)]));
  return {
    name: 'simulated',
    catalog: async () => pairs.map((p) => ({ symbol: p.symbol, digits: p.digits })),
    closedCandles: async (symbol, _timeframe, count) => (bySymbol.get(symbol) ?? []).filter((c) => (c.time + 60) * 1000 <= clock.now()).slice(-count),
    subscribe: () => ({ close: () => {} }),
    rate: (from, to) => market.rate(from, to, clock.now()),
    close: async () => {},
  };
}

/** Every signal the desk stored, newest first. */
export async function allSignals(h: Harness): Promise<StrategySignal[]> {
  const signals: StrategySignal[] = [];
  for (let before: number | undefined; ;) {
    const page = await h.store.page({ limit: 500, before });
    signals.push(...page.signals);
    if (page.nextBefore === null) return signals;
    before = page.nextBefore;
  }
}

/**
 * The backtest of M1 `pairs` as the desk of `config` trades them (its rules, paper fill model and
 * leverage, 100 000 USD, the pairs' own rates), from the warm-up's last candle, where the live engine's
 * first decision is, to `toSec`; `more` adds to or overrides the input.
 */
export function deskBacktest(config: StrategyConfig, pairs: BacktestPair[], warmup: number, toSec: number, more: Partial<BacktestInput> = {}): BacktestResult {
  return runBacktest({
    timeframe: 'M1',
    pairs,
    rules: rulesOf(config),
    fills: paperFillsOf(config),
    initialBalance: 100_000,
    // As the service runs it: the paper account's leverage holds the margin.
    leverage: config.PAPER_LEVERAGE,
    accountCurrency: 'USD',
    fromSec: pairs[0]!.candles.time[warmup - 1]!,
    toSec,
    rates: ratesFromCandles(pairs, 'USD'),
    ...more,
  });
}
