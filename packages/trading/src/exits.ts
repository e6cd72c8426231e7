/**
 * The exit rules (services/strategy/README.md, "Exits"), pure: what a closed candle does to an
 * open position. Live, paper and the lab call the same {@link exitAtClose} once per closed candle
 * a position was open through; the stop only ever tightens. Allocation-free: the position is
 * mutated in place and the answer is a constant.
 */
import type { ExitReason } from '@fxdesk/schemas';

export type { ExitReason };

/** The exit settings; 0 turns each one off (the default: only the signal's stop and target). */
export interface ExitRules {
  /** Move the stop to the entry once a close is this many R in profit (BREAK_EVEN_R). */
  breakEvenR: number;
  /** Trail the stop this many ATRs (the Supertrend's) behind each close (TRAILING_STOP_ATR). */
  trailingStopAtr: number;
  /** Trail the stop this many R behind each close (TRAILING_STOP_R). */
  trailingStopR: number;
  /** Close after this many candles held, the entry candle the first (TIME_EXIT_CANDLES). */
  timeExitCandles: number;
  /** 1: a signal of the other side closes the position, and enters, at the next open (EXIT_ON_OPPOSITE_SIGNAL). */
  exitOnOppositeSignal: number;
}

/** Every exit rule off. */
export const EXITS_OFF: Readonly<ExitRules> = { breakEvenR: 0, trailingStopAtr: 0, trailingStopR: 0, timeExitCandles: 0, exitOnOppositeSignal: 0 };

/** Which rule set a position's stop: the signal's own, or a move. A hit is recorded under this reason. */
export type StopReason = Extract<ExitReason, 'stop' | 'break_even' | 'trailing'>;

/** An exit decided at a close and filled at the next candle's open, as a market order. */
export type CloseReason = Extract<ExitReason, 'time' | 'opposite_signal'>;

/**
 * What a closed candle asks of a position: nothing, to move its stop (to `position.stop`, already
 * set), or to close it at the next open for `time`.
 */
export type CloseAction = 'none' | 'move_stop' | 'time';

/** An open position as the exit rules read and move it. */
export interface OpenPosition {
  /** 1 LONG, −1 SHORT. */
  side: 1 | -1;
  /** The fill price. */
  entry: number;
  /** The stop at the entry: 1 R is |entry − initialStop|. */
  initialStop: number;
  stop: number;
  stopReason: StopReason;
  target: number;
  /** Closed candles the position was open through, the entry candle the first. */
  candlesHeld: number;
}

/**
 * A candle closed with the position open through it (`close`: the price it would close at now, a
 * LONG's bid, a SHORT's ask; `atr`: the Supertrend's ATR after the candle, NaN when unknown):
 * counts the candle, then
 * 1. the time exit: held `timeExitCandles` → `time` (close at the next open);
 * 2. break-even: the close `breakEvenR` R or more in profit → the stop to the entry;
 * 3. the trailing stops: `trailingStopAtr` ATRs, `trailingStopR` R behind the close.
 * A move is taken only when it tightens the stop (the tightest wins, its rule named), rounded to
 * the pair's `digits` away from the market, as a broker takes it → `move_stop`.
 */
export function exitAtClose(position: OpenPosition, close: number, atr: number, rules: ExitRules, digits: number): CloseAction {
  position.candlesHeld++;
  if (rules.timeExitCandles > 0 && position.candlesHeld >= rules.timeExitCandles) return 'time';
  const { side, entry } = position;
  const risk = Math.abs(entry - position.initialStop);
  let moved = false;
  // Prices are binary doubles: a close exactly X R away may compute a hair under X R.
  if (rules.breakEvenR > 0 && risk > 0 && (side * (close - entry)) / risk >= rules.breakEvenR - R_TOLERANCE) {
    moved = tighten(position, entry, 'break_even', digits) || moved;
  }
  if (rules.trailingStopAtr > 0 && atr > 0) moved = tighten(position, close - side * rules.trailingStopAtr * atr, 'trailing', digits) || moved;
  if (rules.trailingStopR > 0 && risk > 0) moved = tighten(position, close - side * rules.trailingStopR * risk, 'trailing', digits) || moved;
  return moved ? 'move_stop' : 'none';
}

/** Whether a signal of `signalSide` closes a position of `side` (EXIT_ON_OPPOSITE_SIGNAL). */
export function isClosedBySignal(side: 1 | -1, signalSide: 1 | -1, rules: ExitRules): boolean {
  return rules.exitOnOppositeSignal === 1 && signalSide !== side;
}

/** A billionth of an R: a profit this close to the break-even threshold reaches it. */
const R_TOLERANCE = 1e-9;

const POWERS_OF_TEN = [1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10];

/** Moves the stop to `price` (on the pair's digits, away from the market) when that tightens it; whether it did. */
function tighten(position: OpenPosition, price: number, reason: StopReason, digits: number): boolean {
  const scale = POWERS_OF_TEN[digits] ?? 10 ** digits;
  // A LONG's stop rounds down, a SHORT's up; the 1e-9 keeps a price already on the grid there.
  const stop = position.side === 1 ? Math.floor(price * scale + 1e-9) / scale : Math.ceil(price * scale - 1e-9) / scale;
  if (!(position.side * (stop - position.stop) > 0)) return false;
  position.stop = stop;
  position.stopReason = reason;
  return true;
}
