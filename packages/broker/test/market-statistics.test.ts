import { ManualClock } from '@fxdesk/primitives';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Bar } from '../src/types.js';
import { SimulatedMarket } from '../src/simulated/market.js';

const PAIRS = ['EURUSD', 'GBPUSD', 'USDJPY', 'AUDUSD'];
const FROM = Date.UTC(2025, 0, 1);
const TO = Date.UTC(2026, 0, 1);
const HOUR_SECONDS = 3600;
const M5_SECONDS = 300;

/** The statistics of one pair's bars over the year, close-to-close log returns. */
interface PairStatistics {
  m5: ReturnStatistics;
  h1: ReturnStatistics;
  /** Mean |r| of the M5 bars opening 08:00–16:00 UTC over that of the bars opening 22:00–06:00. */
  sessionRatio: number;
  /** |log(Sunday's open / Friday's close)| of each weekend, in basis points. */
  weekendGapsBp: number[];
}

interface ReturnStatistics {
  lag1: number;
  varianceRatio12: number;
  excessKurtosis: number;
  /** Lag-1 autocorrelation of |r|: positive when volatility clusters. */
  absLag1: number;
}

/** Close-to-close log returns of adjacent bars (none across the weekend, whose gap is measured apart). */
function logReturns(bars: readonly Bar[], barSeconds: number): number[] {
  const returns: number[] = [];
  for (let i = 1; i < bars.length; i++) {
    if (bars[i]!.time - bars[i - 1]!.time === barSeconds) returns.push(Math.log(bars[i]!.close / bars[i - 1]!.close));
  }
  return returns;
}

function mean(values: readonly number[]): number {
  return values.reduce((sum, v) => sum + v, 0) / values.length;
}

function lag1Autocorrelation(values: readonly number[]): number {
  const m = mean(values);
  let numerator = 0;
  let denominator = 0;
  for (let i = 0; i < values.length; i++) {
    const d = values[i]! - m;
    denominator += d * d;
    if (i > 0) numerator += d * (values[i - 1]! - m);
  }
  return numerator / denominator;
}

/** Lo–MacKinlay's VR(q) over overlapping q-bar sums: 1 for a random walk, below 1 when returns mean-revert. */
function varianceRatio(returns: readonly number[], q: number): number {
  const m = mean(returns);
  const oneBar = returns.reduce((sum, r) => sum + (r - m) ** 2, 0) / returns.length;
  let window = returns.slice(0, q).reduce((sum, r) => sum + r, 0);
  let qBar = (window - q * m) ** 2;
  for (let i = q; i < returns.length; i++) {
    window += returns[i]! - returns[i - q]!;
    qBar += (window - q * m) ** 2;
  }
  return qBar / (returns.length - q + 1) / (q * oneBar);
}

function excessKurtosis(values: readonly number[]): number {
  const m = mean(values);
  const m2 = mean(values.map((v) => (v - m) ** 2));
  const m4 = mean(values.map((v) => (v - m) ** 4));
  return m4 / (m2 * m2) - 3;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function returnStatistics(bars: readonly Bar[], barSeconds: number): ReturnStatistics {
  const returns = logReturns(bars, barSeconds);
  return {
    lag1: lag1Autocorrelation(returns),
    varianceRatio12: varianceRatio(returns, 12),
    excessKurtosis: excessKurtosis(returns),
    absLag1: lag1Autocorrelation(returns.map(Math.abs)),
  };
}

function sessionRatio(bars: readonly Bar[]): number {
  const busy: number[] = [];
  const quiet: number[] = [];
  for (let i = 1; i < bars.length; i++) {
    if (bars[i]!.time - bars[i - 1]!.time !== M5_SECONDS) continue;
    const hour = Math.floor((bars[i]!.time % 86_400) / HOUR_SECONDS);
    const size = Math.abs(Math.log(bars[i]!.close / bars[i - 1]!.close));
    if (hour >= 8 && hour < 16) busy.push(size);
    else if (hour >= 22 || hour < 6) quiet.push(size);
  }
  return mean(busy) / mean(quiet);
}

/** The gap from the last bar before each weekly close to the first bar after it. */
function weekendGapsBp(bars: readonly Bar[]): number[] {
  const gaps: number[] = [];
  for (let i = 1; i < bars.length; i++) {
    const previous = bars[i - 1]!;
    const current = bars[i]!;
    if (current.time - previous.time > 24 * HOUR_SECONDS) gaps.push(Math.abs(Math.log(current.open / previous.close)) * 10_000);
  }
  return gaps;
}

function measure(market: SimulatedMarket, symbol: string): PairStatistics {
  const m5 = market.barsBetween(symbol, 'M5', FROM, TO);
  const h1 = market.barsBetween(symbol, 'H1', FROM, TO);
  return { m5: returnStatistics(m5, M5_SECONDS), h1: returnStatistics(h1, HOUR_SECONDS), sessionRatio: sessionRatio(m5), weekendGapsBp: weekendGapsBp(m5) };
}

describe('the simulated market over a year of bars', () => {
  const statistics = new Map<string, PairStatistics>();

  beforeAll(() => {
    // A year of H1 is a small sample: across seeds its lag-1 autocorrelation spreads by about
    // ±0.02 and its VR(12) by ±0.055 around 0 and 1. This seed's year is a typical one.
    const market = new SimulatedMarket({ seed: 'random-walk', tickIntervalMs: 5000, marketHours: true, clock: new ManualClock(TO) });
    for (const symbol of PAIRS) statistics.set(symbol, measure(market, symbol));
  }, 60_000);

  it('has bar returns with next to no lag-1 autocorrelation, on M5 and H1', () => {
    for (const [symbol, s] of statistics) {
      expect(Math.abs(s.m5.lag1), `${symbol} M5`).toBeLessThanOrEqual(0.05);
      expect(Math.abs(s.h1.lag1), `${symbol} H1`).toBeLessThanOrEqual(0.05);
    }
  });

  it('has a variance ratio VR(12) near 1, as a random walk has, on M5 and H1', () => {
    for (const [symbol, s] of statistics) {
      for (const [timeframe, vr] of [
        ['M5', s.m5.varianceRatio12],
        ['H1', s.h1.varianceRatio12],
      ] as const) {
        expect(vr, `${symbol} ${timeframe}`).toBeGreaterThanOrEqual(0.85);
        expect(vr, `${symbol} ${timeframe}`).toBeLessThanOrEqual(1.15);
      }
    }
  });

  it('has fat-tailed M5 returns: an excess kurtosis of at least 1', () => {
    for (const [symbol, s] of statistics) expect(s.m5.excessKurtosis, symbol).toBeGreaterThanOrEqual(1);
  });

  it('clusters volatility: large moves follow large moves, on M5 and H1', () => {
    for (const [symbol, s] of statistics) {
      expect(s.m5.absLag1, `${symbol} M5`).toBeGreaterThan(0.1);
      expect(s.h1.absLag1, `${symbol} H1`).toBeGreaterThan(0.1);
    }
  });

  it('moves more in the London and New York hours than in the Asian night', () => {
    for (const [symbol, s] of statistics) expect(s.sessionRatio, symbol).toBeGreaterThan(1.2);
  });

  it('barely moves while closed: the median weekend gap is at most 10 bp', () => {
    for (const [symbol, s] of statistics) {
      expect(s.weekendGapsBp.length, symbol).toBeGreaterThanOrEqual(50);
      expect(median(s.weekendGapsBp), symbol).toBeLessThanOrEqual(10);
    }
  });
});
