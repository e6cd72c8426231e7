import { describe, expect, it } from 'vitest';
import { EXITS_OFF, type ExitRules } from '../src/exits.js';
import { pricingOf, type FillCandle } from '../src/fills.js';
import { PairPosition } from '../src/pair-position.js';

// 5 digits, no spread of its own: the model's 10 points (half 0.00005), 2 points of slippage.
const pricing = pricingOf(5, { spread_points: 10, slippage_points: 2, commission_per_lot: 0, volume: { lots: 1 } });
let clock = 0;
const bar = (open: number, high: number, low: number, close: number): FillCandle => ({ time: (clock += 60), open, high, low, close, spread: null });

function position(rules: Partial<ExitRules> = {}) {
  const events: string[] = [];
  const p = new PairPosition(pricing, { ...EXITS_OFF, ...rules }, 5, {
    lotsFor: (_side, entry, stop) => {
      events.push(`sized from ${entry.toFixed(5)} to ${stop.toFixed(5)}`);
      return 1;
    },
    entered: (c) => events.push(`entered ${c.time} at ${p.entry.toFixed(5)}`),
    exited: (c, price, reason) => events.push(`${reason} ${c.time} at ${price.toFixed(5)}`),
    skipped: (why) => events.push(`skipped ${why}`),
  });
  /** One candle: its open and range, then its close with an ATR. */
  const candle = (c: FillCandle, atr = Number.NaN) => {
    p.onCandle(c);
    p.onClose(c, atr);
    return c.time;
  };
  return { p, events, candle };
}

describe('a pair position', () => {
  it('enters a signal at the next open, at the ask plus the slippage, sized from the entry it was decided at', () => {
    const { p, events, candle } = position();
    p.onSignal(1, 1.1, 1.099, 1.103, candle(bar(1.1, 1.1, 1.1, 1.1)));
    const t = candle(bar(1.1001, 1.1002, 1.1, 1.1001));
    expect(events).toEqual(['sized from 1.10000 to 1.09900', `entered ${t} at 1.10017`]);
  });

  it('takes the stop when one candle reaches both legs', () => {
    const { p, events, candle } = position();
    p.onSignal(1, 1.1, 1.099, 1.101, candle(bar(1.1, 1.1, 1.1, 1.1)));
    const t = candle(bar(1.1, 1.102, 1.098, 1.1));
    expect(events.at(-1)).toBe(`stop ${t} at 1.09898`);
  });

  it('skips at the next open a signal on a position still open there, and holds one position per pair', () => {
    const { p, events, candle } = position();
    p.onSignal(1, 1.1, 1.099, 1.103, candle(bar(1.1, 1.1, 1.1, 1.1)));
    p.onSignal(1, 1.1, 1.099, 1.103, candle(bar(1.1, 1.1, 1.1, 1.1)));
    expect(events).toHaveLength(2);
    candle(bar(1.1, 1.1, 1.1, 1.1));
    expect(events.slice(2)).toEqual(['skipped position_open']);
    expect(p.hasPending).toBe(false);
  });

  it('skips a second signal while one waits for the open', () => {
    const { p, events } = position();
    p.onSignal(1, 1.1, 1.099, 1.103, 60);
    p.onSignal(-1, 1.1, 1.101, 1.097, 60);
    expect(events).toEqual(['skipped position_open']);
    expect(p.pending.side).toBe(1);
  });

  it('enters a signal at an open that gapped through the open position’s target, once the target closed it there', () => {
    const { p, events, candle } = position();
    p.onSignal(1, 1.1, 1.099, 1.103, candle(bar(1.1, 1.1, 1.1, 1.1)));
    candle(bar(1.1, 1.1001, 1.0999, 1.1));
    p.onSignal(1, 1.1029, 1.1019, 1.1049, candle(bar(1.1, 1.1029, 1.0999, 1.1029)));
    // The open's bid (1.10345) is beyond the target 1.103: the venue fills the resting target first, then the order sent at the close.
    const t = candle(bar(1.1035, 1.1036, 1.1034, 1.1035));
    expect(events.slice(-3)).toEqual([`target ${t} at 1.10345`, 'sized from 1.10290 to 1.10190', `entered ${t} at 1.10357`]);
  });

  it('records a hit of a stop moved to break-even as break_even, and of a trailed one as trailing', () => {
    const be = position({ breakEvenR: 1 });
    be.p.onSignal(1, 1.1, 1.099, 1.105, be.candle(bar(1.1, 1.1, 1.1, 1.1)));
    // Entered at 1.10007; the close's bid 1.10145 is over 1 R (0.00107) in profit: the stop to 1.10007 → 1.10007.
    be.candle(bar(1.1, 1.1016, 1.0999, 1.1015));
    expect(be.p.stop).toBe(1.10007);
    const t = be.candle(bar(1.1012, 1.1013, 1.0995, 1.1));
    expect(be.events.at(-1)).toBe(`break_even ${t} at 1.10005`);

    const trail = position({ trailingStopAtr: 1 });
    trail.p.onSignal(1, 1.1, 1.099, 1.105, trail.candle(bar(1.1, 1.1, 1.1, 1.1)));
    trail.candle(bar(1.1, 1.1021, 1.0999, 1.102), 0.0005);
    const u = trail.candle(bar(1.1019, 1.1019, 1.1, 1.1005));
    // The stop 1.10195 − 0.0005 = 1.10145, filled less the slippage.
    expect(trail.events.at(-1)).toBe(`trailing ${u} at 1.10143`);
  });

  it('closes at the next open after time_exit_candles, at the bid less the slippage', () => {
    const { p, events, candle } = position({ timeExitCandles: 2 });
    p.onSignal(1, 1.1, 1.099, 1.105, candle(bar(1.1, 1.1, 1.1, 1.1)));
    candle(bar(1.1, 1.1001, 1.0999, 1.1));
    candle(bar(1.1, 1.1001, 1.0999, 1.1));
    const t = candle(bar(1.1003, 1.1004, 1.1002, 1.1003));
    expect(events.at(-1)).toBe(`time ${t} at 1.10023`);
  });

  it('reverses on an opposite signal when exit_on_opposite_signal is on: the close, then the entry, at the next open', () => {
    const { p, events, candle } = position({ exitOnOppositeSignal: 1 });
    p.onSignal(1, 1.1, 1.099, 1.105, candle(bar(1.1, 1.1, 1.1, 1.1)));
    p.onSignal(-1, 1.1, 1.102, 1.097, candle(bar(1.1, 1.1001, 1.0999, 1.1)));
    const t = candle(bar(1.1, 1.1001, 1.0999, 1.1));
    expect(events.slice(-3)).toEqual([`opposite_signal ${t} at 1.09993`, 'sized from 1.10000 to 1.10200', `entered ${t} at 1.09993`]);
    expect(p.side).toBe(-1);
  });

  it('fills a decided close at the stop when the open is already beyond it', () => {
    const { p, events, candle } = position({ timeExitCandles: 1 });
    p.onSignal(1, 1.1, 1.099, 1.105, candle(bar(1.1, 1.1, 1.1, 1.1)));
    candle(bar(1.1, 1.1001, 1.0999, 1.1));
    const t = candle(bar(1.098, 1.098, 1.097, 1.098));
    expect(events.at(-1)).toBe(`stop ${t} at 1.09793`);
  });
});
