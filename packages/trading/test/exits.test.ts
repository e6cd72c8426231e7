import { describe, expect, it } from 'vitest';
import { EXITS_OFF, exitAtClose, isClosedBySignal, type ExitRules, type OpenPosition } from '../src/exits.js';

/** A LONG entered at 1.10000 with its stop 10 pips below (1 R = 0.00100) and its target 2 R above. */
const long = (): OpenPosition => ({ side: 1, entry: 1.1, initialStop: 1.099, stop: 1.099, stopReason: 'stop', target: 1.102, candlesHeld: 0 });
const short = (): OpenPosition => ({ side: -1, entry: 1.1, initialStop: 1.101, stop: 1.101, stopReason: 'stop', target: 1.098, candlesHeld: 0 });
const rules = (r: Partial<ExitRules>): ExitRules => ({ ...EXITS_OFF, ...r });

describe('the exit rules at a candle close', () => {
  it('do nothing when every rule is off, only counting the candle', () => {
    const p = long();
    expect(exitAtClose(p, 1.1015, 0.0005, EXITS_OFF, 5)).toBe('none');
    expect(p).toMatchObject({ stop: 1.099, stopReason: 'stop', candlesHeld: 1 });
  });

  it('move the stop to the entry once a close is break_even_r R in profit, not before', () => {
    const p = long();
    expect(exitAtClose(p, 1.10099, Number.NaN, rules({ breakEvenR: 1 }), 5)).toBe('none');
    expect(exitAtClose(p, 1.101, Number.NaN, rules({ breakEvenR: 1 }), 5)).toBe('move_stop');
    expect(p).toMatchObject({ stop: 1.1, stopReason: 'break_even' });
  });

  it('trail a LONG ATRs behind the close and a SHORT R behind it, rounded away from the market', () => {
    const p = long();
    // 1.10150 − 2 × 0.000123 = 1.101254 → 1.10125 (down, for a LONG).
    expect(exitAtClose(p, 1.1015, 0.000123, rules({ trailingStopAtr: 2 }), 5)).toBe('move_stop');
    expect(p).toMatchObject({ stop: 1.10125, stopReason: 'trailing' });
    const s = short();
    // 1.09850 + 0.5 × 0.00100 = 1.09900.
    expect(exitAtClose(s, 1.0985, Number.NaN, rules({ trailingStopR: 0.5 }), 5)).toBe('move_stop');
    expect(s).toMatchObject({ stop: 1.099, stopReason: 'trailing' });
  });

  it('only ever tighten the stop', () => {
    const p = long();
    const trail = rules({ trailingStopR: 1 });
    exitAtClose(p, 1.1015, Number.NaN, trail, 5);
    expect(p.stop).toBe(1.1005);
    expect(exitAtClose(p, 1.1008, Number.NaN, trail, 5)).toBe('none');
    expect(p.stop).toBe(1.1005);
  });

  it('take the tightest move and name its rule', () => {
    const p = long();
    // Break-even 1.10000, trailing 1 R 1.10100: the trailing one.
    expect(exitAtClose(p, 1.102, Number.NaN, rules({ breakEvenR: 1, trailingStopR: 1 }), 5)).toBe('move_stop');
    expect(p).toMatchObject({ stop: 1.101, stopReason: 'trailing' });
  });

  it('close after time_exit_candles candles held, the entry candle the first', () => {
    const p = long();
    const time = rules({ timeExitCandles: 3 });
    expect([exitAtClose(p, 1.1, 0, time, 5), exitAtClose(p, 1.1, 0, time, 5), exitAtClose(p, 1.1, 0, time, 5)]).toEqual(['none', 'none', 'time']);
  });

  it('close on a signal of the other side only when exit_on_opposite_signal is 1', () => {
    expect(isClosedBySignal(1, -1, rules({ exitOnOppositeSignal: 1 }))).toBe(true);
    expect(isClosedBySignal(1, 1, rules({ exitOnOppositeSignal: 1 }))).toBe(false);
    expect(isClosedBySignal(1, -1, EXITS_OFF)).toBe(false);
  });
});
