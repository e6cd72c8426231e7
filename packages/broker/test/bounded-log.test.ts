import { describe, expect, it } from 'vitest';
import { BoundedLog } from '../src/simulated/bounded-log.js';

describe('BoundedLog', () => {
  it('keeps the latest items up to its capacity, oldest first', () => {
    const log = new BoundedLog<number>(3);
    for (let i = 1; i <= 10; i++) log.push(i);
    expect([...log]).toEqual([8, 9, 10]);
    expect(log.size).toBe(3);
  });

  it('keeps everything while under its capacity', () => {
    const log = new BoundedLog<string>(5);
    log.push('a');
    log.push('b');
    expect([...log]).toEqual(['a', 'b']);
  });

  it('names the oldest item it keeps, none when empty', () => {
    const log = new BoundedLog<number>(3);
    expect(log.oldest).toBeUndefined();
    for (let i = 1; i <= 7; i++) log.push(i);
    expect(log.oldest).toBe(5);
  });

  it('refuses a capacity below one', () => {
    expect(() => new BoundedLog(0)).toThrow(RangeError);
  });
});
