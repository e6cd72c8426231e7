import type { SimulatedMarket } from '@fxdesk/broker';
import { syntheticCandles } from '@fxdesk/indicators';
import type { Timeframe } from '@fxdesk/schemas';
import {
  ratesFromCandles,
  runBacktest,
  type BacktestInput,
  type BacktestPair,
  type BacktestResult,
  type FillModel,
  type LabCandle,
} from '../src/lab/backtest.js';
import type { StrategyRules } from '../src/rules.js';
import type { VolumeTerms } from '@fxdesk/trading';
import { columnsOf } from '../src/lab/columns.js';
import { candleOfSimulatedBar } from '../src/market-source.js';

/** The live defaults. */
export const RULES: StrategyRules = {
  supertrendAtrPeriod: 10,
  supertrendMultiplier: 3,
  volumeProfileWindow: 100,
  minConfluence: 3,
  riskReward: 2,
  minStopAtr: 0.5,
  fvgMaxAge: 100,
};

/** 1 lot, the default spread (10 points), 2 points of slippage, 7 USD a lot. */
export const FILLS: FillModel = { spread_points: null, slippage_points: 2, commission_per_lot: 7, volume: { lots: 1 } };

/** The simulated terminal's volume terms (lab/symbol-terms.ts) of the fixtures' pairs: 100 000 units a lot, 0.01 to 100 lots by 0.01. */
export const TERMS: Record<string, VolumeTerms> = Object.fromEntries(
  ['EUR_USD', 'GBP_USD', 'USD_JPY', 'EUR_GBP', 'AUD_USD'].map((instrument) => [
    instrument,
    { contractSize: 100_000, volumeMin: '0.01', volumeMax: '100', volumeStep: '0.01' },
  ]),
);

export const M5 = 300;
/** Wednesday 2023-11-15 15:30 UTC. */
export const WEDNESDAY = 1_700_062_200;
/** Friday 2023-11-17 21:55 UTC: the last M5 candle before the FX week closes. */
export const FRIDAY_LAST = 1_700_258_100;
/** Sunday 2023-11-19 22:00 UTC: the FX week opens. */
export const SUNDAY_OPEN = 1_700_431_200;

/**
 * 207 synthetic candles (seed 7) whose last one, at `signalTime`, gives the rule's signal (MIN_CONFLUENCE 3):
 * at scale 1 (5 digits) LONG entry 1.08206, stop 1.08152, target 1.08314; at scale 130 (3 digits)
 * LONG 140.667 / 140.597 / 140.807; at scale 0.8 (5 digits) LONG 0.86565 / 0.86521 / 0.86653.
 */
export function history(signalTime: number, scale = 1, digits = 5): LabCandle[] {
  const round = (v: number) => Number((v * scale).toFixed(digits));
  return syntheticCandles(207, { seed: 7, startTime: signalTime - 206 * M5 }).map((c) => ({
    ...c,
    open: round(c.open),
    high: round(c.high),
    low: round(c.low),
    close: round(c.close),
    spread: null,
  }));
}

/** A hand-made candle (volume 100, no spread of its own). */
export function candle(time: number, open: number, high: number, low: number, close: number): LabCandle {
  return { time, open, high, low, close, volume: 100, spread: null };
}

export function pairOf(instrument: string, candles: LabCandle[], digits = 5): BacktestPair {
  return { instrument, symbol: instrument.replace('_', ''), digits, candles: columnsOf(candles) };
}

/** A backtest whose window starts at `fromSec` and ends after the last candle of any pair. */
export function backtest(pairs: BacktestPair[], fromSec: number, overrides: Partial<BacktestInput> = {}): BacktestResult {
  const last = Math.max(...pairs.map((p) => p.candles.time.at(-1)!));
  return runBacktest({
    timeframe: 'M5',
    pairs,
    rules: RULES,
    fills: FILLS,
    initialBalance: 100_000,
    accountCurrency: 'USD',
    fromSec,
    toSec: last + M5,
    rates: ratesFromCandles(pairs, 'USD'),
    ...overrides,
  });
}

/** The simulated market's closed bars of [fromMs, toMs) as lab candles (the bar's spread in points → price). */
export function simulatedCandles(market: SimulatedMarket, instrument: string, timeframe: Timeframe, fromMs: number, toMs: number): BacktestPair {
  const symbol = instrument.replace('_', '');
  const digits = market.spec(symbol)!.digits;
  const candles = market.barsBetween(symbol, timeframe, fromMs, toMs).map((b) => candleOfSimulatedBar(b, digits));
  return { instrument, symbol, digits, candles: columnsOf(candles) };
}
