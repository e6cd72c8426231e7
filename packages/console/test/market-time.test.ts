import { describe, expect, it } from 'vitest';
import { candleOpen, isFxWeekend, nextCandleClose, nextFxOpen, shiftTradingMs, tradingMsBetween } from '../src/market-time.js';
import { NOW } from './fixtures.js';

const at = (iso: string) => Date.parse(iso);

describe('candle times', () => {
  it('names the close of the candle forming now', () => {
    expect(new Date(nextCandleClose('M5', NOW)).toISOString()).toBe('2026-01-07T12:35:00.000Z');
    expect(new Date(nextCandleClose('H4', NOW)).toISOString()).toBe('2026-01-07T16:00:00.000Z');
    expect(new Date(nextCandleClose('D1', NOW)).toISOString()).toBe('2026-01-08T00:00:00.000Z');
  });

  it('counts a candle that closes exactly now as closed', () => {
    expect(new Date(nextCandleClose('M1', at('2026-01-07T12:34:00Z'))).toISOString()).toBe('2026-01-07T12:35:00.000Z');
  });

  it('places an instant in the candle holding it, UTC-aligned', () => {
    expect(candleOpen(at('2026-01-07T12:33:20Z') / 1000, 'M15')).toBe(at('2026-01-07T12:30:00Z') / 1000);
  });
});

describe('FX hours', () => {
  it('is closed from Friday 22:00 to Sunday 22:00 UTC', () => {
    expect(isFxWeekend(at('2026-01-09T21:59:59Z'))).toBe(false);
    expect(isFxWeekend(at('2026-01-09T22:00:00Z'))).toBe(true);
    expect(isFxWeekend(at('2026-01-10T12:00:00Z'))).toBe(true);
    expect(isFxWeekend(at('2026-01-11T21:59:59Z'))).toBe(true);
    expect(isFxWeekend(at('2026-01-11T22:00:00Z'))).toBe(false);
    expect(isFxWeekend(NOW)).toBe(false);
  });

  it('opens next on Sunday 22:00 UTC', () => {
    expect(new Date(nextFxOpen(at('2026-01-10T12:00:00Z'))).toISOString()).toBe('2026-01-11T22:00:00.000Z');
    expect(new Date(nextFxOpen(NOW)).toISOString()).toBe('2026-01-11T22:00:00.000Z');
  });
});

describe('trading time', () => {
  const iso = (ms: number) => new Date(ms).toISOString();
  const MINUTE = 60_000;

  it('leaves the weekends out of the time between two instants', () => {
    expect(tradingMsBetween(at('2026-01-07T10:00:00Z'), at('2026-01-07T12:00:00Z'))).toBe(120 * MINUTE);
    // Friday 21:55 to the Sunday open: the last five minutes of the week.
    expect(tradingMsBetween(at('2026-01-09T21:55:00Z'), at('2026-01-11T22:00:00Z'))).toBe(5 * MINUTE);
    expect(tradingMsBetween(at('2026-01-07T12:00:00Z'), at('2026-01-21T12:00:00Z'))).toBe(10 * 24 * 60 * MINUTE);
  });

  it('steps over a weekend forward and back', () => {
    expect(iso(shiftTradingMs(at('2026-01-07T12:00:00Z'), 30 * MINUTE))).toBe('2026-01-07T12:30:00.000Z');
    expect(iso(shiftTradingMs(at('2026-01-09T21:00:00Z'), 90 * MINUTE))).toBe('2026-01-11T22:30:00.000Z');
    expect(iso(shiftTradingMs(at('2026-01-11T22:30:00Z'), -90 * MINUTE))).toBe('2026-01-09T21:00:00.000Z');
    expect(iso(shiftTradingMs(at('2026-01-11T22:00:00Z'), -5 * MINUTE))).toBe('2026-01-09T21:55:00.000Z');
    // Two weekends.
    expect(iso(shiftTradingMs(at('2026-01-07T12:00:00Z'), -10 * 24 * 60 * MINUTE))).toBe('2025-12-24T12:00:00.000Z');
  });
});
