import { describe, expect, it } from 'vitest';
import { formatAgo, formatDuration, formatHeld, formatMoney, formatPips, formatPrice, formatWhen, pairLabel } from '../src/format.js';
import { NOW } from './fixtures.js';

describe('prices', () => {
  it('shows five digits for most pairs, three for yen pairs and two for gold', () => {
    expect(formatPrice(1.08, 'EUR_USD')).toBe('1.08000');
    expect(formatPrice(155.0534, 'USD_JPY')).toBe('155.053');
    expect(formatPrice(2650.456, 'XAU_USD')).toBe('2650.46');
  });

  it('shows a dash for a price not known yet', () => {
    expect(formatPrice(null, 'EUR_USD')).toBe('—');
  });

  it('gives the distance to a level in pips, signed by the side price is on', () => {
    expect(formatPips(1.1012, 1.1, 'EUR_USD')).toBe('+12.0 pips');
    expect(formatPips(155.0, 155.25, 'USD_JPY')).toBe('-25.0 pips');
    expect(formatPips(1.1, 1.1, 'EUR_USD')).toBe('0.0 pips');
    expect(formatPips(1.1, null, 'EUR_USD')).toBe('—');
  });

  it('writes a pair with a slash', () => {
    expect(pairLabel('EUR_USD')).toBe('EUR/USD');
  });
});

describe('money', () => {
  it('groups thousands and keeps two decimals of a decimal string', () => {
    expect(formatMoney('100191.0948', 'USD')).toBe('100,191.09 USD');
    expect(formatMoney(-12.5)).toBe('-12.50');
  });
});

describe('times', () => {
  it('shows a time of today as a clock, an older one with its date (UTC)', () => {
    expect(formatWhen('2026-01-07T09:05:03Z', NOW)).toBe('09:05:03');
    expect(formatWhen('2026-01-06T23:59:59Z', NOW)).toBe('2026-01-06 23:59:59');
  });

  it('says how long ago coarsely', () => {
    expect(formatAgo(NOW - 500, NOW)).toBe('just now');
    expect(formatAgo(NOW - 42_000, NOW)).toBe('42 s ago');
    expect(formatAgo(NOW - 5 * 60_000, NOW)).toBe('5 min ago');
    expect(formatAgo(null, NOW)).toBe('never');
  });

  it('writes durations in their two largest units', () => {
    expect(formatDuration(45_000)).toBe('45 s');
    expect(formatDuration(12 * 60_000)).toBe('12 min');
    expect(formatDuration(200 * 60_000)).toBe('3 h 20 min');
    expect(formatDuration(28 * 3_600_000)).toBe('1 d 4 h');
  });

  it('holds a trade from its entry to its exit time, less than a candle when it left in its entry candle', () => {
    expect(formatHeld('2026-03-02T10:00:00Z', '2026-03-02T10:05:00Z', 300)).toBe('5 min');
    expect(formatHeld('2026-03-02T10:00:00Z', '2026-03-02T13:20:00Z', 300)).toBe('3 h 20 min');
    expect(formatHeld('2026-03-02T10:00:00Z', '2026-03-02T10:00:00Z', 300)).toBe('< 5 min');
  });
});
