import { describe, expect, it } from 'vitest';
import {
  chartSummary,
  COLORS,
  formingBar,
  fvgZones,
  latestProfile,
  signalBarTime,
  signalLevels,
  signalMarkers,
  signalsOnChart,
  stochRsiLines,
  supertrendLine,
  toTime,
  tradeLines,
  tradeMarkers,
  tradesOnChart,
  tradeWindow,
  volumeBars,
  withClosedCandle,
} from '../src/chart/chart-data.js';
import { candle, signal, trade } from './fixtures.js';

const minute = (m: number) => `2026-01-07T12:${String(m).padStart(2, '0')}:00.000Z`;
const t = (m: number) => toTime(minute(m));

describe('candles and volume', () => {
  it('colours a volume bar by its candle', () => {
    const [up, down] = volumeBars([candle(minute(0)), candle(minute(5), { open: 1.102, close: 1.1 })]);
    expect(up?.color).toContain('38, 166, 154');
    expect(down?.color).toContain('239, 83, 80');
  });
});

describe('the Supertrend', () => {
  it('is one line coloured by direction, transparent into a flip so it never jumps across price', () => {
    const candles = [
      candle(minute(0), { supertrend: null }),
      candle(minute(5), { supertrend: { direction: 1, value: 1.09 } }),
      candle(minute(10), { supertrend: { direction: 1, value: 1.091 } }),
      candle(minute(15), { supertrend: { direction: -1, value: 1.11 } }),
      candle(minute(20), { supertrend: { direction: -1, value: 1.109 } }),
    ];
    expect(supertrendLine(candles)).toEqual([
      { time: t(5), value: 1.09, color: COLORS.up },
      { time: t(10), value: 1.091, color: 'transparent' },
      { time: t(15), value: 1.11, color: COLORS.down },
      { time: t(20), value: 1.109, color: COLORS.down },
    ]);
  });
});

describe('the Stochastic RSI', () => {
  it('starts with the first candle that has it', () => {
    const { k, d } = stochRsiLines([candle(minute(0), { stochrsi: null }), candle(minute(5))]);
    expect(k).toEqual([{ time: t(5), value: 50 }]);
    expect(d).toEqual([{ time: t(5), value: 45 }]);
  });
});

describe('fair value gaps', () => {
  const gap = (low: number, high: number, type: 'bullish' | 'bearish' = 'bullish') => ({ fvg: { type, zone: [low, high] as [number, number] } });

  it('makes one zone of the candles that carry the same gap, ending where it changes', () => {
    const candles = [
      candle(minute(0)),
      candle(minute(5), gap(1.1, 1.101)),
      candle(minute(10), gap(1.1, 1.101)),
      candle(minute(15), gap(1.102, 1.103, 'bearish')),
      candle(minute(20)),
    ];
    expect(fvgZones(candles)).toEqual([
      { type: 'bullish', low: 1.1, high: 1.101, from: t(5), to: t(15) },
      { type: 'bearish', low: 1.102, high: 1.103, from: t(15), to: t(20) },
    ]);
  });

  it('leaves a gap still open at the last candle open to the right', () => {
    expect(fvgZones([candle(minute(0), gap(1.1, 1.101))])).toEqual([{ type: 'bullish', low: 1.1, high: 1.101, from: t(0), to: null }]);
  });
});

describe('the volume profile', () => {
  it('is the newest candle that has one', () => {
    expect(latestProfile([candle(minute(0)), candle(minute(5), { volume_profile: null })])).toEqual({ poc: 1.1, vah: 1.101, val: 1.099 });
    expect(latestProfile([])).toBeNull();
  });
});

describe('signals on the chart', () => {
  const candles = [candle(minute(0)), candle(minute(5)), candle(minute(10))];

  it('puts a signal on the bar of the candle it was decided on, on any timeframe', () => {
    const s = signal({ candle_time: '2026-01-07T12:25:00.000Z' });
    expect(signalBarTime(s, 'M5')).toBe(toTime('2026-01-07T12:25:00Z'));
    expect(signalBarTime(s, 'H1')).toBe(toTime('2026-01-07T12:00:00Z'));
  });

  it('keeps the signals whose bar is on the chart, oldest first', () => {
    const inside = signal({ signal_id: 'a', candle_time: minute(5), generated_at: minute(10) });
    const last = signal({ signal_id: 'b', candle_time: minute(10), generated_at: '2026-01-07T12:15:01.000Z' });
    const before = signal({ signal_id: 'c', candle_time: '2026-01-07T11:55:00.000Z' });
    expect(signalsOnChart([last, before, inside], candles, 'M5').map((s) => s.signal_id)).toEqual(['a', 'b']);
  });

  it('marks a LONG under its bar and a SHORT over it, the picked one labelled with its score', () => {
    const markers = signalMarkers(
      [signal({ signal_id: 'a', candle_time: minute(5) }), signal({ signal_id: 'b', type: 'SHORT', candle_time: minute(0) })],
      'M5',
      'a',
    );
    expect(markers).toEqual([
      expect.objectContaining({ time: t(0), position: 'aboveBar', shape: 'arrowDown', text: 'SHORT' }),
      expect.objectContaining({ time: t(5), position: 'belowBar', shape: 'arrowUp', text: 'LONG 3/4', size: 2 }),
    ]);
  });

  it("draws a signal's entry, stop and target from its bar, to the right edge while it is recent", () => {
    const many = Array.from({ length: 30 }, (_, i) => candle(new Date(Date.parse(minute(0)) + i * 300_000).toISOString()));
    const old = signal({ signal_id: 'old', candle_time: minute(0) });
    const recent = signal({ signal_id: 'new', candle_time: many[25]?.time as string });
    const [first, second] = signalLevels([old, recent], many, 'M5', 'new');
    expect(first).toMatchObject({ signalId: 'old', from: t(0), to: t(0) + 20 * 300, entry: 1.1, stop: 1.098, target: 1.104, selected: false });
    expect(second).toMatchObject({ signalId: 'new', to: null, selected: true });
  });

  it('sums up what it draws for the legend', () => {
    const summary = chartSummary(
      [candle(minute(0), { fvg: { type: 'bearish', zone: [1.1, 1.2] } }), candle(minute(5), { fvg: { type: 'bearish', zone: [1.1, 1.2] } })],
      [signal({ candle_time: minute(5) })],
      'M5',
      null,
    );
    expect(summary).toMatchObject({ candles: 2, supertrend: { direction: 1, value: 1.097 }, zones: 1, signals: 1, stochrsi: { k: 50, d: 45 } });
    expect(summary.openZone).toMatchObject({ type: 'bearish', low: 1.1, high: 1.2 });
    expect(summary.picked?.signal_id).toBe(signal().signal_id);
  });
});

describe('live candles', () => {
  it('appends a newer closed candle, replaces one with the same time, and keeps at most the limit', () => {
    const candles = [candle(minute(0)), candle(minute(5))];
    expect(withClosedCandle(candles, candle(minute(10)), 10).map((c) => c.time)).toEqual([minute(0), minute(5), minute(10)]);
    expect(withClosedCandle(candles, candle(minute(5), { close: 2 }), 10).at(-1)?.close).toBe(2);
    expect(withClosedCandle(candles, candle(minute(10)), 2).map((c) => c.time)).toEqual([minute(5), minute(10)]);
  });

  it('opens the forming bar at the last close and stretches it with each price', () => {
    const closed = [candle(minute(0), { close: 1.101 })];
    const first = formingBar(closed, null, 1.103, Date.parse('2026-01-07T12:06:10Z'), 'M5');
    expect(first).toEqual({ time: t(5), open: 1.101, high: 1.103, low: 1.101, close: 1.103 });
    const second = formingBar(closed, first, 1.1, Date.parse('2026-01-07T12:07:00Z'), 'M5');
    expect(second).toEqual({ time: t(5), open: 1.101, high: 1.103, low: 1.1, close: 1.1 });
  });

  it('leaves a price inside the newest closed candle to that candle', () => {
    expect(formingBar([candle(minute(5))], null, 1.2, Date.parse('2026-01-07T12:06:00Z'), 'M5')).toBeNull();
  });
});

describe('a backtest’s trades on the chart', () => {
  const candles = [0, 5, 10, 15, 20, 25].map((m) => candle(minute(m)));

  it('draws the trades whose entry and exit are both bars of the chart', () => {
    const inside = trade({ entry_time: minute(5), exit_time: minute(20) });
    const before = trade({ entry_time: '2026-01-07T11:50:00.000Z', exit_time: minute(10) });
    const after = trade({ entry_time: minute(20), exit_time: minute(35) });
    expect(tradesOnChart([before, inside, after], candles)).toEqual([inside]);
  });

  it('marks the entry with an arrow at its price (up under a LONG, down over a SHORT) and the exit with a dot coloured by the result', () => {
    const long = trade({ entry_time: minute(5), exit_time: minute(20), exit_price: 1.104, pnl: 40 });
    const short = trade({ side: 'SHORT', entry_time: minute(10), entry_price: 1.102, exit_time: minute(15), exit_price: 1.103, exit_reason: 'stop', pnl: -10 });
    const [longEntry, longExit, shortEntry, shortExit] = tradeMarkers([long, short], null);
    expect(longEntry).toMatchObject({ time: t(5), position: 'atPriceBottom', price: 1.1, shape: 'arrowUp', color: COLORS.entry });
    expect(longExit).toMatchObject({ time: t(20), position: 'atPriceMiddle', price: 1.104, shape: 'circle', color: COLORS.win });
    expect(shortEntry).toMatchObject({ time: t(10), position: 'atPriceTop', price: 1.102, shape: 'arrowDown' });
    expect(shortExit).toMatchObject({ time: t(15), price: 1.103, color: COLORS.loss });
    expect(longEntry?.text).toBeUndefined();
  });

  it('labels the picked trade’s markers with its side and how it left, and draws its line bolder', () => {
    const picked = trade({ entry_time: minute(5), exit_time: minute(20), exit_reason: 'end_of_data' });
    const [entry, exit] = tradeMarkers([picked], minute(5));
    expect([entry?.text, exit?.text, entry?.size]).toEqual(['LONG', 'end of data', 2]);
    expect(tradeLines([picked], minute(5))).toEqual([{ key: minute(5), from: t(5), entry: 1.1, to: t(20), exit: 1.104, isWin: true, selected: true }]);
  });
});

describe("a trade's window", () => {
  it('reads 150 bars of time either side of a short trade, the exit bar included', () => {
    expect(tradeWindow({ entry_time: '2025-03-04T10:00:00.000Z', exit_time: '2025-03-04T11:00:00.000Z' }, 'M5')).toEqual({
      from: '2025-03-03T21:30:00.000Z',
      to: '2025-03-04T23:35:00.000Z',
      limit: 400,
    });
  });

  it('narrows the margins of a long trade so the whole stays within 400 candles, keeping at least 10 bars', () => {
    const { from, to, limit } = tradeWindow({ entry_time: '2025-03-04T00:00:00.000Z', exit_time: '2025-03-04T16:35:00.000Z' }, 'M5');
    // Held 200 bars: 100 either side.
    expect([from, to, limit]).toEqual(['2025-03-03T15:40:00.000Z', '2025-03-05T01:00:00.000Z', 401]);
  });

  it('asks for as many candles as a trade longer than the window holds, at most 5,000', () => {
    // Held 501 bars of trading time (four weeks and 20 hours): 10 either side, over the weekends.
    const long = tradeWindow({ entry_time: '2025-03-03T00:00:00.000Z', exit_time: '2025-03-31T20:00:00.000Z' }, 'H1');
    expect(long).toEqual({ from: '2025-02-28T14:00:00.000Z', to: '2025-04-01T07:00:00.000Z', limit: 522 });
    expect(tradeWindow({ entry_time: '2025-01-06T00:00:00.000Z', exit_time: '2025-12-01T00:00:00.000Z' }, 'M5').limit).toBe(5000);
  });

  it('counts no bar in a weekend: a Friday trade stopped at the Sunday open is short, its margins reach across', () => {
    expect(tradeWindow({ entry_time: '2025-03-07T21:55:00.000Z', exit_time: '2025-03-09T22:00:00.000Z' }, 'M5')).toEqual({
      from: '2025-03-07T09:25:00.000Z',
      to: '2025-03-10T10:35:00.000Z',
      limit: 400,
    });
  });
});
