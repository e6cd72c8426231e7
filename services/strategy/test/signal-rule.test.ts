import fc from 'fast-check';
import { decimalFromNumber } from '@fxdesk/primitives';
import { describe, expect, it } from 'vitest';
import { decide, evaluate, roundPrice, signalIndicators, stopLevel, type IndicatorSnapshot, type RuleSettings } from '../src/signal-rule.js';

/**
 * A LONG setup on EUR/USD-like prices: close 1.10050 above the Supertrend line 1.09800 (ATR
 * 0.00100), %K crossing above %D, a bullish gap [1.09900, 1.09950] below, the close above the POC.
 */
function longSetup(): IndicatorSnapshot {
  return {
    candle: { time: 1_767_614_400, open: 1.1, high: 1.101, low: 1.0995, close: 1.1005, volume: 120 },
    supertrend: { direction: 1, value: 1.098, trend: 'bullish', flipped: false, upperBand: 1.103, lowerBand: 1.098, atr: 0.001 },
    stochrsi: { k: 30, d: 25, signal: 'bullish_cross', stoch: 35, rsi: 52 },
    fvg: { type: 'bullish', zone: [1.099, 1.0995], gap: null, created: null, mitigated: 0, openCount: 1 },
    volumeProfile: {
      poc: 1.1,
      vah: 1.1008,
      val: 1.0992,
      pocVolume: 900,
      valueAreaVolume: 7000,
      totalVolume: 10_000,
      rowSize: 0.0001,
      rows: 24,
      low: 1.0985,
      high: 1.1015,
    },
  };
}

/** The mirror SHORT setup: close 1.09950 below the line 1.10200, a bearish gap [1.10050, 1.10100] above. */
function shortSetup(): IndicatorSnapshot {
  return {
    candle: { time: 1_767_614_400, open: 1.1, high: 1.1005, low: 1.099, close: 1.0995, volume: 120 },
    supertrend: { direction: -1, value: 1.102, trend: 'bearish', flipped: false, upperBand: 1.102, lowerBand: 1.097, atr: 0.001 },
    stochrsi: { k: 70, d: 75, signal: 'bearish_cross', stoch: 65, rsi: 48 },
    fvg: { type: 'bearish', zone: [1.1005, 1.101], gap: null, created: null, mitigated: 0, openCount: 1 },
    volumeProfile: {
      poc: 1.1,
      vah: 1.1008,
      val: 1.0992,
      pocVolume: 900,
      valueAreaVolume: 7000,
      totalVolume: 10_000,
      rowSize: 0.0001,
      rows: 24,
      low: 1.0985,
      high: 1.1015,
    },
  };
}

const settings: RuleSettings = { minConfluence: 3, riskReward: 2, minStopAtr: 0.5, digits: 5 };

describe('the direction and the confluence', () => {
  it('takes the direction from the Supertrend: 1 gives LONG and -1 gives SHORT', () => {
    expect(evaluate(longSetup()).type).toBe('LONG');
    expect(evaluate(shortSetup()).type).toBe('SHORT');
  });

  it('gives confluence_score 4 when all four indicators agree', () => {
    expect(evaluate(longSetup())).toMatchObject({ confluence: 4, aligned: { supertrend: true, stochrsi: true, fvg: true, volume_profile: true } });
    expect(evaluate(shortSetup()).confluence).toBe(4);
  });

  it('gives confluence_score 1 when only the Supertrend agrees (it always counts)', () => {
    const s = longSetup();
    s.supertrend.flipped = true;
    s.stochrsi = { ...s.stochrsi, k: 20, d: 25, signal: 'neutral' };
    s.fvg = { ...s.fvg, type: 'bearish', zone: [1.1006, 1.1008] };
    s.volumeProfile.poc = 1.1007;
    expect(evaluate(s)).toMatchObject({ confluence: 1, aligned: { supertrend: true, stochrsi: false, fvg: false, volume_profile: false } });
  });

  it('counts Stochastic RSI for a LONG on a bullish cross, or on %K above %D short of overbought', () => {
    const s = longSetup();
    s.stochrsi = { ...s.stochrsi, k: 55, d: 50, signal: 'neutral' };
    expect(evaluate(s).aligned.stochrsi).toBe(true);
    s.stochrsi = { ...s.stochrsi, k: 85, d: 80, signal: 'overbought' };
    expect(evaluate(s).aligned.stochrsi).toBe(false);
    s.stochrsi = { ...s.stochrsi, k: 40, d: 50, signal: 'neutral' };
    expect(evaluate(s).aligned.stochrsi).toBe(false);
    // A flat close: %K and %D one value but for the last bit of the doubles, aligned neither way.
    s.stochrsi = { ...s.stochrsi, k: 50.00000000000001, d: 50, signal: 'neutral' };
    expect(evaluate(s).aligned.stochrsi).toBe(false);
  });

  it('counts Stochastic RSI for a SHORT on a bearish cross, or on %K below %D short of oversold', () => {
    const s = shortSetup();
    s.stochrsi = { ...s.stochrsi, k: 45, d: 50, signal: 'neutral' };
    expect(evaluate(s).aligned.stochrsi).toBe(true);
    s.stochrsi = { ...s.stochrsi, k: 10, d: 15, signal: 'oversold' };
    expect(evaluate(s).aligned.stochrsi).toBe(false);
  });

  it('counts a fair value gap only when the latest open gap points the way of the signal', () => {
    const s = longSetup();
    s.fvg = { ...s.fvg, type: 'none', zone: null };
    expect(evaluate(s).aligned.fvg).toBe(false);
    expect(evaluate(shortSetup()).aligned.fvg).toBe(true);
  });

  it('counts the volume profile when the close is above the POC for a LONG and below it for a SHORT', () => {
    const s = longSetup();
    s.volumeProfile.poc = s.candle.close;
    expect(evaluate(s).aligned.volume_profile).toBe(false);
    expect(evaluate(shortSetup()).aligned.volume_profile).toBe(true);
  });
});

describe('the trigger', () => {
  it('fires on a %K/%D cross in the Supertrend direction', () => {
    expect(evaluate(longSetup()).trigger).toBe('stochrsi_cross');
    expect(evaluate(shortSetup()).trigger).toBe('stochrsi_cross');
  });

  it('fires on a Supertrend flip', () => {
    const s = longSetup();
    s.supertrend.flipped = true;
    s.stochrsi = { ...s.stochrsi, signal: 'neutral' };
    expect(evaluate(s).trigger).toBe('supertrend_flip');
  });

  it('gives no signal without a trigger, however aligned the indicators are', () => {
    const s = longSetup();
    s.stochrsi = { ...s.stochrsi, k: 55, d: 50, signal: 'neutral' };
    expect(evaluate(s).confluence).toBe(4);
    expect(decide(s, settings)).toBeNull();
  });

  it('ignores a cross against the Supertrend direction', () => {
    const s = longSetup();
    s.stochrsi = { ...s.stochrsi, k: 45, d: 50, signal: 'bearish_cross' };
    expect(evaluate(s).trigger).toBeNull();
  });

  it('gives no signal below MIN_CONFLUENCE and one at it', () => {
    const s = longSetup();
    s.fvg = { ...s.fvg, type: 'none', zone: null };
    s.volumeProfile.poc = 1.1009;
    expect(evaluate(s).confluence).toBe(2);
    expect(decide(s, settings)).toBeNull();
    expect(decide(s, { ...settings, minConfluence: 2 })?.confluence).toBe(2);
  });
});

describe('stop loss, take profit and risk_reward', () => {
  it('puts a LONG stop at the low of an aligned gap between the Supertrend line and the entry', () => {
    // Gap low 1.09900 is above the line 1.09800: the nearer support.
    expect(stopLevel(longSetup(), evaluate(longSetup()), 0.5)).toBeCloseTo(1.099, 10);
  });

  it('puts a LONG stop at the Supertrend line when no aligned gap lies above it', () => {
    const s = longSetup();
    s.fvg = { ...s.fvg, type: 'none', zone: null };
    expect(stopLevel(s, evaluate(s), 0.5)).toBeCloseTo(1.098, 10);
  });

  it('puts a SHORT stop at the high of an aligned gap between the entry and the Supertrend line', () => {
    expect(stopLevel(shortSetup(), evaluate(shortSetup()), 0.5)).toBeCloseTo(1.101, 10);
  });

  it('widens a stop closer than MIN_STOP_ATR ATRs to that distance', () => {
    const s = longSetup();
    s.fvg = { ...s.fvg, zone: [1.1004, 1.1005] };
    // 0.5 ATR = 0.00050 below the entry 1.10050.
    expect(stopLevel(s, evaluate(s), 0.5)).toBeCloseTo(1.1, 10);
  });

  it("keeps a stop at least two of the candle's spreads from the entry, so the broker can take it", () => {
    const s = longSetup();
    s.fvg = { ...s.fvg, zone: [1.1004, 1.1005] };
    // Spread 0.00040: two of them (0.00080) are wider than 0.5 ATR (0.00050).
    s.candle = { ...s.candle, spread: 0.0004 };
    expect(stopLevel(s, evaluate(s), 0.5)).toBeCloseTo(1.0997, 10);
    const short = shortSetup();
    short.fvg = { ...short.fvg, zone: [1.0995, 1.0996] };
    short.candle = { ...short.candle, spread: 0.0004 };
    expect(stopLevel(short, evaluate(short), 0.5)).toBeCloseTo(1.1003, 10);
    // A narrow spread leaves the ATR's distance; a candle without one (spread null) has no floor.
    s.candle = { ...s.candle, spread: 0.0001 };
    expect(stopLevel(s, evaluate(s), 0.5)).toBeCloseTo(1.1, 10);
    s.candle = { ...s.candle, spread: null };
    expect(stopLevel(s, evaluate(s), 0.5)).toBeCloseTo(1.1, 10);
  });

  it('sets the take profit RISK_REWARD times the risk beyond the entry, and risk_reward from the rounded prices', () => {
    const long = decide(longSetup(), settings);
    expect(long).toMatchObject({ type: 'LONG', entry: 1.1005, stopLoss: 1.099, takeProfit: 1.1035, riskReward: 2 });
    const short = decide(shortSetup(), { ...settings, riskReward: 1.5 });
    expect(short).toMatchObject({ type: 'SHORT', entry: 1.0995, stopLoss: 1.101, takeProfit: 1.09725, riskReward: 1.5 });
  });

  it('rounds the prices to the instrument digits', () => {
    const s = longSetup();
    s.candle = { ...s.candle, close: 151.2345, high: 151.3, low: 151.1, open: 151.2 };
    s.supertrend = { ...s.supertrend, value: 150.98765, atr: 0.1 };
    s.fvg = { ...s.fvg, type: 'none', zone: null };
    s.volumeProfile.poc = 151;
    const decision = decide(s, { ...settings, digits: 3 });
    expect(decision).toMatchObject({ entry: 151.235, stopLoss: 150.988 });
    expect(decision?.takeProfit).toBe(151.729);
  });

  it('reports the indicator objects of spec 000 with the trend and signal strings', () => {
    expect(signalIndicators(longSetup(), 5)).toEqual({
      supertrend: { direction: 1, trend: 'bullish' },
      stochrsi: { k: 30, signal: 'bullish_cross' },
      fvg: { type: 'bullish', zone: [1.099, 1.0995] },
      volume_profile: { poc: 1.1, vah: 1.1008, val: 1.0992 },
    });
  });
});

describe('roundPrice', () => {
  const exact = (value: number, digits: number) => Number(decimalFromNumber(value, digits));

  it('rounds as decimalFromNumber does, ties half away from zero included', () => {
    for (const [value, digits] of [
      [1.000005, 5],
      [-1.000005, 5],
      [1.0000049999, 5],
      [150.1235, 3],
      [0.5, 0],
      [-0.4, 0],
      [1.08206, 5],
      [2650.125, 2],
      [1e-9, 5],
    ] as const) {
      expect(Object.is(roundPrice(value, digits), exact(value, digits))).toBe(true);
    }
  });

  it('agrees with decimalFromNumber on any price', () => {
    fc.assert(
      fc.property(fc.double({ min: -1e6, max: 1e6, noNaN: true }), fc.integer({ min: 0, max: 8 }), (value, digits) => {
        expect(Object.is(roundPrice(value, digits), exact(value, digits))).toBe(true);
      }),
      { numRuns: 20_000 },
    );
    // Prices that sit on a tie of the next digit.
    fc.assert(
      fc.property(fc.integer({ min: -10_000_000, max: 10_000_000 }), fc.integer({ min: 1, max: 6 }), (n, digits) => {
        const value = (n + 0.5) / 10 ** digits;
        expect(Object.is(roundPrice(value, digits), exact(value, digits))).toBe(true);
      }),
      { numRuns: 20_000 },
    );
  });
});
