import { describe, expect, it } from 'vitest';
import { SignalSubmissionSchema } from '../src/execution.js';

const base = {
  signal_id: '7b0c6a9e-3f0e-4a8e-9d44-2f1b2c3d4e5f',
  occurred_at: '2026-01-05T12:00:00Z',
  execution_type: 'market',
  symbol: 'EURUSD',
  direction: 'buy',
  volume: '0.10',
  source: 'tradingview',
};

function issues(input: Record<string, unknown>): string[] {
  const r = SignalSubmissionSchema.safeParse(input);
  return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
}

describe('SignalSubmissionSchema', () => {
  it('accepts a minimal market signal and defaults ignore_signal_age to true', () => {
    const r = SignalSubmissionSchema.parse(base);
    expect(r.ignore_signal_age).toBe(true);
  });

  it('rejects unknown fields', () => {
    expect(issues({ ...base, leverage: 100 }).join()).toMatch(/leverage|Unrecognized/);
  });

  it('requires each of the seven required fields', () => {
    for (const field of ['signal_id', 'occurred_at', 'execution_type', 'symbol', 'direction', 'volume', 'source']) {
      const { [field]: _, ...rest } = base as Record<string, unknown>;
      expect(issues(rest).some((i) => i.startsWith(`${field}:`))).toBe(true);
    }
  });

  it('prohibits entry_price on market orders', () => {
    expect(issues({ ...base, entry_price: '1.1' })).toContain('entry_price: is prohibited for market orders');
  });

  it('requires entry_price on limit and stop orders', () => {
    expect(issues({ ...base, execution_type: 'limit' })).toContain('entry_price: is required for limit orders');
    expect(issues({ ...base, execution_type: 'stop' })).toContain('entry_price: is required for stop orders');
    expect(issues({ ...base, execution_type: 'limit', entry_price: '1.05' })).toEqual([]);
  });

  it('takes each leg as a price or a distance, never both', () => {
    expect(issues({ ...base, stop_loss: '1.0', stop_loss_distance: '0.002' })).toContain('stop_loss_distance: give stop_loss or stop_loss_distance, not both');
    expect(issues({ ...base, take_profit: '1.2', take_profit_distance: '0.002' })).toContain(
      'take_profit_distance: give take_profit or take_profit_distance, not both',
    );
    expect(issues({ ...base, stop_loss: '1.0', take_profit_distance: '0.002' })).toEqual([]);
  });

  it('takes decimals only as strings', () => {
    expect(issues({ ...base, volume: 0.1 }).length).toBeGreaterThan(0);
    expect(issues({ ...base, volume: '0' }).length).toBeGreaterThan(0);
  });

  it('requires a zone on every timestamp', () => {
    expect(issues({ ...base, occurred_at: '2026-01-05T12:00:00' }).length).toBeGreaterThan(0);
    expect(issues({ ...base, execution_type: 'limit', entry_price: '1.0', expires_at: '2026-01-05T13:00:00' }).length).toBeGreaterThan(0);
  });

  it('requires a UUID signal_id and a slug source', () => {
    expect(issues({ ...base, signal_id: 'abc' }).length).toBeGreaterThan(0);
    expect(issues({ ...base, source: 'Trading View' }).length).toBeGreaterThan(0);
  });

  it('takes deviation_points as a non-negative integer', () => {
    expect(issues({ ...base, deviation_points: -1 }).length).toBeGreaterThan(0);
    expect(issues({ ...base, deviation_points: 1.5 }).length).toBeGreaterThan(0);
    expect(issues({ ...base, deviation_points: 20 })).toEqual([]);
  });
});
