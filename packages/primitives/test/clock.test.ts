import { describe, expect, it } from 'vitest';
import { ManualClock } from '../src/clock.js';

describe('ManualClock', () => {
  it('stands still until advanced', () => {
    const clock = new ManualClock('2026-01-05T12:00:00Z');
    expect(clock.now()).toBe(Date.parse('2026-01-05T12:00:00Z'));
    clock.advance(1500);
    expect(clock.now()).toBe(Date.parse('2026-01-05T12:00:01.500Z'));
  });

  it('runs due timeouts in due order with now set to their due time', () => {
    const clock = new ManualClock(0);
    const seen: Array<[string, number]> = [];
    clock.setTimeout(() => seen.push(['b', clock.now()]), 200);
    clock.setTimeout(() => seen.push(['a', clock.now()]), 100);
    clock.setTimeout(() => seen.push(['late', clock.now()]), 1000);
    clock.advance(500);
    expect(seen).toEqual([
      ['a', 100],
      ['b', 200],
    ]);
    expect(clock.now()).toBe(500);
    expect(clock.pendingTimers()).toBe(1);
  });

  it('repeats intervals and stops them when cleared', () => {
    const clock = new ManualClock(0);
    let count = 0;
    const handle = clock.setInterval(() => count++, 100);
    clock.advance(350);
    expect(count).toBe(3);
    clock.clearTimer(handle);
    clock.advance(1000);
    expect(count).toBe(3);
  });

  it('runs timers scheduled by other timers when they fall due within the advance', () => {
    const clock = new ManualClock(0);
    const seen: number[] = [];
    clock.setTimeout(() => clock.setTimeout(() => seen.push(clock.now()), 50), 100);
    clock.advance(200);
    expect(seen).toEqual([150]);
  });
});
