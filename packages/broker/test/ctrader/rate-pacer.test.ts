import { ManualClock } from '@fxdesk/primitives';
import { describe, expect, it } from 'vitest';
import { RatePacer } from '../../src/ctrader/rate-pacer.js';

describe('RatePacer', () => {
  it('lets `limit` requests start at once and the next one a window after the first', async () => {
    const clock = new ManualClock(0);
    const pacer = new RatePacer(clock, 5);
    const started: number[] = [];
    const all = Array.from({ length: 7 }, () => pacer.acquire().then(() => started.push(clock.now())));
    await Promise.resolve();
    expect(started).toEqual([0, 0, 0, 0, 0]);
    await clock.advanceAsync(999);
    expect(started).toHaveLength(5);
    await clock.advanceAsync(1);
    await Promise.all(all);
    expect(started).toEqual([0, 0, 0, 0, 0, 1000, 1000]);
  });

  it('fails the waiting callers when cancelled', async () => {
    const clock = new ManualClock(0);
    const pacer = new RatePacer(clock, 1);
    await pacer.acquire();
    const waiting = pacer.acquire();
    pacer.cancel(new Error('link lost'));
    await expect(waiting).rejects.toThrow('link lost');
  });
});
