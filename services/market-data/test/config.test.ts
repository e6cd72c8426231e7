import { ConfigError, loadConfig } from '@fxdesk/core';
import { describe, expect, it } from 'vitest';
import { MarketDataConfigSchema } from '../src/config.js';

describe('MarketDataConfigSchema', () => {
  it('refuses a BROKER other than simulated with one message naming it', () => {
    const load = () => loadConfig(MarketDataConfigSchema, { API_KEY: 'long-enough-key', BROKER: 'ctrader' });
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(/^invalid configuration: BROKER: the market-data service runs on the simulated feed only for now .*\(got "ctrader"\)$/);
  });

  it('defaults every stream setting', () => {
    const config = loadConfig(MarketDataConfigSchema, { API_KEY: 'long-enough-key' });
    expect(config).toMatchObject({
      BROKER: 'simulated',
      TICK_STALENESS_SECONDS: 30,
      MAX_STREAM_CLIENTS: 1000,
      STREAM_STUCK_SECONDS: 30,
      STREAM_QUEUE_MAX_EVENTS: 1024,
      STREAM_HEARTBEAT_SECONDS: 15,
      STREAM_RETRY_MS: 3000,
      MAX_CANDLES: 1000,
      FEED_RECONNECT_MAX_SECONDS: 30,
    });
  });
});
