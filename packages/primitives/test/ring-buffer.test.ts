import { describe, expect, it } from 'vitest';
import { RingBuffer } from '../src/ring-buffer.js';

describe('RingBuffer', () => {
  it('keeps the latest items up to its capacity, oldest first', () => {
    const buffer = new RingBuffer<number>(3);
    for (let i = 1; i <= 10; i++) buffer.push(i);
    expect([...buffer]).toEqual([8, 9, 10]);
    expect(buffer.size).toBe(3);
  });

  it('keeps everything while under its capacity', () => {
    const buffer = new RingBuffer<string>(5);
    buffer.push('a');
    buffer.push('b');
    expect([...buffer]).toEqual(['a', 'b']);
  });

  it('names the oldest item it keeps, none when empty', () => {
    const buffer = new RingBuffer<number>(3);
    expect(buffer.oldest).toBeUndefined();
    for (let i = 1; i <= 7; i++) buffer.push(i);
    expect(buffer.oldest).toBe(5);
  });

  it('gives the newest items asked for, oldest first', () => {
    const buffer = new RingBuffer<number>(4);
    for (let i = 1; i <= 6; i++) buffer.push(i);
    expect(buffer.last(2)).toEqual([5, 6]);
  });

  it('gives every item kept when asked for more than it holds', () => {
    const buffer = new RingBuffer<number>(4);
    buffer.push(1);
    buffer.push(2);
    expect(buffer.last(10)).toEqual([1, 2]);
  });

  it('gives every item kept when no count is asked for', () => {
    const buffer = new RingBuffer<number>(2);
    for (let i = 1; i <= 5; i++) buffer.push(i);
    expect(buffer.last()).toEqual([4, 5]);
  });

  it('refuses a capacity below one', () => {
    expect(() => new RingBuffer(0)).toThrow(RangeError);
  });
});
