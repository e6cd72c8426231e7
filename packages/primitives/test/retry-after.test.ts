import { describe, expect, it } from 'vitest';
import { retryAfterMs, retryAfterSeconds } from '../src/retry-after.js';

const NOW = Date.UTC(2026, 0, 5, 12, 0, 0);

describe('retryAfterSeconds', () => {
  it('reads delta-seconds and HTTP dates', () => {
    expect(retryAfterSeconds('12', NOW)).toBe(12);
    expect(retryAfterSeconds('Mon, 05 Jan 2026 12:00:30 GMT', NOW)).toBe(30);
    expect(retryAfterSeconds('soon', NOW)).toBeUndefined();
    expect(retryAfterSeconds(undefined, NOW)).toBeUndefined();
  });

  it('rounds a date part of a second away up to the whole second', () => {
    expect(retryAfterSeconds('Mon, 05 Jan 2026 12:00:30 GMT', NOW + 29_500)).toBe(1);
  });
});

describe('retryAfterMs', () => {
  it('reads delta-seconds as milliseconds', () => {
    expect(retryAfterMs('7', NOW)).toBe(7000);
  });

  it('reads an HTTP date as the milliseconds left until it', () => {
    expect(retryAfterMs('Mon, 05 Jan 2026 12:00:30 GMT', NOW + 29_500)).toBe(500);
  });

  it('waits nothing for a date already past', () => {
    expect(retryAfterMs('Mon, 05 Jan 2026 11:59:00 GMT', NOW)).toBe(0);
  });

  it('reads the first of repeated headers', () => {
    expect(retryAfterMs(['3', '9'], NOW)).toBe(3000);
  });

  it('reads nothing from an empty header', () => {
    expect(retryAfterMs(' ', NOW)).toBeUndefined();
  });
});
