import { ConfigError, loadConfig } from '@fxdesk/core';
import { describe, expect, it } from 'vitest';
import { DEFAULT_ALLOWED_SIGNAL_SOURCES, ExecutionConfigSchema } from '../src/config.js';

const load = (env: Record<string, string>) => loadConfig(ExecutionConfigSchema, { API_KEY: 'test-execution-key', ...env });

function problem(env: Record<string, string>): string {
  try {
    load(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.message;
  }
  throw new Error('expected a configuration error');
}

describe('execution config', () => {
  it('has documented defaults: loopback, port 8000, trading off, four sources including fxdesk-strategy', () => {
    const config = load({});
    expect(config).toMatchObject({
      HOST: '127.0.0.1',
      PORT: 8000,
      TRADING_ENABLED: false,
      MAXIMUM_VOLUME: '10',
      MAX_DEVIATION_POINTS: 50,
      MAX_CANDLES_LOOKBACK: 1000,
      SIGNAL_MAX_AGE_SECONDS: 60,
      SIGNAL_FUTURE_TOLERANCE_SECONDS: 5,
      ORDER_SEND_TIMEOUT_MS: 15000,
      PRE_SEND_TIMEOUT_MS: 15000,
    });
    expect(config.ALLOWED_SIGNAL_SOURCES).toEqual(DEFAULT_ALLOWED_SIGNAL_SOURCES);
    expect(config.ALLOWED_SIGNAL_SOURCES).toHaveLength(4);
    expect(config.ALLOWED_SIGNAL_SOURCES).toContain('fxdesk-strategy');
    expect(config.ALLOWED_SYMBOLS).toContain('EURUSD');
  });

  it('keeps ALLOWED_SYMBOLS exact: case and inner spaces preserved, items trimmed', () => {
    expect(load({ ALLOWED_SYMBOLS: 'EURUSD.m, US 500 ,eurusd' }).ALLOWED_SYMBOLS).toEqual(['EURUSD.m', 'US 500', 'eurusd']);
  });

  it('refuses a source that is not a slug', () => {
    expect(problem({ ALLOWED_SIGNAL_SOURCES: 'TradingView' })).toMatch(/ALLOWED_SIGNAL_SOURCES/);
  });

  it('refuses a MAXIMUM_VOLUME that is not a positive decimal', () => {
    for (const value of ['0', '-1', 'ten', '1e3']) expect(problem({ MAXIMUM_VOLUME: value })).toMatch(/MAXIMUM_VOLUME/);
  });

  it('refuses a BROKER that is no venue, naming the venues', () => {
    expect(problem({ BROKER: 'ib' })).toMatch(/BROKER: .*"oanda".*"ctrader"/);
  });

  it("parses SIM_TERMINAL_FAULTS with the simulated terminal's parser", () => {
    expect(load({ SIM_TERMINAL_FAULTS: 'orderSend:hang, orderCheck:timeout:2' }).SIM_TERMINAL_FAULTS).toEqual([
      { method: 'orderSend', kind: 'hang' },
      { method: 'orderCheck', kind: 'timeout', times: 2 },
    ]);
    expect(problem({ SIM_TERMINAL_FAULTS: 'orderSend:explode' })).toMatch(/SIM_TERMINAL_FAULTS: invalid fault "orderSend:explode"/);
  });
});
