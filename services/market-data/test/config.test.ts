import { ConfigError, loadConfig } from '@fxdesk/core';
import { describe, expect, it } from 'vitest';
import { MarketDataConfigSchema } from '../src/config.js';

describe('MarketDataConfigSchema', () => {
  it('refuses a BROKER that is no venue with one message naming it', () => {
    const load = () => loadConfig(MarketDataConfigSchema, { API_KEY: 'long-enough-key', BROKER: 'ib' });
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(/^invalid configuration: BROKER: .*"ctrader".*\(got "ib"\)$/);
  });

  it('names every missing cTrader credential when BROKER=ctrader, never echoing a secret', () => {
    const load = () => loadConfig(MarketDataConfigSchema, { API_KEY: 'long-enough-key', BROKER: 'ctrader', CTRADER_CLIENT_SECRET: 'sekrit-value' });
    expect(load).toThrow(
      'invalid configuration: CTRADER_CLIENT_ID: is required when BROKER=ctrader; CTRADER_ACCESS_TOKEN: is required when BROKER=ctrader; CTRADER_ACCOUNT_ID: is required when BROKER=ctrader',
    );
    const bad = () => loadConfig(MarketDataConfigSchema, { API_KEY: 'long-enough-key', CTRADER_ACCOUNT_ID: 'acc-1', CTRADER_ACCESS_TOKEN: 'x' });
    expect(bad).toThrow(/CTRADER_ACCOUNT_ID: expected the numeric ctidTraderAccountId/);
  });

  it('reads the cTrader settings with the demo environment and the JSON port by default', () => {
    const config = loadConfig(MarketDataConfigSchema, {
      API_KEY: 'long-enough-key',
      BROKER: 'ctrader',
      CTRADER_CLIENT_ID: '7_abc',
      CTRADER_CLIENT_SECRET: 'secret',
      CTRADER_ACCESS_TOKEN: 'token',
      CTRADER_ACCOUNT_ID: '22334455',
    });
    expect(config).toMatchObject({ BROKER: 'ctrader', CTRADER_ACCOUNT_ID: 22_334_455, CTRADER_ENVIRONMENT: 'demo', CTRADER_PORT: 5036 });
    expect(config.CTRADER_HOST).toBeUndefined();
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

  it('reads REPLICA_URL as an http(s) URL without its trailing slash, and refuses any other', () => {
    const load = (REPLICA_URL: string) => loadConfig(MarketDataConfigSchema, { API_KEY: 'long-enough-key', REPLICA_URL }).REPLICA_URL;
    expect(load('http://market-data-1:8010/')).toBe('http://market-data-1:8010');
    expect(load('https://md.internal/market-data')).toBe('https://md.internal/market-data');
    expect(() => load('redis://127.0.0.1:6379')).toThrow(/REPLICA_URL: expected the http:\/\/ or https:\/\/ URL other replicas reach this one at/);
    expect(() => load('market-data-1:8010')).toThrow(/REPLICA_URL/);
  });
});
