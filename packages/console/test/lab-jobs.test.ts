import { describe, expect, it } from 'vitest';
import { ApiError } from '../src/api.js';
import { isActive, jobState, nextReadMs, POLL_MS } from '../src/lab/jobs.js';

describe('following a job', () => {
  it('reads a queued or running job again every second, and an ended one never', () => {
    expect(nextReadMs('queued', null)).toBe(POLL_MS);
    expect(nextReadMs('running', null)).toBe(POLL_MS);
    for (const status of ['done', 'failed', 'cancelled'] as const) {
      expect(isActive(status)).toBe(false);
      expect(nextReadMs(status, null)).toBeNull();
    }
  });

  it('waits out a rate limit for as long as the service asks', () => {
    expect(nextReadMs(null, new ApiError(429, 'RATE_LIMITED', 'slow down', 12))).toBe(12_000);
  });

  it('tries again a few seconds after a failed read, and stops on a job that is gone', () => {
    expect(nextReadMs(null, new ApiError(0, 'NETWORK', 'down'))).toBeGreaterThan(POLL_MS);
    expect(nextReadMs(null, new ApiError(404, 'BACKTEST_NOT_FOUND', 'gone'))).toBeNull();
  });

  it('says how far a running job is', () => {
    expect(jobState({ status: 'running', progress: 0.426 })).toBe('running 42 %');
    expect(jobState({ status: 'queued', progress: 0 })).toBe('queued');
  });
});
