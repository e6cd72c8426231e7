import { describe, expect, it } from 'vitest';
import {
  Atr,
  FairValueGaps,
  Rsi,
  StochRsi,
  Supertrend,
  VolumeProfile,
  isValidCandle,
  syntheticCandles,
  type Candle,
  type StreamingIndicator,
} from '../src/index.js';
import { assertCandle } from '../src/types.js';

const makers: Array<[string, () => StreamingIndicator<unknown>]> = [
  ['Atr', () => new Atr()],
  ['Atr(5)', () => new Atr({ period: 5 })],
  ['Rsi', () => new Rsi()],
  ['Rsi(7)', () => new Rsi({ period: 7 })],
  ['Supertrend', () => new Supertrend()],
  ['Supertrend(7, 2)', () => new Supertrend({ atrPeriod: 7, multiplier: 2 })],
  ['StochRsi', () => new StochRsi()],
  ['StochRsi(9, 5, 2, 4)', () => new StochRsi({ rsiPeriod: 9, stochPeriod: 5, kSmoothing: 2, dSmoothing: 4 })],
  ['FairValueGaps', () => new FairValueGaps()],
  ['VolumeProfile', () => new VolumeProfile()],
  ['VolumeProfile(20)', () => new VolumeProfile({ window: 20, rowCount: 10 })],
];

describe.each(makers)('%s: the common contract', (_name, make) => {
  const candles = syntheticCandles(300, { seed: 9 });

  it('returns null for exactly warmUp − 1 candles, then a value each candle; value and isReady follow', () => {
    const ind = make();
    expect(ind.value).toBeNull();
    expect(ind.isReady).toBe(false);
    candles.forEach((c, i) => {
      const v = ind.update(c);
      if (i < ind.warmUp - 1) {
        expect(v, `candle ${i + 1}`).toBeNull();
        expect(ind.isReady).toBe(false);
      } else {
        expect(v, `candle ${i + 1}`).not.toBeNull();
        expect(ind.isReady).toBe(true);
      }
      expect(ind.value).toBe(v);
    });
  });

  it('reset gives the same values as a fresh instance', () => {
    const a = make();
    const b = make();
    candles.forEach((c) => a.update(c));
    a.reset();
    expect(a.value).toBeNull();
    expect(a.isReady).toBe(false);
    const outA = candles.map((c) => a.update(c));
    const outB = candles.map((c) => b.update(c));
    expect(outA).toEqual(outB);
  });
});

/** The indicators whose values are objects: they can also be advanced without building one. */
interface Advancing<V> extends StreamingIndicator<V> {
  advance(candle: Candle): boolean;
  readonly current: Readonly<V> | null;
}

const advancing: Array<[string, () => Advancing<object>]> = [
  ['Supertrend', () => new Supertrend()],
  ['StochRsi', () => new StochRsi()],
  ['FairValueGaps', () => new FairValueGaps({ maxAge: 20 })],
  ['VolumeProfile', () => new VolumeProfile()],
  ['VolumeProfile(20)', () => new VolumeProfile({ window: 20, rowCount: 10 })],
];

describe.each(advancing)('%s: advance and current', (_name, make) => {
  const candles = syntheticCandles(400, { seed: 21 });

  it('advance gives, in current, the values update gives, and says when there is one', () => {
    const updated = make();
    const advanced = make();
    candles.forEach((c, i) => {
      const v = updated.update(c);
      const has = advanced.advance(c);
      expect(has, `candle ${i + 1}`).toBe(v !== null);
      expect(advanced.isReady).toBe(has);
      expect(advanced.current, `candle ${i + 1}`).toEqual(v);
      // value is what update would have answered, and stays as it was after later candles.
      expect(advanced.value).toEqual(v);
    });
  });

  it('value is a copy that later candles leave as it was; reading only some candles gives the same values', () => {
    const ind = make();
    const kept: Array<[object, string]> = [];
    candles.forEach((c, i) => {
      ind.advance(c);
      if (i % 7 === 0 && ind.value !== null) kept.push([ind.value, JSON.stringify(ind.value)]);
    });
    expect(kept.length).toBeGreaterThan(20);
    for (const [value, json] of kept) expect(JSON.stringify(value)).toBe(json);
    const fresh = make();
    const every = candles.map((c) => fresh.update(c));
    const sparse = make();
    candles.forEach((c, i) => {
      sparse.advance(c);
      if (i % 5 === 0) expect(sparse.current).toEqual(every[i]);
    });
  });

  it('reset forgets the current value', () => {
    const ind = make();
    candles.forEach((c) => ind.advance(c));
    expect(ind.current).not.toBeNull();
    ind.reset();
    expect(ind.current).toBeNull();
    expect(ind.value).toBeNull();
  });
});

const ok: Candle = { time: 0, open: 1, high: 2, low: 1, close: 1.5, volume: 1 };
const invalidCandles: Array<[string, Candle]> = [
  ['high below low', { ...ok, high: 0.5 }],
  ['a negative volume', { ...ok, volume: -1 }],
  ...(['open', 'high', 'low', 'close', 'volume'] as const).flatMap((field) =>
    [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY].map((bad): [string, Candle] => [`${field} ${bad}`, { ...ok, [field]: bad }]),
  ),
];

/** The error a call throws (undefined when it returns). */
function thrownBy(call: () => unknown): unknown {
  try {
    call();
  } catch (err) {
    return err;
  }
  return undefined;
}

describe.each(makers)('%s: candle validation', (_name, make) => {
  it.each(invalidCandles)('rejects a candle with %s with the shared RangeError', (_case, candle) => {
    const err = thrownBy(() => make().update(candle));
    expect(err).toBeInstanceOf(RangeError);
    expect(err).toEqual(thrownBy(() => assertCandle(candle)));
  });

  it('is left as it was by a rejected candle', () => {
    const candles = syntheticCandles(150, { seed: 4 });
    const clean = make();
    const hit = make();
    const expected = candles.map((c) => clean.update(c));
    const seen = candles.map((c, i) => {
      if (i % 10 === 5) for (const [, bad] of invalidCandles) expect(() => hit.update({ ...bad, time: c.time })).toThrow(RangeError);
      return hit.update(c);
    });
    expect(seen).toEqual(expected);
  });
});

describe('input validation', () => {
  it('accepts a flat candle without volume (high = low, volume 0)', () => {
    expect(isValidCandle({ ...ok, high: 1, low: 1, close: 1, volume: 0 })).toBe(true);
  });

  it('rejects bad parameters', () => {
    expect(() => new Atr({ period: 0 })).toThrow(RangeError);
    expect(() => new Atr({ period: 2.5 })).toThrow(RangeError);
    expect(() => new Rsi({ period: -1 })).toThrow(RangeError);
    expect(() => new Supertrend({ multiplier: -1 })).toThrow(RangeError);
    expect(() => new StochRsi({ kSmoothing: 0 })).toThrow(RangeError);
    expect(() => new StochRsi({ oversold: 80, overbought: 20 })).toThrow(RangeError);
    expect(() => new FairValueGaps({ maxOpenZones: 0 })).toThrow(RangeError);
    expect(() => new FairValueGaps({ minSize: -1 })).toThrow(RangeError);
    expect(() => new FairValueGaps({ mitigation: 'touch' as never })).toThrow(RangeError);
    expect(() => new VolumeProfile({ rowCount: 0 })).toThrow(RangeError);
  });
});
