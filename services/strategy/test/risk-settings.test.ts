import { ConfigError } from '@fxdesk/core';
import { RISK_LIMITS_OFF } from '@fxdesk/trading';
import { describe, expect, it } from 'vitest';
import { riskSettingsOf } from '../src/risk-settings.js';
import { testConfig } from './helpers.js';

describe('the risk settings', () => {
  it('default to fixed lots, one position per pair and no other limit: today’s behaviour', () => {
    expect(riskSettingsOf(testConfig())).toEqual({
      riskPercent: null,
      limits: RISK_LIMITS_OFF,
      dayRollHour: 17,
      timeZone: 'America/New_York',
      haltFlatten: false,
    });
  });

  it('read every limit, with 0 as off and a cooldown only when both of its settings are set', () => {
    const settings = riskSettingsOf(
      testConfig({
        SIZING: 'risk',
        RISK_PERCENT: '0.5',
        ONE_POSITION_PER_PAIR: 'false',
        MAX_OPEN_TRADES: '3',
        MAX_CURRENCY_EXPOSURE_LOTS: '2.5',
        DAILY_LOSS_LIMIT: '3',
        MAX_DRAWDOWN: '10',
        COOLDOWN_LOSSES: '2',
        COOLDOWN_CANDLES: '12',
        RISK_DAY_ROLL_HOUR: '0',
        RISK_DAY_TIME_ZONE: 'Europe/London',
        HALT_FLATTEN: 'true',
      }),
    );
    expect(settings).toEqual({
      riskPercent: 0.5,
      limits: {
        onePositionPerPair: false,
        maxOpenTrades: 3,
        maxCurrencyExposureLots: 2.5,
        dailyLossLimitPercent: 3,
        maxDrawdownPercent: 10,
        cooldown: { losses: 2, candles: 12 },
      },
      dayRollHour: 0,
      timeZone: 'Europe/London',
      haltFlatten: true,
    });
    expect(riskSettingsOf(testConfig({ COOLDOWN_LOSSES: '2' })).limits.cooldown).toBeNull();
  });

  it('refuse a bad sizing, a risk out of bounds and a time zone Intl does not know, naming each', () => {
    expect(() => testConfig({ SIZING: 'kelly', RISK_PERCENT: '20', RISK_DAY_TIME_ZONE: 'Mars/Olympus' })).toThrow(ConfigError);
    try {
      testConfig({ SIZING: 'kelly', RISK_PERCENT: '20', RISK_DAY_TIME_ZONE: 'Mars/Olympus' });
    } catch (err) {
      expect((err as Error).message).toMatch(/SIZING: expected fixed or risk.*RISK_PERCENT: .*RISK_DAY_TIME_ZONE: expected an IANA time zone/s);
    }
  });
});
