import { describe, expect, it } from 'vitest';
import { signalIdFor, uuidV5 } from '../src/signal-id.js';

describe('signal ids', () => {
  it('computes RFC 9562 version 5 UUIDs (the DNS namespace vector of www.example.com)', () => {
    expect(uuidV5('www.example.com', '6ba7b810-9dad-11d1-80b4-00c04fd430c8')).toBe('2ed6657d-e927-568b-95e1-2665a8aea6a2');
  });

  it('derives the same signal_id from the same instrument, timeframe and candle time', () => {
    expect(signalIdFor('EUR_USD', 'M5', 1_767_614_400)).toBe(signalIdFor('EUR_USD', 'M5', 1_767_614_400));
  });

  it('derives a different signal_id when the instrument, the timeframe or the candle differs', () => {
    const ids = new Set([
      signalIdFor('EUR_USD', 'M5', 1_767_614_400),
      signalIdFor('GBP_USD', 'M5', 1_767_614_400),
      signalIdFor('EUR_USD', 'M15', 1_767_614_400),
      signalIdFor('EUR_USD', 'M5', 1_767_614_700),
    ]);
    expect(ids.size).toBe(4);
  });
});
