import { describe, expect, it } from 'vitest';
import { VolumeProfile, syntheticCandles, type Candle, type VolumeProfileRow } from '../src/index.js';
import { lhv } from './helpers.js';

describe('volume profile, hand-computed (row size 1)', () => {
  it('distributes volume, finds the POC and expands the value area by pairs of rows', () => {
    // window 3, rows of 1.0 at integer prices
    // c1 [10, 12] vol 20 → rows 10, 11: 10 each
    // c2 [11, 12] vol 30 → row 11: 30
    // c3 [11, 14] vol 60 → rows 11, 12, 13: 20 each
    // rows: 10 → 10, 11 → 60, 12 → 20, 13 → 20; total 110, 70% = 77
    // POC row 11 (60) → poc 11.5. Value area: 60; above: rows 12 + 13 = 40, below: row 10 alone = 10
    // → add 12, 13 → 100 ≥ 77. VAH = top of row 13 = 14, VAL = bottom of row 11 = 11.
    const vp = new VolumeProfile({ window: 3, rowSize: 1 });
    const out = lhv([
      [10, 12, 20],
      [11, 12, 30],
      [11, 14, 60],
    ]).map((c) => vp.update(c));
    expect(out[0]).toBeNull();
    expect(out[1]).toBeNull(); // window not full yet
    expect(out[2]).toEqual({
      poc: 11.5,
      vah: 14,
      val: 11,
      pocVolume: 60,
      valueAreaVolume: 100,
      totalVolume: 110,
      rowSize: 1,
      rows: 4,
      low: 10,
      high: 14,
    });
    expect(vp.profile()).toEqual([
      { low: 10, high: 11, volume: 10 },
      { low: 11, high: 12, volume: 60 },
      { low: 12, high: 13, volume: 20 },
      { low: 13, high: 14, volume: 20 },
    ]);

    // c4 [9, 10] vol 50 evicts c1: row 9 → 50, row 10 → 0 (no candle covers it any more),
    // row 11 → 60 − 10 = 50. Rows 9..13: 50, 0, 50, 20, 20; total 140, 70% = 98.
    // POC: rows 9 and 11 tie at 50; the centre of rows 9..13 is row 11 → poc 11.5.
    // Value area: 50; above 12 + 13 = 40, below 10 + 9 = 50 → add below → 100 ≥ 98.
    // VAH = top of row 11 = 12, VAL = bottom of row 9 = 9.
    const v4 = vp.update(lhv([[9, 10, 50]])[0]!);
    expect(v4).toMatchObject({ poc: 11.5, vah: 12, val: 9, pocVolume: 50, valueAreaVolume: 100, totalVolume: 140, rows: 5 });
    expect(vp.profile().map((r) => r.volume)).toEqual([50, 0, 50, 20, 20]);
  });

  it('splits a candle in proportion to its overlap with each row', () => {
    // [10.5, 12.25] vol 70: overlaps 0.5, 1, 0.25 of 1.75 → 20, 40, 10
    const vp = new VolumeProfile({ window: 1, rowSize: 1 });
    vp.update(lhv([[10.5, 12.25, 70]])[0]!);
    const rows = vp.profile();
    expect(rows.map((r) => r.low)).toEqual([10, 11, 12]);
    expect(rows[0]!.volume).toBeCloseTo(20, 12);
    expect(rows[1]!.volume).toBeCloseTo(40, 12);
    expect(rows[2]!.volume).toBeCloseTo(10, 12);
  });

  it('a candle with high = low puts its whole volume in one row', () => {
    const vp = new VolumeProfile({ window: 1, rowSize: 1 });
    expect(vp.update({ time: 0, open: 7.5, high: 7.5, low: 7.5, close: 7.5, volume: 9 })).toMatchObject({
      poc: 7.5,
      vah: 8,
      val: 7,
      rows: 1,
      totalVolume: 9,
    });
  });

  it('POC ties go to the row nearest the centre, then to the lower row', () => {
    // [0, 5] vol 50: five rows of 10. Centre row 2 → poc 2.5.
    const odd = new VolumeProfile({ window: 1, rowSize: 1 });
    expect(odd.update(lhv([[0, 5, 50]])[0]!)!.poc).toBe(2.5);
    // [0, 4] vol 40: rows 1 and 2 are equally near the centre (2.0) → the lower, row 1 → 1.5.
    const even = new VolumeProfile({ window: 1, rowSize: 1 });
    expect(even.update(lhv([[0, 4, 40]])[0]!)!.poc).toBe(1.5);
  });

  it('equal pairs above and below: the pair above is added first', () => {
    // [0, 5] vol 50, value area 60% = 30: POC row 2 (10); above 3 + 4 = 20, below 1 + 0 = 20 → above
    // first → 30 ≥ 30. VAH 5, VAL 2 (with "below first" it would have been VAH 3, VAL 0).
    const vp = new VolumeProfile({ window: 1, rowSize: 1, valueAreaPercent: 60 });
    expect(vp.update(lhv([[0, 5, 50]])[0]!)).toMatchObject({ poc: 2.5, vah: 5, val: 2, valueAreaVolume: 30 });
  });

  // window 2, rowCount 4; range / 4 decides the row size.
  const gridCandles = (): [Candle, Candle, Candle, Candle, Candle] =>
    lhv([
      [0, 4, 40],
      [1, 3, 20],
      [1, 2, 10],
      [1.5, 3.1, 16],
      [0, 3, 30],
    ]) as [Candle, Candle, Candle, Candle, Candle];

  it('row-count grid: row size = the power of two nearest window range / rowCount, rows at its multiples', () => {
    const vp = new VolumeProfile({ window: 2, rowCount: 4 });
    const [c1, c2, c3, c4, c5] = gridCandles();
    // c1 [0, 4] vol 40 → 4 / 4 = 1 → rows of 1: rows 0..3 = 10 each
    // c2 [1, 3] vol 20 → the range is still [0, 4]: rows 1, 2 (+10 each): 10, 20, 20, 10; total 60,
    //   70% = 42. POC: rows 1 and 2 tie, equally near the centre 2.0 → row 1 → poc 1.5.
    //   Value area 20; above 2 + 3 = 30, below 0 = 10 → above → 50 ≥ 42: VAH 4, VAL 1
    expect(vp.update(c1)).toBeNull();
    expect(vp.update(c2)).toMatchObject({ poc: 1.5, vah: 4, val: 1, rowSize: 1, rows: 4, totalVolume: 60 });
    expect(vp.gridBuilds).toBe(1);
    // c3 [1, 2] vol 10 evicts c1: the window's range [1, 3] / 4 = 0.5 → rows of 0.5, rebuilt:
    // c2 → 5 in each of the 4 rows from 1, c3 → 5 in the first two: 10, 10, 5, 5; total 30,
    // 70% = 21. POC: the first two tie, the second is nearer the centre (1.5) → 1.75.
    // Value area 10; above 5 + 5 = 10, below 10 → above (tie) → 20 < 21 → below → 30.
    expect(vp.update(c3)).toMatchObject({ poc: 1.75, vah: 3, val: 1, rowSize: 0.5, rows: 4, totalVolume: 30 });
    expect(vp.gridBuilds).toBe(2);
    // c4 [1.5, 3.1] vol 16 evicts c2: range [1, 3.1] / 4 = 0.525, nearer 0.5 than 1 on a log scale
    // (0.525² ≤ 0.5 × 1): the grid stays. c4 spreads 16 over 1.6: 5, 5, 5 and 1 in [3, 3.5).
    // Rows from 1: 5, 10, 5, 5, 1; total 26, 70% = 18.2. POC [1.5, 2) → 1.75; value area 10,
    // above 5 + 5 = 10, below 5 → above → 20: VAH 3, VAL 1.5.
    expect(vp.update(c4)).toMatchObject({ poc: 1.75, vah: 3, val: 1.5, rowSize: 0.5, rows: 5, totalVolume: 26 });
    expect(vp.gridBuilds).toBe(2);
    // c5 [0, 3] vol 30 evicts c3: range [0, 3.1] / 4 = 0.775 → 1 (0.775² > 0.5 × 1), rebuilt.
    // c5: 10 in each of rows 0..2; c4 [1.5, 3.1]: 5, 10 and 1 in [3, 4). Rows from 0: 10, 15, 20, 1;
    // total 46, 70% = 32.2. POC row 2 → 2.5. Value area 20; above row 3 alone = 1, below 15 + 10 =
    // 25 → below → 45 ≥ 32.2: VAH 3, VAL 0.
    expect(vp.update(c5)).toMatchObject({ poc: 2.5, vah: 3, val: 0, rowSize: 1, rows: 4, totalVolume: 46, pocVolume: 20 });
    expect(vp.profile().map((r) => r.volume)).toEqual([10, 15, 20, 1]);
    expect(vp.gridBuilds).toBe(3);
  });

  it('row-count grid with rowCountTolerance 0.25: row sizes 1 and 1.5 × a power of two', () => {
    const vp = new VolumeProfile({ window: 2, rowCount: 4, rowCountTolerance: 0.25 });
    const [c1, c2, c3, c4, c5] = gridCandles();
    // c1..c4 as above (1, 0.5 and 0.525 → 0.5 on this ladder too: 0.525² ≤ 0.5 × 0.75).
    for (const c of [c1, c2, c3]) vp.update(c);
    expect(vp.update(c4)).toMatchObject({ rowSize: 0.5, rows: 5 });
    expect(vp.gridBuilds).toBe(2);
    // c5: range 3.1 / 4 = 0.775 → 0.75 (0.775² ≤ 0.75 × 1), rebuilt.
    // c5: 7.5 in each of 4 rows; c4 [1.5, 3.1]: 7.5, 7.5 and 1 in [3, 3.75). Rows from 0: 7.5, 7.5,
    // 15, 15, 1; total 46, 70% = 32.2. POC: rows 2 and 3 tie, row 2 is the centre → 1.875.
    // Value area 15; above 15 + 1 = 16, below 7.5 + 7.5 = 15 → above → 31; then only below → 46.
    expect(vp.update(c5)).toMatchObject({ poc: 1.875, vah: 3.75, val: 0, rowSize: 0.75, rows: 5, totalVolume: 46, pocVolume: 15 });
    expect(vp.profile().map((r) => r.volume)).toEqual([7.5, 7.5, 15, 15, 1]);
    expect(vp.gridBuilds).toBe(3);
  });

  it('is null while the window has no volume (volume 1 per candle gives a time-at-price profile)', () => {
    const vp = new VolumeProfile({ window: 2, rowSize: 1 });
    const zero = lhv([
      [1, 2, 0],
      [2, 3, 0],
    ]);
    expect(zero.map((c) => vp.update(c))).toEqual([null, null]);
    expect(vp.isReady).toBe(false);
    expect(vp.update(lhv([[2, 3, 1]])[0]!)).toMatchObject({ poc: 2.5, totalVolume: 1 });
  });

  it('is null again once fractional volumes have left the window (no rounding residue in the total)', () => {
    // 0.1 + 0.2 − 0.1 − 0.2 is 5.55e-17 in floating point, not 0.
    const vp = new VolumeProfile({ window: 2, rowSize: 1 });
    const out = lhv([
      [1, 2, 0.1],
      [1, 2, 0.2],
      [1, 2, 0],
      [1, 2, 0],
    ]).map((c) => vp.update(c));
    expect(out[1]).toMatchObject({ poc: 1.5 });
    expect(out[2]).toMatchObject({ poc: 1.5 });
    expect(out[3]).toBeNull();
  });

  it('a flat window has rows of about a millionth of its price, until a real range replaces them', () => {
    const vp = new VolumeProfile({ window: 3 });
    const flat: Candle = { time: 0, open: 1.1, high: 1.1, low: 1.1, close: 1.1, volume: 5 };
    vp.update(flat);
    vp.update(flat);
    expect(vp.update(flat)).toMatchObject({ rows: 1, totalVolume: 15, rowSize: 2 ** -20 });
    const builds = vp.gridBuilds;
    for (let i = 0; i < 20; i++) vp.update(flat); // no rebuild storm while flat
    expect(vp.gridBuilds).toBe(builds);
    // Range 0.0024 / 24 = 0.0001 → 2^-13 (0.000122; 0.0001² > 2^-14 × 2^-13): 20 rows.
    const v = vp.update({ time: 1, open: 1.1, high: 1.1024, low: 1.1, close: 1.1024, volume: 10 })!;
    expect(v.rowSize).toBe(2 ** -13);
    expect(v.rows).toBe(20);
  });
});

/** Rows recomputed from scratch: each candle's overlap with each reported row, nothing incremental. */
function fromScratch(window: Candle[], rows: VolumeProfileRow[]): number[] {
  const vol = rows.map(() => 0);
  for (const c of window) {
    if (c.high === c.low) {
      const i = rows.findIndex((r) => c.low >= r.low && c.low < r.high);
      vol[i] = vol[i]! + c.volume;
      continue;
    }
    rows.forEach((r, i) => {
      const overlap = Math.min(c.high, r.high) - Math.max(c.low, r.low);
      if (overlap > 0) vol[i] = vol[i]! + (c.volume * overlap) / (c.high - c.low);
    });
  }
  return vol;
}

/** POC / VAH / VAL from row volumes, written independently of the class (same rules). */
function pocAndValueArea(rows: VolumeProfileRow[], vol: number[], percent: number) {
  const max = Math.max(...vol);
  const centre = (rows.length - 1) / 2;
  const candidates = vol.map((v, i) => i).filter((i) => vol[i] === max);
  candidates.sort((x, y) => Math.abs(x - centre) - Math.abs(y - centre) || x - y);
  const poc = candidates[0]!;
  const total = vol.reduce((s, v) => s + v, 0);
  let [up, dn, va] = [poc, poc, vol[poc]!];
  while (va < (total * percent) / 100 && (up < rows.length - 1 || dn > 0)) {
    const upRows = vol.slice(up + 1, up + 3);
    const dnRows = vol.slice(Math.max(0, dn - 2), dn);
    const upSum = upRows.reduce((s, v) => s + v, 0);
    const dnSum = dnRows.reduce((s, v) => s + v, 0);
    if (upRows.length > 0 && (dnRows.length === 0 || upSum >= dnSum)) {
      up += upRows.length;
      va += upSum;
    } else {
      dn -= dnRows.length;
      va += dnSum;
    }
  }
  const r = rows[poc]!;
  return { poc: (r.low + r.high) / 2, vah: rows[up]!.high, val: rows[dn]!.low };
}

describe('volume profile, rolling, against a from-scratch recomputation', () => {
  for (const options of [{}, { rowSize: 0.0002 }, { window: 50, rowCount: 40, valueAreaPercent: 68 }]) {
    it(`agrees on every candle of 10,000 (${JSON.stringify(options)})`, () => {
      const vp = new VolumeProfile(options);
      const candles = syntheticCandles(10_000, { seed: 5 });
      const w = vp.window;
      const problems: string[] = [];
      let checked = 0;
      candles.forEach((c, i) => {
        const v = vp.update(c);
        if (v === null) return;
        const rows = vp.profile();
        const expected = fromScratch(candles.slice(i + 1 - w, i + 1), rows);
        const total = expected.reduce((s, x) => s + x, 0);
        rows.forEach((r, j) => {
          const e = expected[j]!;
          // Rows no candle covers are exactly 0; the others agree to rounding.
          if (e === 0 ? r.volume !== 0 : Math.abs(r.volume - e) > 1e-9 * total) {
            problems.push(`candle ${i} row ${j}: ${r.volume} vs ${e}`);
          }
        });
        const ref = pocAndValueArea(rows, expected, vp.valueAreaPercent);
        for (const key of ['poc', 'vah', 'val'] as const) {
          if (Math.abs(v[key] - ref[key]) > 1e-9) problems.push(`candle ${i} ${key}: ${v[key]} vs ${ref[key]}`);
        }
        if (v.totalVolume !== candles.slice(i + 1 - w, i + 1).reduce((s, x) => s + x.volume, 0)) {
          problems.push(`candle ${i} total`);
        }
        if (!('rowSize' in options)) {
          // The range is rowCount / √2 .. rowCount × √2 rows high, and its ends fall inside rows.
          if (v.rows < Math.ceil(vp.rowCount / Math.SQRT2) || v.rows > Math.ceil(vp.rowCount * Math.SQRT2) + 1) {
            problems.push(`candle ${i}: ${v.rows} rows`);
          }
        }
        checked++;
      });
      expect(problems.slice(0, 5)).toEqual([]);
      expect(checked).toBe(10_000 - w + 1);
      // The grid is rebuilt now and then, not on every candle.
      expect(vp.gridBuilds).toBeLessThan(10_000 / 20);
    });
  }
});

describe('volume profile input and options', () => {
  it('rejects bad candles and options', () => {
    const vp = new VolumeProfile();
    const ok: Candle = { time: 0, open: 1, high: 2, low: 1, close: 1.5, volume: 1 };
    expect(() => vp.update({ ...ok, volume: -1 })).toThrow(RangeError);
    expect(() => vp.update({ ...ok, volume: Number.NaN })).toThrow(RangeError);
    expect(() => vp.update({ ...ok, high: 0.5 })).toThrow(RangeError);
    expect(() => vp.update({ ...ok, low: Number.NaN })).toThrow(RangeError);
    expect(() => new VolumeProfile({ rowSize: 0 })).toThrow(RangeError);
    expect(() => new VolumeProfile({ window: 0 })).toThrow(RangeError);
    expect(() => new VolumeProfile({ valueAreaPercent: 101 })).toThrow(RangeError);
  });

  it('refuses a fixed row size that would need more than maxRows rows', () => {
    const vp = new VolumeProfile({ window: 2, rowSize: 0.001, maxRows: 1000 });
    vp.update({ time: 0, open: 1, high: 1.5, low: 1, close: 1.5, volume: 1 });
    expect(() => vp.update({ time: 1, open: 1, high: 3, low: 2, close: 3, volume: 1 })).toThrow(/maxRows/);
  });

  it('defaults: window 100, 24 rows, 70% value area; reset starts over', () => {
    const vp = new VolumeProfile();
    expect([vp.window, vp.rowCount, vp.valueAreaPercent, vp.warmUp]).toEqual([100, 24, 70, 100]);
    const candles = syntheticCandles(150, { seed: 2 });
    const first = candles.map((c) => vp.update(c));
    expect(first.slice(0, 99).every((v) => v === null)).toBe(true);
    expect(first[99]).not.toBeNull();
    vp.reset();
    expect(vp.value).toBeNull();
    expect(vp.size).toBe(0);
    const again = candles.map((c) => vp.update(c));
    expect(again.at(-1)).toEqual(first.at(-1));
  });
});
