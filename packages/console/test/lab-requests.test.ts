import { BacktestRequestSchema, SweepRequestSchema } from '@fxdesk/schemas';
import { describe, expect, it } from 'vitest';
import {
  backtestRequest,
  defaultBacktestForm,
  defaultSweepForm,
  gridOf,
  gridValues,
  sweepRequest,
  yearsBefore,
  type BacktestForm,
  type Built,
} from '../src/lab/requests.js';
import { ruleSpec } from '../src/lab/rules.js';
import { NOW } from './fixtures.js';

const PAIRS = ['EUR_USD', 'GBP_USD', 'USD_JPY', 'AUD_USD'];

function form(overrides: Partial<BacktestForm> = {}): BacktestForm {
  return { ...defaultBacktestForm(PAIRS, 'M5', NOW), ...overrides };
}

function problemsOf<T>(built: Built<T>): string[] {
  return built.ok ? [] : built.problems.map((p) => p.message);
}

function bodyOf<T>(built: Built<T>): T {
  if (!built.ok) throw new Error(`refused: ${problemsOf(built).join('; ')}`);
  return built.body;
}

describe('a new backtest form', () => {
  it('starts on the monitored pairs and the strategy’s timeframe over the year up to today', () => {
    expect(form()).toMatchObject({ instruments: PAIRS, timeframe: 'M5', from: '2025-01-07', to: '2026-01-07', rules: {} });
  });

  it('takes at most 20 pairs', () => {
    const many = Array.from({ length: 25 }, (_, i) => `AA${String.fromCharCode(65 + i)}_USD`);
    expect(defaultBacktestForm(many, 'H1', NOW).instruments).toHaveLength(20);
  });

  it('goes a year back from 29 February to 1 March', () => {
    expect(yearsBefore('2028-02-29', 1)).toBe('2027-03-01');
  });
});

describe('the backtest request', () => {
  it('is the pairs, timeframe and days alone when nothing else is set, as the contract reads it', () => {
    const body = bodyOf(backtestRequest(form(), NOW));
    expect(body).toEqual({ instruments: PAIRS, timeframe: 'M5', from: '2025-01-07', to: '2026-01-07' });
    expect(BacktestRequestSchema.parse(body)).toEqual(body);
  });

  it('carries the rules typed, the balance, the fill model and the name', () => {
    const body = bodyOf(
      backtestRequest(
        form({
          name: '  tight stops ',
          rules: { min_confluence: '2', supertrend_multiplier: '2.5', risk_reward: '', risk_percent: '1' },
          initialBalance: '50000',
          spreadPoints: '12',
          slippagePoints: '1.5',
          commissionPerLot: '7',
        }),
        NOW,
      ),
    );
    expect(body).toEqual({
      instruments: PAIRS,
      timeframe: 'M5',
      from: '2025-01-07',
      to: '2026-01-07',
      rules: { supertrend_multiplier: 2.5, min_confluence: 2, risk_percent: 1 },
      initial_balance: 50_000,
      fill_model: { spread_points: 12, slippage_points: 1.5, commission_per_lot: 7 },
      name: 'tight stops',
    });
    expect(BacktestRequestSchema.parse(body)).toEqual(body);
  });

  it('carries the exit rules typed, 0 as off, and leaves out those left empty', () => {
    const body = bodyOf(
      backtestRequest(form({ rules: { time_exit_candles: '12', exit_on_opposite_signal: '1', break_even_r: '0', trailing_stop_r: '' } }), NOW),
    );
    expect(body.rules).toEqual({ break_even_r: 0, time_exit_candles: 12, exit_on_opposite_signal: 1 });
    expect(BacktestRequestSchema.parse(body)).toEqual(body);
  });

  it('refuses an exit rule out of its bounds', () => {
    expect(problemsOf(backtestRequest(form({ rules: { trailing_stop_atr: '51', time_exit_candles: '2.5', exit_on_opposite_signal: '2' } }), NOW))).toEqual([
      'Trailing stop (ATR): between 0 and 50',
      'Time exit (candles): a whole number',
      'Exit on opposite signal: between 0 and 1',
    ]);
  });

  it('asks for fixed lots when the size is in lots', () => {
    expect(bodyOf(backtestRequest(form({ volumeMode: 'lots', volume: '0.5' }), NOW)).fill_model).toEqual({ volume: { lots: 0.5 } });
    expect(problemsOf(backtestRequest(form({ volumeMode: 'lots', volume: '' }), NOW))).toEqual(['Lots: give the lots per trade']);
  });

  it('refuses no pair, a range that ends before it starts or in the future, and rules out of bounds', () => {
    expect(problemsOf(backtestRequest(form({ instruments: [] }), NOW))).toEqual(['Pick at least one pair']);
    expect(problemsOf(backtestRequest(form({ from: '2026-01-07', to: '2026-01-01' }), NOW))).toEqual(['To: after From']);
    expect(problemsOf(backtestRequest(form({ to: '2026-01-08' }), NOW))).toEqual(['To: not in the future']);
    expect(problemsOf(backtestRequest(form({ from: '2025-02-30' }), NOW))).toEqual(['From: a date like 2026-01-01']);
    expect(problemsOf(backtestRequest(form({ rules: { min_confluence: '5', supertrend_atr_period: '7.5' } }), NOW))).toEqual([
      'Supertrend ATR period: a whole number',
      'Minimum confluence: between 1 and 4',
    ]);
    expect(problemsOf(backtestRequest(form({ initialBalance: '0' }), NOW))).toEqual(['Initial balance: above 0 and at most 1000000000000']);
  });
});

describe('a sweep grid', () => {
  it('reads lists and ranges, sorted without repeats', () => {
    expect(gridValues(ruleSpec('supertrend_atr_period'), '14, 8..12 by 2, 10')).toEqual([8, 10, 12, 14]);
    expect(gridValues(ruleSpec('supertrend_atr_period'), '8..10')).toEqual([8, 9, 10]);
    expect(gridValues(ruleSpec('supertrend_multiplier'), '1..2 by 0.1')).toEqual([1, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.7, 1.8, 1.9, 2]);
  });

  it('says what is wrong with a value or a range', () => {
    expect(gridValues(ruleSpec('min_confluence'), '1, 2, 5')).toBe('Minimum confluence: between 1 and 4');
    expect(gridValues(ruleSpec('supertrend_multiplier'), '1..2')).toBe('Supertrend multiplier: a range reads like 8..14 by 2');
    expect(gridValues(ruleSpec('risk_reward'), '3..1 by 1')).toBe('Risk / reward: a range goes up (3..1 by 1)');
    expect(gridValues(ruleSpec('risk_reward'), 'two')).toBe('Risk / reward: "two" is not a number');
  });

  it('tries exit rules too, off among their values', () => {
    const { grid, count } = gridOf({ ...defaultSweepForm(), grid: { break_even_r: '0, 1..2 by 0.5', exit_on_opposite_signal: '0, 1' } });
    expect(grid).toEqual({ break_even_r: [0, 1, 1.5, 2], exit_on_opposite_signal: [0, 1] });
    expect(count).toBe(8);
  });

  it('counts the settings as the product of its lists', () => {
    const { grid, count } = gridOf({ ...defaultSweepForm(), grid: { supertrend_atr_period: '8, 10, 12', supertrend_multiplier: '2, 3', min_confluence: '' } });
    expect(grid).toEqual({ supertrend_atr_period: [8, 10, 12], supertrend_multiplier: [2, 3] });
    expect(count).toBe(6);
  });
});

describe('the sweep request', () => {
  it('is the backtest form as its base, the grid, the rank metric and the walk-forward, as the contract reads it', () => {
    const sweep = {
      ...defaultSweepForm(),
      grid: { supertrend_atr_period: '8, 12', risk_reward: '1.5, 2' },
      rankBy: 'sharpe' as const,
      walkForward: true,
      windows: '3',
      inSamplePercent: '70',
    };
    const body = bodyOf(sweepRequest(form({ name: 'atr × rr', rules: { min_confluence: '2' } }), sweep, NOW));
    expect(body).toEqual({
      base: { instruments: PAIRS, timeframe: 'M5', from: '2025-01-07', to: '2026-01-07', rules: { min_confluence: 2 } },
      grid: { supertrend_atr_period: [8, 12], risk_reward: [1.5, 2] },
      rank_by: 'sharpe',
      walk_forward: { windows: 3, in_sample_fraction: 0.7 },
      name: 'atr × rr',
    });
    expect(SweepRequestSchema.parse(body)).toEqual(body);
  });

  it('refuses a grid that varies nothing or makes more than 256 settings', () => {
    expect(problemsOf(sweepRequest(form(), defaultSweepForm(), NOW))).toEqual(['Give the values to try of at least one rule']);
    const huge = { ...defaultSweepForm(), grid: { supertrend_atr_period: '1..20', volume_profile_window: '2..15' } };
    expect(problemsOf(sweepRequest(form(), huge, NOW))).toEqual(['280 settings: at most 256']);
  });

  it('refuses a walk-forward without a whole number of windows or with an in-sample share out of 50–90 %', () => {
    const grid = { supertrend_atr_period: '8, 12' };
    expect(problemsOf(sweepRequest(form(), { ...defaultSweepForm(), grid, walkForward: true, windows: '2.5' }, NOW))).toEqual(['Windows: a whole number']);
    expect(problemsOf(sweepRequest(form(), { ...defaultSweepForm(), grid, walkForward: true, inSamplePercent: '95' }, NOW))).toEqual([
      'In-sample share: at least 50 and at most 90',
    ]);
    expect(problemsOf(sweepRequest(form(), { ...defaultSweepForm(), grid, walkForward: true, windows: '' }, NOW))).toEqual([
      'Walk-forward: give the windows and the in-sample share',
    ]);
  });
});
