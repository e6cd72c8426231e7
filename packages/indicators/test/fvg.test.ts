import { describe, expect, it } from 'vitest';
import { FairValueGaps, syntheticCandles, type Candle } from '../src/index.js';

/** Candles from [high, low, close]; time = 100 × (index + 1). */
function bars(rows: Array<[number, number, number]>): Candle[] {
  return rows.map(([high, low, close], i) => ({ time: 100 * (i + 1), open: close, high, low, close, volume: 1 }));
}

describe('fair value gaps, hand-computed', () => {
  it('bullish gap: candle3.low > candle1.high, zone [candle1.high, candle3.low], confirmed at candle 3', () => {
    const f = new FairValueGaps();
    // c1 high 10.0; c2 the displacement up; c3 low 10.4 > 10.0 → zone [10.0, 10.4]
    const c = bars([
      [10.0, 9.5, 9.8],
      [10.8, 9.9, 10.7],
      [11.0, 10.4, 10.9],
    ]);
    expect(f.update(c[0]!)).toBeNull();
    expect(f.update(c[1]!)).toBeNull(); // nothing known before the third candle closes
    const v = f.update(c[2]!)!;
    expect(v.type).toBe('bullish');
    expect(v.zone).toEqual([10.0, 10.4]);
    expect(v.gap).toMatchObject({ id: 1, type: 'bullish', time: 200, confirmedAt: 300 });
    expect(v.gap!.size).toBeCloseTo(0.4, 12);
    expect(v.created).toBe(v.gap);
    expect(v.openCount).toBe(1);
  });

  it('bearish gap: candle3.high < candle1.low, zone [candle3.high, candle1.low]', () => {
    const f = new FairValueGaps();
    const c = bars([
      [10.0, 9.5, 9.6],
      [9.6, 8.8, 8.9],
      [9.2, 8.5, 8.7],
    ]);
    const v = c.map((x) => f.update(x)).at(-1)!;
    expect(v.type).toBe('bearish');
    expect(v.zone).toEqual([9.2, 9.5]);
  });

  it('no gap when the wicks of candles 1 and 3 overlap or touch', () => {
    const f = new FairValueGaps();
    const touching = bars([
      [10.0, 9.5, 9.8],
      [10.8, 9.9, 10.7],
      [11.0, 10.0, 10.9], // low 10.0 = candle1.high: no gap
    ]);
    expect(touching.map((x) => f.update(x)).at(-1)).toMatchObject({ type: 'none', zone: null, gap: null, openCount: 0 });
  });

  it('looks at each triple once, at the close of its third candle, never revising it', () => {
    const f = new FairValueGaps();
    // The triple (c2, c3, c4) forms a bullish gap; (c1, c2, c3) does not. c5 would be irrelevant.
    const c = bars([
      [10, 9, 9.5],
      [10.2, 9.4, 10.1],
      [11.5, 10.0, 11.4],
      [12.0, 10.5, 11.9], // low 10.5 > c2.high 10.2 → [10.2, 10.5]
    ]);
    const out = c.map((x) => f.update(x));
    expect(out[2]).toMatchObject({ type: 'none', created: null });
    expect(out[3]).toMatchObject({ type: 'bullish', zone: [10.2, 10.5] });
    expect(out[3]!.gap!.time).toBe(300);
    expect(out[3]!.gap!.confirmedAt).toBe(400);
  });

  it('minSize ignores small gaps', () => {
    const c = bars([
      [10.0, 9.5, 9.8],
      [10.8, 9.9, 10.7],
      [11.0, 10.05, 10.9], // gap 0.05
    ]);
    expect(c.map((x) => new FairValueGaps({ minSize: 0.1 }).update(x)).at(-1)).toBeNull();
    const f = new FairValueGaps({ minSize: 0.1 });
    expect(c.map((x) => f.update(x)).at(-1)).toMatchObject({ type: 'none' });
    const g = new FairValueGaps({ minSize: 0.05 });
    expect(c.map((x) => g.update(x)).at(-1)).toMatchObject({ type: 'bullish' });
  });

  it('wick mitigation: a later low at or below the zone low closes a bullish gap; a touch into it does not', () => {
    const f = new FairValueGaps();
    const c = bars([
      [10.0, 9.5, 9.8],
      [10.8, 9.9, 10.7],
      [11.0, 10.4, 10.9], // bullish [10.0, 10.4]
      [11.1, 10.2, 10.5], // trades into the zone down to 10.2: still open
      [10.6, 10.0, 10.3], // low 10.0 reaches the zone low: mitigated
    ]);
    const out = c.map((x) => f.update(x));
    expect(out[3]).toMatchObject({ type: 'bullish', mitigated: 0, openCount: 1 });
    expect(out[4]).toMatchObject({ type: 'none', zone: null, mitigated: 1, openCount: 0 });
    expect(f.openZones).toEqual([]);
  });

  it('close mitigation needs a close at or beyond the far edge', () => {
    const f = new FairValueGaps({ mitigation: 'close' });
    const c = bars([
      [10.0, 9.5, 9.8],
      [10.8, 9.9, 10.7],
      [11.0, 10.4, 10.9], // bullish [10.0, 10.4]
      [10.6, 9.8, 10.1], // wick through, close 10.1 inside: open
      [10.45, 9.7, 9.9], // close 9.9 < 10.0: mitigated (high 10.45 ≥ c3.low 10.4: no new gap)
    ]);
    const out = c.map((x) => f.update(x));
    expect(out[3]).toMatchObject({ type: 'bullish', mitigated: 0 });
    expect(out[4]).toMatchObject({ type: 'none', mitigated: 1 });
  });

  it('bearish gaps are mitigated by a high at or above the zone high', () => {
    const f = new FairValueGaps();
    const c = bars([
      [10.0, 9.5, 9.6],
      [9.6, 8.8, 8.9],
      [9.2, 8.5, 8.7], // bearish [9.2, 9.5]
      [9.4, 8.9, 9.3], // into the zone: open
      [9.5, 9.1, 9.45], // high 9.5: mitigated
    ]);
    const out = c.map((x) => f.update(x));
    expect(out[3]).toMatchObject({ type: 'bearish', openCount: 1 });
    expect(out[4]).toMatchObject({ type: 'none', mitigated: 1, openCount: 0 });
  });

  it('reports the latest open gap; when it is mitigated, the previous open one again', () => {
    const f = new FairValueGaps();
    const c = bars([
      [10.0, 9.5, 9.8],
      [10.8, 9.9, 10.7],
      [11.0, 10.4, 10.9], // #1 bullish [10.0, 10.4]
      [12.0, 10.7, 11.9], // low 10.7 ≤ c2.high 10.8: no gap
      [12.5, 11.2, 12.4], // #2 bullish [11.0, 11.2] (c3.high 11.0 < low 11.2)
      [12.6, 10.8, 11.0], // low 10.8 ≤ 11.0 mitigates #2 only; #1 (low 10.0) stays
    ]);
    const out = c.slice(0, 5).map((x) => f.update(x));
    expect(out[4]!.gap).toMatchObject({ id: 2, zone: [11.0, 11.2] });
    expect(out[4]!.openCount).toBe(2);
    expect(f.openZones.map((z) => z.id)).toEqual([1, 2]);
    out.push(f.update(c[5]!));
    expect(out[5]).toMatchObject({ type: 'bullish', zone: [10.0, 10.4], mitigated: 1, openCount: 1 });
    expect(out[5]!.gap!.id).toBe(1);
  });

  it('a candle first mitigates older zones, then may confirm a new one', () => {
    const f = new FairValueGaps();
    const c = bars([
      [10.0, 9.5, 9.6],
      [9.6, 8.8, 8.9],
      [9.2, 8.5, 8.7], // bearish [9.2, 9.5]
      [9.4, 9.0, 9.3], // below the zone high 9.5: the bearish zone stays open
      [10.5, 9.6, 10.4], // high 10.5 mitigates the bearish zone; low 9.6 > c3.high 9.2 → bullish [9.2, 9.6]
    ]);
    const out = c.map((x) => f.update(x));
    expect(out[4]).toMatchObject({ type: 'bullish', zone: [9.2, 9.6], mitigated: 1, openCount: 1 });
  });

  it('keeps at most maxOpenZones, dropping the oldest', () => {
    const f = new FairValueGaps({ maxOpenZones: 2 });
    // A staircase up: every triple leaves a bullish gap that is never revisited.
    const rows: Array<[number, number, number]> = [];
    for (let i = 0; i < 8; i++) rows.push([10 + i + 0.5, 10 + i, 10 + i + 0.4]);
    const out = bars(rows).map((x) => f.update(x));
    expect(out.at(-1)!.openCount).toBe(2);
    const ids = f.openZones.map((z) => z.id);
    expect(ids).toEqual([5, 6]);
    expect(out.at(-1)!.gap!.id).toBe(6);
  });

  it('maxAge: a gap is open on maxAge candles, its confirming one included; the next closes it first', () => {
    const f = new FairValueGaps({ maxAge: 3 });
    // Gap [10.0, 10.4] confirmed by candle 3 (index 2), then candles that stay above it.
    const c = bars([
      [10.0, 9.5, 9.8],
      [10.8, 9.9, 10.7],
      [11.0, 10.4, 10.9],
      [11.2, 10.6, 11.0],
      [11.3, 10.7, 11.1],
      [11.4, 10.8, 11.2],
    ]);
    const out = c.map((x) => f.update(x));
    expect(out[2]).toMatchObject({ type: 'bullish', zone: [10.0, 10.4], openCount: 1 });
    expect(out[3]).toMatchObject({ type: 'bullish', openCount: 1 });
    expect(out[4]).toMatchObject({ type: 'bullish', openCount: 1 }); // its 3rd candle
    expect(out[5]).toMatchObject({ type: 'none', zone: null, gap: null, mitigated: 0, openCount: 0 });
    expect(f.openZones).toEqual([]);
  });

  it('maxAge: the candle that expires a gap neither mitigates it nor counts it, but the one before does', () => {
    const rows: Array<[number, number, number]> = [
      [10.0, 9.5, 9.8],
      [10.8, 9.9, 10.7],
      [11.0, 10.4, 10.9],
      [11.2, 10.6, 11.0],
    ];
    const expired = new FairValueGaps({ maxAge: 2 });
    const late = bars([...rows, [10.5, 9.9, 10.0]]).map((x) => expired.update(x));
    expect(late[3]).toMatchObject({ type: 'bullish', openCount: 1 });
    expect(late[4]).toMatchObject({ type: 'none', mitigated: 0, openCount: 0 });
    const open = new FairValueGaps({ maxAge: 3 });
    const inTime = bars([...rows, [10.5, 9.9, 10.0]]).map((x) => open.update(x));
    expect(inTime[4]).toMatchObject({ type: 'none', mitigated: 1, openCount: 0 });
  });

  it('maxAge: an older gap expires while a newer one stays the latest', () => {
    const f = new FairValueGaps({ maxAge: 2 });
    // A staircase up: a bullish gap at every candle from the third on, none revisited.
    const rows: Array<[number, number, number]> = [];
    for (let i = 0; i < 6; i++) rows.push([10 + i + 0.5, 10 + i, 10 + i + 0.4]);
    const out = bars(rows).map((x) => f.update(x));
    expect(out.at(-1)).toMatchObject({ openCount: 2, mitigated: 0 });
    expect(f.openZones.map((z) => z.id)).toEqual([3, 4]);
    expect(out.at(-1)!.gap!.id).toBe(4);
  });

  it('maxAge must be a whole number of candles, at least 1', () => {
    expect(() => new FairValueGaps({ maxAge: 0 })).toThrow(RangeError);
    expect(() => new FairValueGaps({ maxAge: 2.5 })).toThrow(RangeError);
    expect(() => new FairValueGaps({ maxAge: Number.NaN })).toThrow(RangeError);
    expect(new FairValueGaps().maxAge).toBe(Number.POSITIVE_INFINITY);
  });

  it('stays bounded and consistent over a long random series', () => {
    const f = new FairValueGaps({ maxOpenZones: 20 });
    let created = 0;
    const problems: string[] = [];
    for (const c of syntheticCandles(20_000, { seed: 11 })) {
      const v = f.update(c);
      if (v === null) continue;
      if (v.created) created++;
      const open = f.openZones;
      if (open.length !== v.openCount || open.length > 20) problems.push(`${c.time}: ${open.length} open`);
      // The reported gap is the newest open one, and no open zone is already mitigated by c.
      if ((open.at(-1) ?? null) !== v.gap) problems.push(`${c.time}: gap is not the newest open one`);
      for (const z of open) {
        if (z.confirmedAt === c.time) continue;
        if (z.type === 'bullish' ? c.low <= z.zone[0] : c.high >= z.zone[1]) problems.push(`${c.time}: #${z.id} still open`);
      }
    }
    expect(problems).toEqual([]);
    expect(created).toBeGreaterThan(1000);
  });

  it('reset starts over', () => {
    const f = new FairValueGaps();
    const c = bars([
      [10.0, 9.5, 9.8],
      [10.8, 9.9, 10.7],
      [11.0, 10.4, 10.9],
    ]);
    c.forEach((x) => f.update(x));
    f.reset();
    expect(f.value).toBeNull();
    expect(f.openZones).toEqual([]);
    expect(c.map((x) => f.update(x)).at(-1)!.gap!.id).toBe(1);
  });
});
