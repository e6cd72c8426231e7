import { ConfigError } from '@fxdesk/core';
import { ManualClock } from '@fxdesk/primitives';
import { UNREACHABLE_VENUE_SETTINGS } from '@fxdesk/broker/testing';
import { describe, expect, it } from 'vitest';
import { createAccountReader, describeBroker } from '../src/broker.js';
import { testConfig } from './helpers.js';

const { oanda, metaapi, ctrader } = UNREACHABLE_VENUE_SETTINGS;

describe('account BROKER', () => {
  for (const [broker, settings] of [
    ['oanda', oanda],
    ['metaapi', metaapi],
    ['ctrader', ctrader],
  ] as const) {
    it(`builds the ${broker} account reader from its settings`, async () => {
      const account = createAccountReader(testConfig({ BROKER: broker, ...settings }), new ManualClock());
      expect(account.reader.name).toBe(broker);
      await account.close();
    });
  }

  it('names the venue for readiness, never a credential', () => {
    const line = describeBroker(testConfig({ BROKER: 'metaapi', ...metaapi }));
    expect(line).toBe('metaapi (account account-1, http://127.0.0.1:1)');
  });

  for (const [broker, name] of [
    ['oanda', 'OANDA_ACCOUNT_ID'],
    ['metaapi', 'METAAPI_TOKEN'],
    ['ctrader', 'CTRADER_ACCOUNT_ID'],
  ] as const) {
    it(`refuses BROKER=${broker} without ${name}`, () => {
      const settings = { oanda, metaapi, ctrader }[broker];
      const { [name]: _, ...without } = settings;
      expect(() => testConfig({ BROKER: broker, ...without })).toThrow(ConfigError);
      expect(() => testConfig({ BROKER: broker, ...without })).toThrow(`${name}: is required when BROKER=${broker}`);
    });
  }
});
