/* The strategy's OpenAPI contract suites' settings and examples: one suite per file, so the two run side by side. */

import type { ExampleRequest } from '@fxdesk/core/testing';

// Limits high enough that the generated requests reach the routes, not only the 429; the lab's
// backtests answer at once, on at most LAB_MAX_CANDLES of the simulated market.
export const LIMITS = {
  BODY_LIMIT_BYTES: '4096',
  RATE_LIMIT_GET_PER_MINUTE: '100000',
  RATE_LIMIT_POST_PER_MINUTE: '100000',
  CONSOLE_LOGIN_PER_MINUTE: '1000',
  LAB_MAX_CANDLES: '10000',
  LAB_MAX_QUEUE: '1000',
};

// Requests the lab accepts (a range before the harness's clock), so its 202s are checked too.
const BACKTEST = { instruments: ['EUR_USD'], from: '2025-12-01', to: '2025-12-03' };
export const EXAMPLES: Record<string, ExampleRequest[]> = {
  'POST /backtests': [
    { body: BACKTEST },
    { body: { ...BACKTEST, timeframe: 'H1', rules: { min_confluence: 2, risk_percent: 1, max_open_trades: 2 }, fill_model: { volume: { lots: 0.5 } } } },
  ],
  'POST /sweeps': [{ body: { base: BACKTEST, grid: { risk_reward: [1, 2] }, rank_by: 'sharpe' } }],
};
