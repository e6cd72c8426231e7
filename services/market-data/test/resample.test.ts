import { describe, expect, it } from 'vitest';
import { FxCalendar } from '../src/store/fx-calendar.js';
import { resampleCandles, type StoredCandle } from '../src/store/resample.js';

const MINUTE = 60_000;

function minutes(startIso: string, count: number): StoredCandle[] {
  const start = Date.parse(startIso);
  return Array.from({ length: count }, (_, i) => ({
    time: start + i * MINUTE,
    open: 1 + i,
    high: 2 + i,
    low: 0.5 + i,
    close: 1.5 + i,
    volume: 1,
    spread: 10 + i,
  }));
}

const times = (bars: StoredCandle[]) => bars.map((b) => new Date(b.time).toISOString());

describe('resampling M1', () => {
  it('folds M5 bars from the interval start: first open, highest high, lowest low, last close, summed volume, the open spread', () => {
    const bars = resampleCandles(minutes('2024-01-09T10:02:00Z', 8), 'M5');
    expect(times(bars)).toEqual(['2024-01-09T10:00:00.000Z', '2024-01-09T10:05:00.000Z']);
    expect(bars[0]).toEqual({ time: Date.parse('2024-01-09T10:00:00Z'), open: 1, high: 4, low: 0.5, close: 3.5, volume: 3, spread: 10 });
    expect(bars[1]).toMatchObject({ open: 4, high: 9, low: 3.5, close: 8.5, volume: 5, spread: 13 });
  });

  it('starts H4 bars on UTC multiples of four hours', () => {
    expect(times(resampleCandles(minutes('2024-01-09T03:59:00Z', 2), 'H4'))).toEqual(['2024-01-09T00:00:00.000Z', '2024-01-09T04:00:00.000Z']);
  });

  it('rolls D1 at 17:00 New York in winter (22:00 UTC)', () => {
    expect(times(resampleCandles(minutes('2024-01-09T21:59:00Z', 2), 'D1'))).toEqual(['2024-01-08T22:00:00.000Z', '2024-01-09T22:00:00.000Z']);
  });

  it('rolls D1 at 17:00 New York in summer (21:00 UTC)', () => {
    expect(times(resampleCandles(minutes('2024-07-09T20:59:00Z', 2), 'D1'))).toEqual(['2024-07-08T21:00:00.000Z', '2024-07-09T21:00:00.000Z']);
  });

  it('rolls D1 at another New York hour when asked', () => {
    expect(times(resampleCandles(minutes('2024-01-09T04:59:00Z', 2), 'D1', new FxCalendar(0)))).toEqual([
      '2024-01-08T05:00:00.000Z',
      '2024-01-09T05:00:00.000Z',
    ]);
  });

  it('makes five D1 bars of a whole week of M1, none over the weekend, across the DST change of 10 March 2024', () => {
    const bars = resampleCandles(minutes('2024-03-04T00:00:00Z', 8 * 24 * 60), 'D1');
    expect(times(bars)).toEqual([
      // Monday 4 March's bar began on Sunday at 22:00 UTC; the week's first M1 here is Monday 00:00.
      '2024-03-03T22:00:00.000Z',
      '2024-03-04T22:00:00.000Z',
      '2024-03-05T22:00:00.000Z',
      '2024-03-06T22:00:00.000Z',
      '2024-03-07T22:00:00.000Z',
      // Sunday 10 March 17:00 is EDT: 21:00 UTC.
      '2024-03-10T21:00:00.000Z',
      '2024-03-11T21:00:00.000Z',
    ]);
    // Friday's bar ends at the close: 17:00 EST on 8 March, 22:00 UTC.
    expect(bars[4]?.close).toBe(1.5 + (Date.parse('2024-03-08T21:59:00Z') - Date.parse('2024-03-04T00:00:00Z')) / MINUTE);
  });

  it('leaves the weekend out of every timeframe, Friday 17:00 to Sunday 17:00 New York', () => {
    const weekend = [...minutes('2024-01-12T21:59:00Z', 2), ...minutes('2024-01-13T12:00:00Z', 1), ...minutes('2024-01-14T21:59:00Z', 2)];
    expect(times(resampleCandles(weekend, 'M1'))).toEqual(['2024-01-12T21:59:00.000Z', '2024-01-14T22:00:00.000Z']);
    expect(times(resampleCandles(weekend, 'H1'))).toEqual(['2024-01-12T21:00:00.000Z', '2024-01-14T22:00:00.000Z']);
  });
});

describe('the FX calendar', () => {
  const calendar = new FxCalendar();

  it('counts market time without the weekend', () => {
    expect(calendar.openMs(Date.parse('2024-01-12T21:00:00Z'), Date.parse('2024-01-14T23:00:00Z'))).toBe(2 * 3_600_000);
  });

  it('counts a span inside the week whole', () => {
    expect(calendar.openMs(Date.parse('2024-01-09T10:00:00Z'), Date.parse('2024-01-09T11:00:00Z'))).toBe(3_600_000);
  });

  it('counts nothing inside the weekend', () => {
    expect(calendar.openMs(Date.parse('2024-07-06T00:00:00Z'), Date.parse('2024-07-07T20:00:00Z'))).toBe(0);
  });
});
