import { describe, expect, it } from 'vitest';
import { gridSettings, MAX_SWEEP_SETTINGS, outOfSampleTotal, randomSettings, rankOrder, walkForwardWindows } from '../src/lab/sweep.js';

describe('gridSettings', () => {
  it('expands a grid into every combination, the first rule varying slowest', () => {
    expect(gridSettings({ supertrend_atr_period: [10, 14], supertrend_multiplier: [2, 2.5, 3] })).toEqual([
      { supertrend_atr_period: 10, supertrend_multiplier: 2 },
      { supertrend_atr_period: 10, supertrend_multiplier: 2.5 },
      { supertrend_atr_period: 10, supertrend_multiplier: 3 },
      { supertrend_atr_period: 14, supertrend_multiplier: 2 },
      { supertrend_atr_period: 14, supertrend_multiplier: 2.5 },
      { supertrend_atr_period: 14, supertrend_multiplier: 3 },
    ]);
  });

  it('gives one setting per value for a single rule', () => {
    expect(gridSettings({ min_confluence: [2, 3, 4] })).toEqual([{ min_confluence: 2 }, { min_confluence: 3 }, { min_confluence: 4 }]);
  });

  it('accepts a grid of exactly the maximum and refuses one setting more', () => {
    const values = (n: number) => Array.from({ length: n }, (_, i) => i + 1);
    expect(gridSettings({ supertrend_atr_period: values(16), volume_profile_window: values(16) })).toHaveLength(MAX_SWEEP_SETTINGS);
    expect(() => gridSettings({ supertrend_atr_period: values(257) })).toThrow('the grid has 257 settings, more than 256');
  });

  it('refuses an empty grid, a rule without values and a value listed twice', () => {
    expect(() => gridSettings({})).toThrow('at least one rule');
    expect(() => gridSettings({ min_confluence: undefined })).toThrow('at least one rule');
    expect(() => gridSettings({ min_confluence: [] })).toThrow('grid rule min_confluence has no values');
    expect(() => gridSettings({ min_confluence: [2, 2] })).toThrow('grid rule min_confluence lists a value twice');
  });
});

describe('randomSettings', () => {
  const spec = {
    samples: 20,
    seed: 42,
    ranges: { supertrend_multiplier: { min: 1.5, max: 4 }, supertrend_atr_period: { min: 5, max: 30 } },
  };

  it('gives the same settings for the same seed and others for another seed', () => {
    expect(randomSettings(spec)).toEqual(randomSettings(spec));
    expect(randomSettings({ ...spec, seed: 43 })).not.toEqual(randomSettings(spec));
  });

  it('draws each value inside its range, whole numbers for the rules that take them', () => {
    const settings = randomSettings(spec);
    expect(settings).toHaveLength(20);
    for (const s of settings) {
      expect(s.supertrend_multiplier).toBeGreaterThanOrEqual(1.5);
      expect(s.supertrend_multiplier).toBeLessThanOrEqual(4);
      expect(Number.isInteger(s.supertrend_atr_period)).toBe(true);
      expect(s.supertrend_atr_period).toBeGreaterThanOrEqual(5);
      expect(s.supertrend_atr_period).toBeLessThanOrEqual(30);
    }
  });

  it('keeps to the step grid, as decimals that read exactly (0.3, not 0.30000000000000004)', () => {
    const settings = randomSettings({ samples: 30, seed: 7, ranges: { risk_reward: { min: 0.1, max: 3, step: 0.1 } } });
    for (const s of settings) {
      const tenths = (s.risk_reward ?? NaN) * 10;
      expect(Math.abs(tenths - Math.round(tenths))).toBeLessThan(1e-9);
      expect(String(s.risk_reward)).toMatch(/^\d(\.\d)?$/);
    }
  });

  it('never draws the same setting twice, and returns all there are when the ranges hold fewer than asked', () => {
    const settings = randomSettings({ samples: 10, seed: 1, ranges: { min_confluence: { min: 1, max: 4, step: 1 } } });
    expect(settings.map((s) => s.min_confluence).sort()).toEqual([1, 2, 3, 4]);
  });

  it('refuses more samples than a sweep runs, an empty range set and an upside-down range', () => {
    expect(() => randomSettings({ ...spec, samples: 257 })).toThrow('samples must be a whole number from 1 to 256');
    expect(() => randomSettings({ ...spec, ranges: {} })).toThrow('at least one rule range');
    expect(() => randomSettings({ ...spec, ranges: { risk_reward: { min: 3, max: 1 } } })).toThrow('range of risk_reward needs finite min ≤ max');
    expect(() => randomSettings({ ...spec, ranges: { risk_reward: { min: 1, max: 3, step: 0 } } })).toThrow('step of risk_reward must be a positive number');
  });
});

describe('walkForwardWindows', () => {
  it('splits a range into consecutive windows, each in-sample then out-of-sample', () => {
    // 1,000 s in 4 windows of 250 s, 60 % in-sample: 150 s in, 100 s out.
    expect(walkForwardWindows({ fromSec: 1000, toSec: 2000 }, { windows: 4, inSampleFraction: 0.6 })).toEqual([
      { index: 0, inSample: { fromSec: 1000, toSec: 1150 }, outOfSample: { fromSec: 1150, toSec: 1250 } },
      { index: 1, inSample: { fromSec: 1250, toSec: 1400 }, outOfSample: { fromSec: 1400, toSec: 1500 } },
      { index: 2, inSample: { fromSec: 1500, toSec: 1650 }, outOfSample: { fromSec: 1650, toSec: 1750 } },
      { index: 3, inSample: { fromSec: 1750, toSec: 1900 }, outOfSample: { fromSec: 1900, toSec: 2000 } },
    ]);
  });

  it('tiles a range that does not divide evenly without a gap, to whole seconds', () => {
    const windows = walkForwardWindows({ fromSec: 0, toSec: 100 }, { windows: 3, inSampleFraction: 0.5 });
    expect(windows.map((w) => [w.inSample.fromSec, w.inSample.toSec, w.outOfSample.toSec])).toEqual([
      [0, 16, 33],
      [33, 49, 66],
      [66, 83, 100],
    ]);
  });

  it('refuses a range too short to leave each part a second, and bad window counts or fractions', () => {
    expect(() => walkForwardWindows({ fromSec: 0, toSec: 3 }, { windows: 3, inSampleFraction: 0.5 })).toThrow('too short');
    expect(() => walkForwardWindows({ fromSec: 0, toSec: 100 }, { windows: 0, inSampleFraction: 0.5 })).toThrow('windows must be');
    expect(() => walkForwardWindows({ fromSec: 0, toSec: 100 }, { windows: 2, inSampleFraction: 1 })).toThrow('in-sample fraction');
  });
});

describe('rankOrder', () => {
  it('ranks higher values first for most metrics', () => {
    expect(rankOrder([100, -50, 300, 0], 'net_profit')).toEqual([2, 0, 3, 1]);
  });

  it('ranks lower drawdowns and shorter losing streaks first', () => {
    expect(rankOrder([12.5, 3, 7], 'max_drawdown_percent')).toEqual([1, 2, 0]);
    expect(rankOrder([4, 2, 9], 'longest_losing_streak')).toEqual([1, 0, 2]);
  });

  it('puts settings without a value (null, NaN) last, whichever way the metric ranks', () => {
    expect(rankOrder([null, 1.2, Number.NaN, 0.4], 'sharpe')).toEqual([1, 3, 0, 2]);
    expect(rankOrder([null, 5, 2], 'max_drawdown_percent')).toEqual([2, 1, 0]);
  });

  it('breaks ties by the settings’ own order', () => {
    expect(rankOrder([2, 5, 2, 5], 'profit_factor')).toEqual([1, 3, 0, 2]);
    expect(rankOrder([2, 5, 2, 5], 'max_drawdown_percent')).toEqual([0, 2, 1, 3]);
  });
});

describe('outOfSampleTotal', () => {
  it('adds up amounts and counts over the windows', () => {
    expect(outOfSampleTotal([120, -30, 10], 'net_profit')).toBe(100);
    expect(outOfSampleTotal([3, 0, 5], 'trade_count')).toBe(8);
  });

  it('takes the worst window for drawdowns', () => {
    expect(outOfSampleTotal([4.5, 9, 2], 'max_drawdown_percent')).toBe(9);
  });

  it('averages ratios over the windows that have one, and is null when none has', () => {
    expect(outOfSampleTotal([1, null, 2], 'sharpe')).toBe(1.5);
    expect(outOfSampleTotal([null, null], 'profit_factor')).toBeNull();
  });
});
