import { describe, expect, it } from 'vitest';
import { ManualClock } from '../src/clock.js';
import { Pacer, PacerDeadlineError } from '../src/pacer.js';

/** Lets the promise callbacks of granted acquires run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

/** Starts `count` acquires of `cost` and records the clock time each is granted at. */
function burst(pacer: Pacer, clock: ManualClock, count: number, cost = 1): number[] {
  const grantedAt: number[] = [];
  for (let i = 0; i < count; i++) void pacer.acquire(cost).then(() => grantedAt.push(clock.now()));
  return grantedAt;
}

/** Moves the clock in steps of `stepMs`, letting grants land after each. */
async function run(clock: ManualClock, totalMs: number, stepMs = 1): Promise<void> {
  await settle();
  for (let t = 0; t < totalMs; t += stepMs) await clock.advanceAsync(stepMs);
}

describe('Pacer', () => {
  it('grants a burst up to its capacity at once', async () => {
    const clock = new ManualClock(0);
    const pacer = new Pacer({ ratePerSecond: 10, capacity: 5, clock });
    const grantedAt = burst(pacer, clock, 5);
    await settle();
    expect(grantedAt).toEqual([0, 0, 0, 0, 0]);
  });

  it('spreads what goes past the capacity at its rate', async () => {
    const clock = new ManualClock(0);
    const pacer = new Pacer({ ratePerSecond: 10, capacity: 2, clock });
    const grantedAt = burst(pacer, clock, 5);
    await run(clock, 400);
    expect(grantedAt).toEqual([0, 0, 100, 200, 300]);
  });

  it('never grants more than capacity + rate × T over any interval T', async () => {
    const clock = new ManualClock(0);
    const pacer = new Pacer({ ratePerSecond: 90, capacity: 10, clock });
    const grantedAt = burst(pacer, clock, 400);
    await run(clock, 5_000, 3);
    expect(grantedAt).toHaveLength(400);
    // Every window of one second, wherever it starts, holds at most 10 + 90 grants.
    const most = Math.max(...grantedAt.map((start) => grantedAt.filter((t) => t >= start && t < start + 1000).length));
    expect(most).toBeLessThanOrEqual(100);
    // And it does use the rate: 390 tokens past the first 10 take 390 / 90 s (granted on 3 ms steps).
    expect(grantedAt.at(-1)).toBeGreaterThanOrEqual(4334);
    expect(grantedAt.at(-1)).toBeLessThan(4340);
  });

  it('serves acquires in the order they came, a large cost holding back the small ones behind it', async () => {
    const clock = new ManualClock(0);
    const pacer = new Pacer({ ratePerSecond: 10, capacity: 5, clock });
    await pacer.acquire(5);
    const order: string[] = [];
    void pacer.acquire(4).then(() => order.push('large'));
    void pacer.acquire(1).then(() => order.push('small'));
    await run(clock, 400);
    expect(order).toEqual(['large']);
    await run(clock, 100);
    expect(order).toEqual(['large', 'small']);
  });

  it('charges the cost asked for', async () => {
    const clock = new ManualClock(0);
    const pacer = new Pacer({ ratePerSecond: 100, capacity: 100, clock });
    await pacer.acquire(60);
    expect(pacer.waitMs(50)).toBe(100);
  });

  it('refuses at once a wait that would pass the deadline, and spends nothing', async () => {
    const clock = new ManualClock(0);
    const pacer = new Pacer({ ratePerSecond: 10, capacity: 1, clock });
    await pacer.acquire();
    const err = await pacer.acquire(1, { deadlineMs: 50 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PacerDeadlineError);
    expect((err as PacerDeadlineError).waitMs).toBe(100);
    expect(pacer.queued).toBe(0);
    expect(pacer.waitMs()).toBe(100);
  });

  it('grants within the deadline when the tokens come in time', async () => {
    const clock = new ManualClock(0);
    const pacer = new Pacer({ ratePerSecond: 10, capacity: 1, clock });
    await pacer.acquire();
    const granted = pacer.acquire(1, { deadlineMs: 100 });
    await run(clock, 100);
    await expect(granted).resolves.toBeUndefined();
  });

  it('leaves the queue when its signal aborts, with the reason, and those behind it move up', async () => {
    const clock = new ManualClock(0);
    const pacer = new Pacer({ ratePerSecond: 10, capacity: 1, clock });
    await pacer.acquire();
    const controller = new AbortController();
    const first = pacer.acquire(1, { signal: controller.signal });
    const grantedAt: number[] = [];
    void pacer.acquire().then(() => grantedAt.push(clock.now()));
    controller.abort(new Error('caller gave up'));
    await expect(first).rejects.toThrow('caller gave up');
    await run(clock, 200);
    expect(grantedAt).toEqual([100]);
  });

  it('rejects an acquire whose signal has already aborted', async () => {
    const pacer = new Pacer({ ratePerSecond: 10, capacity: 1, clock: new ManualClock(0) });
    await expect(pacer.acquire(1, { signal: AbortSignal.abort(new Error('gone')) })).rejects.toThrow('gone');
  });

  it('rejects a cost it could never grant', async () => {
    const pacer = new Pacer({ ratePerSecond: 10, capacity: 5, clock: new ManualClock(0) });
    await expect(pacer.acquire(6)).rejects.toThrow(RangeError);
    await expect(pacer.acquire(0)).rejects.toThrow(RangeError);
  });

  it('refills no more than its capacity however long it was idle', async () => {
    const clock = new ManualClock(0);
    const pacer = new Pacer({ ratePerSecond: 10, capacity: 3, clock });
    clock.advance(60_000);
    const grantedAt = burst(pacer, clock, 4);
    await run(clock, 100);
    expect(grantedAt).toEqual([60_000, 60_000, 60_000, 60_100]);
  });

  it('keeps under a limit per period over every window of that period (Pacer.within)', async () => {
    const clock = new ManualClock(0);
    const pacer = Pacer.within(20, 60_000, clock);
    const grantedAt = burst(pacer, clock, 60);
    await run(clock, 300_000, 100);
    expect(grantedAt).toHaveLength(60);
    expect(grantedAt.filter((t) => t === 0)).toHaveLength(10);
    const most = Math.max(...grantedAt.map((start) => grantedAt.filter((t) => t >= start && t < start + 60_000).length));
    expect(most).toBeLessThanOrEqual(20);
  });
});
