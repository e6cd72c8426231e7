import { describe, expect, it } from 'vitest';
import { backoffDelayMs } from '../src/backoff.js';

describe('backoffDelayMs', () => {
  it('waits the base before the first retry', () => {
    expect(backoffDelayMs({ baseMs: 250 }, 0)).toBe(250);
  });

  it('doubles the wait on each further retry', () => {
    expect([1, 2, 3].map((retry) => backoffDelayMs({ baseMs: 1000 }, retry))).toEqual([2000, 4000, 8000]);
  });

  it('stops growing at the cap', () => {
    expect(backoffDelayMs({ baseMs: 1000, capMs: 30_000 }, 5)).toBe(30_000);
  });

  it('stays finite however many retries there were', () => {
    expect(backoffDelayMs({ baseMs: 1 }, 10_000)).toBe(2 ** 40);
  });

  it('stays at zero from a zero base however many retries there were', () => {
    expect(backoffDelayMs({ baseMs: 0, capMs: 30_000 }, 10_000)).toBe(0);
  });

  it('draws a whole number of milliseconds below the capped wait with full jitter', () => {
    expect(backoffDelayMs({ baseMs: 1000, capMs: 30_000 }, 2, { random: () => 0.5 })).toBe(2000);
    expect(backoffDelayMs({ baseMs: 1000, capMs: 30_000 }, 9, { random: () => 0.999 })).toBe(29_970);
  });

  it('never waits less than the minimum asked for, even past the cap', () => {
    expect(backoffDelayMs({ baseMs: 1000, capMs: 30_000 }, 0, { atLeastMs: 120_000 })).toBe(120_000);
  });

  it('keeps the doubled wait when it is longer than the minimum', () => {
    expect(backoffDelayMs({ baseMs: 1000 }, 3, { atLeastMs: 500 })).toBe(8000);
  });
});
