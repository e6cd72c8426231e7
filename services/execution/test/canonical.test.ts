import { SignalSubmissionSchema, type SignalSubmissionInput } from '@fxdesk/schemas';
import { describe, expect, it } from 'vitest';
import { canonicalSubmission, payloadHash } from '../src/canonical.js';

const base: SignalSubmissionInput = {
  signal_id: '7b0c6a9e-3f0e-4a8e-9d44-2f1b2c3d4e5f',
  occurred_at: '2026-01-05T12:00:00Z',
  execution_type: 'market',
  symbol: 'EURUSD',
  direction: 'buy',
  volume: '0.10',
  source: 'tradingview',
};

const hashOf = (input: Record<string, unknown>) => payloadHash(SignalSubmissionSchema.parse(input));

describe('canonical payload hash', () => {
  it('ignores key order', () => {
    const reversed = Object.fromEntries(Object.entries(base).reverse());
    expect(hashOf(reversed)).toBe(hashOf(base));
  });

  it('applies defaults, so an omitted ignore_signal_age equals an explicit true', () => {
    expect(hashOf({ ...base, ignore_signal_age: true })).toBe(hashOf(base));
    expect(hashOf({ ...base, ignore_signal_age: false })).not.toBe(hashOf(base));
  });

  it('treats decimals by value: "0.10" equals "0.1"', () => {
    expect(hashOf({ ...base, volume: '0.1' })).toBe(hashOf(base));
    expect(hashOf({ ...base, volume: '0.11' })).not.toBe(hashOf(base));
  });

  it('treats timestamps by instant, to the nanosecond', () => {
    expect(hashOf({ ...base, occurred_at: '2026-01-05T13:00:00+01:00' })).toBe(hashOf(base));
    expect(hashOf({ ...base, occurred_at: '2026-01-05T12:00:00.000Z' })).toBe(hashOf(base));
    expect(hashOf({ ...base, occurred_at: '2026-01-05T12:00:00.000000001Z' })).not.toBe(hashOf(base));
  });

  it('treats the signal_id case-insensitively', () => {
    expect(hashOf({ ...base, signal_id: base.signal_id.toUpperCase() })).toBe(hashOf(base));
  });

  it('changes with any field, the free-text note included', () => {
    for (const change of [{ direction: 'sell' }, { symbol: 'GBPUSD' }, { source: 'manual' }, { note: 'x' }, { deviation_points: 3 }]) {
      expect(hashOf({ ...base, ...change })).not.toBe(hashOf(base));
    }
  });

  it('writes sorted keys with no whitespace', () => {
    const text = canonicalSubmission(SignalSubmissionSchema.parse(base));
    expect(text).not.toMatch(/\s/);
    const keys = Object.keys(JSON.parse(text) as object);
    expect(keys).toEqual([...keys].sort());
  });
});
