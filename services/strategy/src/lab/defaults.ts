import type { LabDefaults } from '@fxdesk/schemas';
import { apiRules, rulesOf } from '../rules.js';
import { ACCOUNT_CURRENCY, type PlanConfig } from './plan.js';

/** What a backtest takes for each setting its request leaves out (GET /lab/defaults; planBacktest fills them in so). */
export function labDefaults(config: PlanConfig): LabDefaults {
  return {
    timeframe: config.TIMEFRAME,
    rules: apiRules(rulesOf(config)),
    initial_balance: config.PAPER_BALANCE,
    leverage: config.PAPER_LEVERAGE,
    account_currency: ACCOUNT_CURRENCY,
    volume_lots: Number(config.TRADE_VOLUME),
  };
}
