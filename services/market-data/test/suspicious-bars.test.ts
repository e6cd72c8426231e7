import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { importFile } from '../src/import/importer.js';
import type { CandleStore } from '../src/store/candle-store.js';
import { coverageOf } from '../src/store/coverage.js';
import type { StoredCandle } from '../src/store/resample.js';
import { findSuspiciousBars, SuspiciousBarFinder } from '../src/store/suspicious-bars.js';
import { csvFile, memoryCandleStore, tempFolder } from './candle-files.js';

const MINUTE = 60_000;
/** Tuesday 9 January 2024, 10:00 UTC: market hours. */
const TUESDAY = Date.parse('2024-01-09T10:00:00Z');

/** A quiet M1 bar: open and close at `price`, a range of 10 points (0.001) about it. */
function bar(time: number, price = 1.1, change: Partial<StoredCandle> = {}): StoredCandle {
  return { time, open: price, high: price + 0.0005, low: price - 0.0005, close: price, volume: 1, spread: null, ...change };
}

/** `count` quiet M1 bars from `startMs`: an ATR(14) of 0.001 once 14 are in. */
function quiet(startMs: number, count: number, price = 1.1): StoredCandle[] {
  return Array.from({ length: count }, (_, i) => bar(startMs + i * MINUTE, price));
}

const at = (i: number) => TUESDAY + i * MINUTE;

async function suspiciousOf(candles: StoredCandle[], spikeAtr?: number) {
  return findSuspiciousBars([candles], { barMs: MINUTE, spikeAtr });
}

describe('suspicious bars', () => {
  it('reports a flat bar in market hours as zero range', async () => {
    const found = await suspiciousOf([...quiet(at(0), 3), { ...bar(at(3)), high: 1.1, low: 1.1 }]);
    expect(found.first).toEqual([{ time: at(3), reasons: ['zero_range'], atr: null, rangeAtrs: null, gapAtrs: null }]);
    expect(found.byReason.zero_range).toBe(1);
  });

  it('does not report a flat bar inside the weekend', async () => {
    const saturday = Date.parse('2024-01-13T12:00:00Z');
    const found = await suspiciousOf([{ ...bar(saturday), high: 1.1, low: 1.1 }]);
    expect(found.count).toBe(0);
  });

  it('reports a bar whose range is beyond N ATRs of the bars before as a range spike', async () => {
    const found = await suspiciousOf([...quiet(at(0), 20), bar(at(20), 1.1, { high: 1.1115 })]);
    expect(found.first).toMatchObject([{ time: at(20), reasons: ['range_spike'] }]);
    expect(found.first[0]?.atr).toBeCloseTo(0.001, 9);
    expect(found.first[0]?.rangeAtrs).toBeCloseTo(12, 6);
  });

  it('reports an open beyond N ATRs from the adjacent close as a gap spike', async () => {
    const found = await suspiciousOf([...quiet(at(0), 20), bar(at(20), 1.115)]);
    expect(found.first).toMatchObject([{ time: at(20), reasons: ['gap_spike'] }]);
    expect(found.first[0]?.gapAtrs).toBeCloseTo(15, 6);
  });

  it('takes N from the option', async () => {
    const found = await suspiciousOf([...quiet(at(0), 20), bar(at(20), 1.115)], 20);
    expect(found.count).toBe(0);
  });

  it('does not report the gap over a weekend, from Friday close to Sunday open', async () => {
    const friday = Date.parse('2024-01-12T21:40:00Z');
    const sunday = Date.parse('2024-01-14T22:00:00Z');
    const found = await suspiciousOf([...quiet(friday, 20), ...quiet(sunday, 5, 1.12)]);
    expect(found.count).toBe(0);
  });

  it('does not report a gap over missing bars in market hours either', async () => {
    const found = await suspiciousOf([...quiet(at(0), 20), ...quiet(at(25), 5, 1.12)]);
    expect(found.count).toBe(0);
  });

  it('reports no spike before 14 bars have made the ATR, and does from the 15th bar on', async () => {
    const spike = (i: number) => bar(at(i), 1.1, { high: 1.15 });
    expect((await suspiciousOf([...quiet(at(0), 13), spike(13)])).count).toBe(0);
    expect((await suspiciousOf([...quiet(at(0), 14), spike(14)])).first).toMatchObject([{ time: at(14), reasons: ['range_spike'] }]);
  });

  it('does not let flat bars shrink the ATR, so the first real bar after a stall is no spike', async () => {
    const stalled = Array.from({ length: 30 }, (_, i) => ({ ...bar(at(20 + i)), high: 1.1, low: 1.1 }));
    const found = await suspiciousOf([...quiet(at(0), 20), ...stalled, bar(at(50))]);
    expect(found.byReason).toEqual({ zero_range: 30, range_spike: 0, gap_spike: 0, unbounded: 0 });
  });

  it('reports a high or low that does not bound the open and close', async () => {
    const found = await suspiciousOf([bar(at(0), 1.1, { close: 1.2 })]);
    expect(found.first).toMatchObject([{ time: at(0), reasons: ['unbounded'] }]);
  });

  it('counts every suspicious bar and keeps the first few', async () => {
    const flats = Array.from({ length: 5 }, (_, i) => ({ ...bar(at(i)), high: 1.1, low: 1.1 }));
    const found = await findSuspiciousBars([flats.slice(0, 2), flats.slice(2)], { barMs: MINUTE, keep: 3 });
    expect([found.count, found.first.map((b) => b.time)]).toEqual([5, [at(0), at(1), at(2)]]);
  });

  it('reads a candle at a time', () => {
    const finder = new SuspiciousBarFinder({ barMs: MINUTE });
    expect(quiet(at(0), 14).map((c) => finder.push(c))).toEqual(Array(14).fill(undefined));
    expect(finder.push(bar(at(14), 1.2))?.reasons).toEqual(['gap_spike']);
  });
});

describe('coverage of suspicious bars', () => {
  let store: CandleStore;
  let folder: ReturnType<typeof tempFolder>;

  beforeEach(async () => {
    store = await memoryCandleStore();
    folder = tempFolder();
  });

  afterEach(async () => {
    await store.close();
    folder.cleanup();
  });

  it('reports the flat bar, range spike and gap spike of an imported series', async () => {
    const candles = [...quiet(at(0), 20), { ...bar(at(20)), high: 1.1, low: 1.1 }, bar(at(21), 1.1, { high: 1.1115 }), ...quiet(at(22), 5, 1.13)];
    await importFile(store, { file: folder.file('eurusd.csv', csvFile(candles)), symbol: 'EUR_USD' });
    const [series] = await coverageOf(store, 'EUR_USD', { spikeAtr: 10 });
    expect(series?.suspicious).toMatchObject({
      count: 3,
      byReason: { zero_range: 1, range_spike: 1, gap_spike: 1, unbounded: 0 },
      first: [
        { time: at(20), reasons: ['zero_range'] },
        { time: at(21), reasons: ['range_spike'] },
        { time: at(22), reasons: ['gap_spike'] },
      ],
    });
  });
});
