import { describe, expect, it } from 'vitest';
import { heatAxes, heatMap, isBetter, toneColour, toneScale, varyingRules } from '../src/lab/heat-map.js';
import { sweepResult } from './fixtures.js';

/** A 2 × 3 grid over the ATR period and the multiplier, net profit = period × 10 − multiplier × 100. */
const GRID = [8, 12].flatMap((period) =>
  [2, 3, 4].map((mult) => sweepResult({ supertrend_atr_period: period, supertrend_multiplier: mult }, period * 10 - mult * 100)),
);

describe('the rules a sweep varies', () => {
  it('are those whose values differ between its results, in the contract’s order', () => {
    expect(varyingRules(GRID)).toEqual(['supertrend_atr_period', 'supertrend_multiplier']);
    expect(varyingRules([sweepResult({}, 1)])).toEqual([]);
  });

  it('counts an exit rule a result leaves out as off, 0', () => {
    const exits = [sweepResult({}, 1), sweepResult({ time_exit_candles: 12 }, 2), sweepResult({ time_exit_candles: 0 }, 3)];
    expect(varyingRules(exits)).toEqual(['time_exit_candles']);
    expect(heatMap([...exits, sweepResult({ time_exit_candles: 12, min_confluence: 2 }, 4)], 'time_exit_candles', 'min_confluence', 'net_profit').xs).toEqual([
      0, 12,
    ]);
  });
});

describe('the heat map', () => {
  it('puts one rule across (ascending) and one down (descending), a cell per pair of values', () => {
    const map = heatMap(GRID, 'supertrend_multiplier', 'supertrend_atr_period', 'net_profit');
    expect(map.xs).toEqual([2, 3, 4]);
    expect(map.ys).toEqual([12, 8]);
    expect(map.rows.map((row) => row.map((c) => c.result?.metric))).toEqual([
      [-80, -180, -280],
      [-120, -220, -320],
    ]);
    expect(map.depth).toBe(1);
  });

  it('shows in each cell the best result over the rules off its axes, and says how many share it', () => {
    const deep = [
      sweepResult({ supertrend_atr_period: 8, supertrend_multiplier: 2, min_confluence: 2 }, 50),
      sweepResult({ supertrend_atr_period: 8, supertrend_multiplier: 2, min_confluence: 3 }, 70),
      sweepResult({ supertrend_atr_period: 12, supertrend_multiplier: 2, min_confluence: 2 }, -10),
      sweepResult({ supertrend_atr_period: 12, supertrend_multiplier: 2, min_confluence: 3 }, null),
    ];
    const map = heatMap(deep, 'supertrend_atr_period', 'supertrend_multiplier', 'net_profit');
    expect(map.rows[0]?.map((c) => [c.result?.rules.min_confluence, c.settings])).toEqual([
      [3, 2],
      [2, 2],
    ]);
    expect(map.depth).toBe(2);
  });

  it('leaves a cell empty when the sweep has no setting there', () => {
    const map = heatMap(GRID.slice(0, 5), 'supertrend_multiplier', 'supertrend_atr_period', 'net_profit');
    expect(map.rows[0]?.[2]).toMatchObject({ result: null, settings: 0, tone: null });
  });

  it('keeps the axes asked for when they vary, else takes the first two varying rules', () => {
    const varying = ['supertrend_atr_period', 'supertrend_multiplier', 'min_confluence'] as const;
    expect(heatAxes([...varying], 'min_confluence', 'supertrend_atr_period')).toEqual({ x: 'min_confluence', y: 'supertrend_atr_period' });
    expect(heatAxes([...varying], 'risk_reward', null)).toEqual({ x: 'supertrend_atr_period', y: 'supertrend_multiplier' });
    expect(heatAxes([...varying], 'min_confluence', 'min_confluence')).toEqual({ x: 'min_confluence', y: 'supertrend_atr_period' });
    expect(heatAxes(['risk_reward'], null, null)).toBeNull();
  });
});

describe('ranking and colour', () => {
  it('ranks the higher profit first, the lower drawdown first, and a missing value last', () => {
    const [a, b] = [sweepResult({}, 10), sweepResult({}, 20)] as const;
    expect(isBetter(b, a, 'net_profit')).toBe(true);
    expect(isBetter(a, b, 'max_drawdown_percent')).toBe(true);
    expect(isBetter(a, sweepResult({}, null), 'net_profit')).toBe(true);
    expect(isBetter(sweepResult({}, null), a, 'net_profit')).toBe(false);
  });

  it('diverges a profit at zero: losses in reds (0–0.45), gains in greens (0.55–1), each side from its worst to its best', () => {
    const tone = toneScale([-200, -50, 0, 100], 'net_profit');
    expect([tone(-200), tone(-100), tone(0), tone(50), tone(100)]).toEqual([0, 0.225, 0.5, 0.775, 1]);
  });

  it('still tells apart settings that all lose, all in reds', () => {
    const tone = toneScale([-300, -200, -100], 'net_profit');
    expect([tone(-300), tone(-200), tone(-100)]).toEqual([0, 0.225, 0.45]);
    expect(toneScale([-5], 'net_profit')(-5)).toBe(0.25);
  });

  it('spreads a drawdown linearly, the smallest best', () => {
    const tone = toneScale([5, 10, 15], 'max_drawdown_percent');
    expect([tone(5), tone(10), tone(15)]).toEqual([1, 0.5, 0]);
  });

  it('paints red below the middle, green above, stronger further out, and nothing without a value', () => {
    expect(toneColour(0)).toBe('rgba(239, 83, 80, 0.90)');
    expect(toneColour(1)).toBe('rgba(38, 166, 154, 0.90)');
    expect(toneColour(0.5)).toBe('rgba(38, 166, 154, 0.12)');
    expect(toneColour(null)).toBe('transparent');
  });
});
