import { BacktestRequestSchema, type BacktestSummary } from '@fxdesk/schemas';
import { describe, expect, it } from 'vitest';
import { comparisonName, comparisonRequest, findComparison, periodStart, type Period } from '../src/journal-comparison.js';
import { LIVE_RULES } from './fixtures.js';

const PERIOD: Period = {
  account: 'paper',
  instruments: ['USD_JPY', 'EUR_USD'],
  timeframe: 'M5',
  fromIso: '2026-01-05T00:00:00.000Z',
  toIso: '2026-01-07T12:33:20.000Z',
  initialEquity: 100_250.5,
};

/** A backtest in GET /backtests, as the comparison's request would have made it. */
function summary(id: string, overrides: Partial<BacktestSummary> = {}, settings: Partial<BacktestSummary['settings']> = {}): BacktestSummary {
  return {
    id,
    name: 'Journal paper since 2026-01-05',
    status: 'done',
    progress: 1,
    created_at: '2026-01-07T12:34:00.000Z',
    started_at: '2026-01-07T12:34:00.000Z',
    finished_at: '2026-01-07T12:34:05.000Z',
    error: null,
    settings: {
      instruments: ['EUR_USD', 'USD_JPY'],
      timeframe: 'M5',
      from: '2026-01-05T00:00:00.000Z',
      to: '2026-01-07T12:33:20.000Z',
      rules: LIVE_RULES,
      initial_balance: 100_250.5,
      fill_model: { spread_points: null, slippage_points: 0, commission_per_lot: 0, volume: { lots: 0.1 } },
      account_currency: 'USD',
      warmup_candles: 300,
      ...settings,
    },
    candles: 1000,
    signals: 4,
    skipped_signals: 0,
    metrics: null,
    data: null,
    sweep_id: null,
    ...overrides,
  };
}

describe('the period the journal is compared over', () => {
  it('starts at the UTC midnight of the day the first closed trade entered', () => {
    expect(periodStart({ entry_time: '2026-01-05T23:59:00.000Z' })).toBe('2026-01-05T00:00:00.000Z');
    expect(periodStart({ entry_time: '2026-01-06T00:00:00.000Z' })).toBe('2026-01-06T00:00:00.000Z');
  });

  it('names its backtest by the account and the first day', () => {
    expect(comparisonName('live', '2026-01-05T00:00:00.000Z')).toBe('Journal live since 2026-01-05');
  });
});

describe("the comparison's backtest request", () => {
  it('runs the desk’s pairs and timeframe over the period from the journal’s equity, overriding no rule or fill', () => {
    const body = comparisonRequest(PERIOD);
    expect(body).toEqual({
      name: 'Journal paper since 2026-01-05',
      instruments: ['EUR_USD', 'USD_JPY'],
      timeframe: 'M5',
      from: '2026-01-05T00:00:00.000Z',
      to: '2026-01-07T12:33:20.000Z',
      initial_balance: 100_250.5,
    });
    expect(BacktestRequestSchema.parse(body)).toEqual(body);
  });

  it('keeps the default balance when the journal’s equity at the start is not positive', () => {
    expect(comparisonRequest({ ...PERIOD, initialEquity: -20 })).not.toHaveProperty('initial_balance');
  });

  it('takes at most 20 pairs', () => {
    const many = Array.from({ length: 25 }, (_, i) => `AA${String.fromCharCode(65 + i)}_USD`);
    expect(comparisonRequest({ ...PERIOD, instruments: many }).instruments).toHaveLength(20);
  });
});

describe('finding the comparison’s backtest again', () => {
  const request = comparisonRequest(PERIOD);

  it('takes the newest backtest of the same name, pairs, timeframe and start, whatever its end', () => {
    const list = [summary('other', { name: 'mine' }), summary('newest', {}, { to: '2026-01-07T13:00:00.000Z' }), summary('older')];
    expect(findComparison(list, request)?.id).toBe('newest');
  });

  it('passes over a cancelled one', () => {
    expect(findComparison([summary('cancelled', { status: 'cancelled' }), summary('done')], request)?.id).toBe('done');
  });

  it('finds none on other pairs, another timeframe or another start', () => {
    expect(findComparison([summary('a', {}, { instruments: ['EUR_USD'] })], request)).toBeNull();
    expect(findComparison([summary('b', {}, { timeframe: 'H1' })], request)).toBeNull();
    expect(findComparison([summary('c', {}, { from: '2026-01-04T00:00:00.000Z' })], request)).toBeNull();
  });
});
