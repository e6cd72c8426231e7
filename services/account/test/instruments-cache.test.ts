import type { Instrument } from '@fxdesk/broker';
import { ManualClock } from '@fxdesk/primitives';
import { describe, expect, it } from 'vitest';
import { InstrumentsCache } from '../src/instruments-cache.js';

const EUR_USD: Instrument = {
  name: 'EUR_USD',
  type: 'CURRENCY',
  displayName: 'EUR/USD',
  pipLocation: -4,
  displayPrecision: 5,
  tradeUnitsPrecision: 0,
  minimumTradeSize: '1',
  maximumOrderUnits: '100000000',
  marginRate: '0.02',
};

describe('InstrumentsCache', () => {
  it('shares one broker call between concurrent misses', async () => {
    let calls = 0;
    const cache = new InstrumentsCache(async () => (calls++, [EUR_USD]), new ManualClock(), 60_000);
    await Promise.all([cache.get(), cache.get(), cache.get()]);
    expect(calls).toBe(1);
  });

  it('asks the broker every time when the TTL is 0', async () => {
    let calls = 0;
    const cache = new InstrumentsCache(async () => (calls++, [EUR_USD]), new ManualClock(), 0);
    await cache.get();
    await cache.get();
    expect(calls).toBe(2);
  });
});
