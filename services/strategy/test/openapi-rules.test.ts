import { openApiRulesSuite } from '@fxdesk/core/testing';
import { harness } from './helpers.js';
import { instantRunner } from './lab-jobs.fixture.js';

// A range before the harness's clock, on at most LAB_MAX_CANDLES of the simulated market.
const BACKTEST = { instruments: ['EUR_USD'], from: '2025-12-01', to: '2025-12-03' };
const RANDOM = { samples: 2, ranges: { risk_reward: { min: 1, max: 2 } } };

openApiRulesSuite('strategy', {
  build: async () => (await harness({ env: { LAB_MAX_CANDLES: '10000', LAB_MAX_QUEUE: '1000' }, labRunner: instantRunner })).app,
  sampled: ['POST /backtests', 'POST /sweeps'],
  reject: [
    { what: 'with grid and random', operation: 'POST /sweeps', body: { base: BACKTEST, grid: { risk_reward: [1, 2] }, random: RANDOM, rank_by: 'sharpe' } },
    { what: 'with neither grid nor random', operation: 'POST /sweeps', body: { base: BACKTEST, rank_by: 'sharpe' } },
  ],
  accept: [
    { what: 'with grid', operation: 'POST /sweeps', body: { base: BACKTEST, grid: { risk_reward: [1, 2] }, rank_by: 'sharpe' } },
    { what: 'with random', operation: 'POST /sweeps', body: { base: BACKTEST, random: RANDOM, rank_by: 'sharpe' } },
    { what: 'a backtest', operation: 'POST /backtests', body: BACKTEST },
  ],
});
