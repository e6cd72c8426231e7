import { ConfigError } from '@fxdesk/core';
import { ManualClock } from '@fxdesk/primitives';
import { UNREACHABLE_VENUE_SETTINGS } from '@fxdesk/broker/testing';
import { describe, expect, it } from 'vitest';
import { createQuoteFeed, describeBroker } from '../src/broker.js';
import { testConfig } from './helpers.js';

const { oanda, metaapi, ctrader } = UNREACHABLE_VENUE_SETTINGS;

describe('market-data BROKER', () => {
  for (const [broker, settings] of [
    ['oanda', oanda],
    ['metaapi', metaapi],
    ['ctrader', ctrader],
  ] as const) {
    it(`builds the ${broker} quote feed from its settings`, async () => {
      const built = createQuoteFeed(testConfig({ BROKER: broker, ...settings, DATA_DIR: ':memory:' }), new ManualClock());
      expect(built.feed.name).toBe(broker);
      await built.close();
    });
  }

  it('adds the cTrader token check to readiness', () => {
    const feed = createQuoteFeed(testConfig({ BROKER: 'ctrader', ...ctrader, DATA_DIR: ':memory:' }), new ManualClock());
    expect(Object.keys(feed.checks ?? {})).toEqual(['ctrader_token']);
  });

  it('names the venue in its start line, never a credential', () => {
    const line = describeBroker(testConfig({ BROKER: 'ctrader', ...ctrader }));
    expect(line).toBe(`ctrader (ws://127.0.0.1:1, account ${ctrader.CTRADER_ACCOUNT_ID})`);
  });

  for (const [broker, name] of [
    ['oanda', 'OANDA_API_TOKEN'],
    ['metaapi', 'METAAPI_TOKEN'],
    ['ctrader', 'CTRADER_ACCESS_TOKEN'],
  ] as const) {
    it(`refuses BROKER=${broker} without ${name}`, () => {
      const settings = { oanda, metaapi, ctrader }[broker];
      const { [name]: _, ...without } = settings;
      expect(() => testConfig({ BROKER: broker, ...without })).toThrow(ConfigError);
      expect(() => testConfig({ BROKER: broker, ...without })).toThrow(`${name}: is required when BROKER=${broker}`);
    });
  }
});
