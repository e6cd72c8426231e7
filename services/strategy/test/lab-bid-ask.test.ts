import { SimulatedMarket } from '@fxdesk/broker';
import { ManualClock } from '@fxdesk/primitives';
import { describe, expect, it } from 'vitest';
import { runBacktest, ratesFromCandles } from '../src/lab/backtest.js';
import { candleOfInterval, candleOfSimulatedBar } from '../src/market-source.js';
import { RULES, simulatedCandles } from './lab-fixtures.js';

/*
 * Issue 26's "bid candles read as mid": the venues' bars are bid prices, so the desk reads each as
 * its mid (the bid plus half the bar's spread) and the fill model's ask and bid are the venue's.
 * On the simulated market every tick of a minute has the minute's spread, so at M1 a LONG enters
 * at exactly the ask of the minute's first tick and a SHORT at its bid.
 */

const MINUTE = 60_000;
const FROM = Date.UTC(2026, 2, 10);

describe('bid bars', () => {
  it('are read as mids half their spread above the bid, from the simulated market and from spec 002 candles alike', () => {
    const bar = { time: 1_773_136_800, open: 1.08536, high: 1.0856, low: 1.0852, close: 1.0855, tickVolume: 40, spread: 11, closed: true };
    const candle = candleOfSimulatedBar(bar, 5);
    expect(candle.open).toBeCloseTo(1.085415, 10);
    expect(candle.high).toBeCloseTo(1.085655, 10);
    expect(candle.low).toBeCloseTo(1.085255, 10);
    expect(candle.close).toBeCloseTo(1.085555, 10);
    expect(candle.spread).toBeCloseTo(0.00011, 12);
    const served = { ts: new Date((bar.time + 60) * 1000).toISOString(), open: 1.08536, high: 1.0856, low: 1.0852, close: 1.0855, volume: 40 };
    const about = { provider: 'simulated', source_instrument: 'EURUSD' };
    expect(candleOfInterval({ ...served, ...about, spread: 0.00011, spread_source: 'provider_bar' }, 60)).toEqual(candle);
    // No spread, no way to tell: taken as it is.
    expect(candleOfInterval({ ...served, ...about, spread: null, spread_source: null }, 60).open).toBe(1.08536);
  });

  it('fill a backtest’s LONG at the venue’s ask and its SHORT at its bid, tick for tick', () => {
    const market = new SimulatedMarket({ seed: 'bid-ask', tickIntervalMs: 1000, marketHours: false, clock: new ManualClock(0) });
    const pair = simulatedCandles(market, 'EUR_USD', 'M1', FROM, FROM + 2_000 * MINUTE);
    const result = runBacktest({
      timeframe: 'M1',
      pairs: [pair],
      rules: { ...RULES, minConfluence: 1, timeExitCandles: 5 },
      fills: { spread_points: null, slippage_points: 0, commission_per_lot: 0, volume: { lots: 1 } },
      initialBalance: 100_000,
      accountCurrency: 'USD',
      fromSec: pair.candles.time[300]!,
      toSec: pair.candles.time.at(-1)! + 60,
      rates: ratesFromCandles([pair], 'USD'),
    });
    const sides = new Set(result.trades.map((t) => t.side));
    expect(sides).toEqual(new Set(['LONG', 'SHORT']));
    for (const trade of result.trades) {
      const entryMs = Date.parse(trade.entry_time);
      const tick = market.ticksBetween('EURUSD', entryMs, entryMs + MINUTE)[0]!;
      expect(trade.entry_price, `${trade.side} ${trade.entry_time}`).toBeCloseTo(trade.side === 'LONG' ? tick.ask : tick.bid, 9);
      // A time exit is a market close at the next open: a LONG sells at that tick's bid, a SHORT buys at its ask.
      if (trade.exit_reason !== 'time') continue;
      const exitMs = Date.parse(trade.exit_time);
      const exitTick = market.ticksBetween('EURUSD', exitMs, exitMs + MINUTE)[0]!;
      expect(trade.exit_price, `${trade.side} exit ${trade.exit_time}`).toBeCloseTo(trade.side === 'LONG' ? exitTick.bid : exitTick.ask, 9);
    }
    expect(result.trades.filter((t) => t.exit_reason === 'time').length).toBeGreaterThan(5);
  });
});
