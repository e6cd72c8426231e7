import { describe, expect, it } from 'vitest';
import { ctraderUrl } from '../../src/ctrader/hosts.js';

describe('ctraderUrl', () => {
  it('uses the documented proxy of each environment on the JSON port', () => {
    expect(ctraderUrl('demo')).toBe('wss://demo.ctraderapi.com:5036');
    expect(ctraderUrl('live')).toBe('wss://live.ctraderapi.com:5036');
  });

  it('takes a host and port override, with a ws:// origin for a local stand-in', () => {
    expect(ctraderUrl('demo', { host: 'proxy.internal', port: 443 })).toBe('wss://proxy.internal:443');
    expect(ctraderUrl('live', { host: 'ws://127.0.0.1', port: 9000 })).toBe('ws://127.0.0.1:9000');
  });
});
