/**
 * The desk's risk settings (issue 24) as the trading units take them: the sizing and the limits
 * (@fxdesk/trading's riskLots and RiskBook) that live, paper and the lab all apply before an entry.
 */
import type { RiskLimits } from '@fxdesk/trading';
import type { StrategyConfig } from './config.js';

/** The bounds of the risk settings; 0 is off for every limit. */
export const RISK_BOUNDS = {
  riskPercent: { min: 0.01, max: 10 },
  maxOpenTrades: { min: 0, max: 1000 },
  maxCurrencyExposureLots: { min: 0, max: 100_000 },
  dailyLossLimitPercent: { min: 0, max: 100 },
  maxDrawdownPercent: { min: 0, max: 100 },
  cooldownLosses: { min: 0, max: 100 },
  cooldownCandles: { min: 0, max: 100_000 },
} as const;

export interface RiskSettings {
  /** Percent of the equity lost at the stop (SIZING=risk); null: fixed lots. */
  riskPercent: number | null;
  limits: RiskLimits;
  /** The hour, in `timeZone`, the trading day starts (for the daily loss limit). */
  dayRollHour: number;
  timeZone: string;
  /** A halt also flattens what the strategy opened. */
  haltFlatten: boolean;
}

const offWhenZero = (v: number) => (v > 0 ? v : null);

export function riskSettingsOf(config: StrategyConfig): RiskSettings {
  return {
    riskPercent: config.SIZING === 'risk' ? config.RISK_PERCENT : null,
    limits: {
      onePositionPerPair: config.ONE_POSITION_PER_PAIR,
      maxOpenTrades: offWhenZero(config.MAX_OPEN_TRADES),
      maxCurrencyExposureLots: offWhenZero(config.MAX_CURRENCY_EXPOSURE_LOTS),
      dailyLossLimitPercent: offWhenZero(config.DAILY_LOSS_LIMIT),
      maxDrawdownPercent: offWhenZero(config.MAX_DRAWDOWN),
      cooldown: config.COOLDOWN_LOSSES > 0 && config.COOLDOWN_CANDLES > 0 ? { losses: config.COOLDOWN_LOSSES, candles: config.COOLDOWN_CANDLES } : null,
    },
    dayRollHour: config.RISK_DAY_ROLL_HOUR,
    timeZone: config.RISK_DAY_TIME_ZONE,
    haltFlatten: config.HALT_FLATTEN,
  };
}
