import { syntheticCandles } from '@fxdesk/indicators';
import { describe, expect, it } from 'vitest';
import { PairTracker, trackerSettingsOf } from '../src/pair-tracker.js';
import type { StrategyRules } from '../src/rules.js';

const rules: StrategyRules = {
  supertrendAtrPeriod: 10,
  supertrendMultiplier: 3,
  volumeProfileWindow: 100,
  minConfluence: 3,
  riskReward: 2,
  minStopAtr: 0.5,
  fvgMaxAge: 100,
};
const candles = syntheticCandles(400, { seed: 3 });

describe('the pair tracker', () => {
  it('feeds one candle at a time through push, the same path ingest takes', () => {
    const one = new PairTracker('EUR_USD', 'EURUSD', 5, trackerSettingsOf(rules, 'M5', 50));
    const many = new PairTracker('EUR_USD', 'EURUSD', 5, trackerSettingsOf(rules, 'M5', 50));
    for (const candle of candles) expect(one.push(candle)).toBe(true);
    expect(many.ingest(candles).added).toHaveLength(candles.length);
    expect(one.latest).not.toBeNull();
    expect(one.latest).toEqual(many.latest);
    expect(one.chartCandles(50)).toEqual(many.chartCandles(50));
  });

  it('refuses a candle not newer than the last and a malformed one, changing nothing', () => {
    const pair = new PairTracker('EUR_USD', 'EURUSD', 5, trackerSettingsOf(rules, 'M5', 50));
    for (const candle of candles.slice(0, 200)) pair.push(candle);
    const before = pair.latest;
    expect(pair.push(candles[199]!)).toBe(false);
    expect(pair.push({ ...candles[200]!, high: candles[200]!.low - 1 })).toBe(false);
    expect(pair.latest).toBe(before);
    expect(pair.lastCandleTime).toBe(candles[199]!.time);
  });

  it('keeps no chart with chartSize 0, and the same indicators', () => {
    const charted = new PairTracker('EUR_USD', 'EURUSD', 5, trackerSettingsOf(rules, 'M5', 50));
    const bare = new PairTracker('EUR_USD', 'EURUSD', 5, trackerSettingsOf(rules, 'M5', 0));
    charted.ingest(candles);
    bare.ingest(candles);
    expect(bare.chartCandles(50)).toEqual([]);
    expect(valuesOf(bare)).toEqual(valuesOf(charted));
    expect(valuesOf(bare)?.volumeProfile).not.toBeNull();
  });
});

/** What the rule reads of a tracker's snapshot, as plain values. */
function valuesOf(tracker: PairTracker) {
  const s = tracker.latest;
  return s && { candle: s.candle, supertrend: { ...s.supertrend }, stochrsi: { ...s.stochrsi }, fvg: { ...s.fvg }, volumeProfile: { ...s.volumeProfile } };
}
