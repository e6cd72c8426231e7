import { ConfigError } from '@fxdesk/core';
import { ManualClock } from '@fxdesk/primitives';
import { UNREACHABLE_VENUE_SETTINGS } from '@fxdesk/broker/testing';
import { describe, expect, it } from 'vitest';
import { createTerminal, describeTerminal } from '../src/terminal.js';
import { NOW, testConfig } from './helpers.js';

const { oanda, metaapi, ctrader } = UNREACHABLE_VENUE_SETTINGS;

describe('execution BROKER', () => {
  for (const [broker, settings] of [
    ['oanda', oanda],
    ['metaapi', metaapi],
    ['ctrader', ctrader],
    ['simulated', {}],
  ] as const) {
    it(`builds the ${broker} terminal from its settings`, async () => {
      const handle = createTerminal(testConfig({ BROKER: broker, ...settings }), new ManualClock(NOW));
      expect(handle.terminal.name).toBe(broker);
      expect(handle.calls().orderSend).toBe(0);
      await handle.close();
    });
  }

  it('names the venue in its start line, never a credential', () => {
    const line = describeTerminal(testConfig({ BROKER: 'oanda', ...oanda }));
    expect(line).toContain('oanda (practice, http://127.0.0.1:1, account 101-004-1435156-001)');
    expect(line).not.toContain('oanda-token');
  });

  for (const [broker, name] of [
    ['oanda', 'OANDA_API_TOKEN'],
    ['metaapi', 'METAAPI_ACCOUNT_ID'],
    ['ctrader', 'CTRADER_CLIENT_SECRET'],
  ] as const) {
    it(`refuses BROKER=${broker} without ${name}`, () => {
      const settings = { oanda, metaapi, ctrader }[broker];
      const { [name]: _, ...without } = settings;
      expect(() => testConfig({ BROKER: broker, ...without })).toThrow(ConfigError);
      expect(() => testConfig({ BROKER: broker, ...without })).toThrow(`${name}: is required when BROKER=${broker}`);
    });
  }
});
