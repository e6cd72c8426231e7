import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PacingCalendar, type PacingKey } from '../src/pacing.js';

const chat: PacingKey = { key: 'chat:1', rule: { limit: 1, windowMs: 1000 } };
const group: PacingKey = { key: 'group:1', rule: { limit: 20, windowMs: 60_000 } };
const bot: PacingKey = { key: 'bot', rule: { limit: 30, windowMs: 1000 } };

describe('the pacing calendar', () => {
  it('spaces one chat a window apart under a limit of one', () => {
    const calendar = new PacingCalendar();
    expect(['a', 'b', 'c'].map((id) => calendar.reserve(id, [chat], 0))).toEqual([0, 1000, 2000]);
  });

  it('lets a burst up to the limit through at once, then waits for the window to pass', () => {
    const calendar = new PacingCalendar();
    const times = Array.from({ length: 61 }, (_, i) => calendar.reserve(`m${i}`, [bot], 5));
    expect(times.filter((t) => t === 5)).toHaveLength(30);
    expect(times.filter((t) => t === 1005)).toHaveLength(30);
    expect(times.at(-1)).toBe(2005);
  });

  it('gives a message the earliest time every key it counts against allows', () => {
    const calendar = new PacingCalendar();
    const times = Array.from({ length: 22 }, (_, i) => calendar.reserve(`m${i}`, [chat, group], 0));
    expect(times.slice(0, 20)).toEqual(Array.from({ length: 20 }, (_, i) => i * 1000));
    // The 21st waits for the first to leave the group's minute; the 22nd a second more.
    expect(times.slice(20)).toEqual([60_000, 61_000]);
  });

  it('keeps a reservation for its message until its time, then lets it go', () => {
    const calendar = new PacingCalendar();
    expect(calendar.reserve('a', [chat], 0)).toBe(0);
    expect(calendar.reserve('b', [chat], 0)).toBe(1000);
    expect(calendar.reserve('b', [chat], 400)).toBe(1000);
    expect(calendar.reserve('c', [chat], 400)).toBe(2000);
    expect(calendar.reserve('b', [chat], 1000)).toBe(1000);
  });

  it('lets a message that comes back after its time go at once, in its place in the queue rather than behind the later ones', () => {
    const calendar = new PacingCalendar();
    expect(['a', 'b', 'c'].map((id) => calendar.reserve(id, [chat], 0))).toEqual([0, 1000, 2000]);
    expect(calendar.reserve('b', [chat], 1030)).toBe(1030);
    expect(calendar.reserve('c', [chat], 2250)).toBe(2250);
    expect(calendar.reserve('d', [chat], 2250)).toBe(3250);
  });

  it('holds a message that comes back on time a window after the one before it, when that one went late', () => {
    const calendar = new PacingCalendar();
    for (const id of ['a', 'b', 'c']) calendar.reserve(id, [chat], 0);
    expect(calendar.reserve('b', [chat], 1300)).toBe(1300);
    expect(calendar.reserve('c', [chat], 2000)).toBe(2300);
    expect(calendar.reserve('c', [chat], 2300)).toBe(2300);
  });

  it('makes again a reservation that falls before a hold still running', () => {
    const calendar = new PacingCalendar();
    for (const id of ['a', 'b']) calendar.reserve(id, [chat], 0);
    expect(calendar.reserve('b', [chat], 500, 4000)).toBe(4000);
    expect(calendar.reserve('b', [chat], 4000, 4000)).toBe(4000);
  });

  it('never lets more than a limit go in any window, however late each message comes back for its turn', () => {
    const message = fc.record({
      arrivalGapMs: fc.integer({ min: 0, max: 1500 }),
      latenessMs: fc.array(fc.integer({ min: 0, max: 900 }), { minLength: 4, maxLength: 4 }),
      keys: fc.subarray([chat, group, bot], { minLength: 1 }),
    });
    fc.assert(
      fc.property(fc.array(message, { minLength: 1, maxLength: 80 }), (messages) => {
        const calendar = new PacingCalendar();
        const went = new Map<string, number[]>();
        // Each message asks at its arrival, then again at each time it is given, late by its next lateness, until it goes.
        let arrival = 0;
        const asks = messages.map((m, i) => ({ id: `m${i}`, at: (arrival += m.arrivalGapMs), tries: 0, m }));
        while (asks.length > 0) {
          asks.sort((x, y) => x.at - y.at);
          const ask = asks.shift() as (typeof asks)[number];
          const at = calendar.reserve(ask.id, ask.m.keys, ask.at);
          if (at <= ask.at) {
            for (const k of ask.m.keys) went.set(k.key, [...(went.get(k.key) ?? []), ask.at]);
          } else {
            asks.push({ ...ask, at: at + (ask.m.latenessMs[ask.tries % 4] as number), tries: ask.tries + 1 });
          }
        }
        for (const k of [chat, group, bot]) {
          const times = went.get(k.key) ?? [];
          for (const start of times) {
            expect(times.filter((t) => t >= start && t < start + k.rule.windowMs).length).toBeLessThanOrEqual(k.rule.limit);
          }
        }
      }),
      { numRuns: 200 },
    );
  });

  it('reserves again after a hold, in the order the messages come back', () => {
    const calendar = new PacingCalendar();
    for (const id of ['a', 'b', 'c']) calendar.reserve(id, [chat], 0);
    calendar.releaseAll('chat:1');
    expect(calendar.reserve('b', [chat], 1000, 5000)).toBe(5000);
    expect(calendar.reserve('c', [chat], 2000, 5000)).toBe(6000);
  });

  it('gives back a time taken for a message that was not sent', () => {
    const calendar = new PacingCalendar();
    expect(calendar.reserve('a', [chat], 0)).toBe(0);
    calendar.unreserve([chat], 0);
    expect(calendar.reserve('b', [chat], 500)).toBe(500);
  });

  it('never puts more than a limit in any window, whatever arrives when', () => {
    const arrival = fc.record({ gapMs: fc.integer({ min: 0, max: 1500 }), keys: fc.subarray([chat, group, bot], { minLength: 1 }) });
    fc.assert(
      fc.property(fc.array(arrival, { minLength: 1, maxLength: 120 }), (arrivals) => {
        const calendar = new PacingCalendar();
        const taken = new Map<string, number[]>();
        let now = 0;
        arrivals.forEach(({ gapMs, keys }, i) => {
          now += gapMs;
          const at = calendar.reserve(`m${i}`, keys, now);
          expect(at).toBeGreaterThanOrEqual(now);
          for (const k of keys) taken.set(k.key, [...(taken.get(k.key) ?? []), at]);
        });
        for (const k of [chat, group, bot]) {
          const times = taken.get(k.key) ?? [];
          for (const start of times) {
            expect(times.filter((t) => t >= start && t < start + k.rule.windowMs).length).toBeLessThanOrEqual(k.rule.limit);
          }
        }
      }),
      { numRuns: 200 },
    );
  });
});
