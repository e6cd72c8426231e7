/**
 * One pair's trading under the fill model and the exit rules, candle by candle: a signal waits for
 * the next candle's open, the position meets its stop and target within each candle, the exit
 * rules run at each close, and an exit they decide fills at the next open. The lab and the paper
 * account drive it the same way, so they trade alike; the account around it (sizing, P/L, storage)
 * is theirs, told through {@link PositionHooks}. One position per pair. Allocation-free on the
 * candle path: state in fields, answers by hooks.
 */
import { exitAtClose, isClosedBySignal, type CloseReason, type ExitReason, type ExitRules, type OpenPosition, type StopReason } from './exits.js';
import { areStopsValid, closeAtOpen, entryPrice, exitAtOpen, exitWithin, markPrice, type FillCandle, type PairPricing } from './fills.js';

/** What the account around a pair's position decides and is told. */
export interface PositionHooks {
  /**
   * The lots of an entry of the signal decided at `entry` with `stop`, filling on `candle`; 0
   * skips the signal. Where the portfolio's sizing from risk and its limits (open trades,
   * exposure, daily loss…) decide. The risk is measured from the signal's entry, as live measures
   * it before it sends (the spread and slippage paid at the fill come on top).
   */
  lotsFor(side: 1 | -1, entry: number, stop: number, candle: FillCandle): number;
  /** The position opened at the candle's open (the position's fields hold it). */
  entered(candle: FillCandle): void;
  /** The position closes at `price` on `candle` for `reason` (its fields still hold it). */
  exited(candle: FillCandle, price: number, reason: ExitReason): void;
  /** A signal was not traded: a position open on the pair at the open, stops the broker would refuse there, or no lots (lotsFor's 0). */
  skipped(why: SkipWhy): void;
}

/** Why {@link PositionHooks.skipped}: `no_lots` is lotsFor's 0, whose reason the account knows. */
export type SkipWhy = 'position_open' | 'invalid_stops' | 'no_lots';

/** A signal waiting for the next candle's open. */
export interface PendingEntry {
  side: 1 | -1;
  /** The signal's entry price (the close it was decided on): the sizing measures the risk from it. */
  entry: number;
  stop: number;
  target: number;
  /** Open time (epoch s) of the candle it was decided on. */
  signalTime: number;
}

/** A position as stored between candles (the paper account's): what {@link PairPosition.restore} takes up. */
export interface PositionState extends OpenPosition {
  lots: number;
  /** Open time (epoch s) of the entry candle, and of the signal's. */
  entryTime: number;
  signalTime: number;
  /** An exit decided at a close, to fill at the next open; null without one. */
  closing: CloseReason | null;
}

export class PairPosition implements PositionState {
  isOpen = false;
  side: 1 | -1 = 1;
  entry = 0;
  initialStop = 0;
  stop = 0;
  stopReason: StopReason = 'stop';
  target = 0;
  candlesHeld = 0;
  lots = 0;
  entryTime = 0;
  signalTime = 0;
  closing: CloseReason | null = null;
  hasPending = false;
  readonly pending: PendingEntry = { side: 1, entry: 0, stop: 0, target: 0, signalTime: 0 };

  constructor(
    private readonly pricing: PairPricing,
    private readonly rules: ExitRules,
    /** Decimal places of the pair's prices: a moved stop is rounded to them. */
    private readonly digits: number,
    private readonly hooks: PositionHooks,
  ) {}

  /**
   * A candle's open and range, in the order its prices came: the exit decided at the last close
   * fills at the open (unless the open is already beyond the stop or the target, which rest at the
   * broker: they fill first); then the pending signal enters at the open, when the pair is flat by
   * then (a stop or target the open gapped through closed it first, as the venue fills those
   * before an order sent at the close arrives), else it is skipped; then the stop or the target
   * within the candle (both reached: the stop).
   */
  onCandle(candle: FillCandle): void {
    if (this.isOpen && (this.closing !== null || this.hasPending)) {
      const gap = exitAtOpen(this.side, this.stop, this.target, candle, this.pricing);
      if (gap !== null) this.exit(candle, gap.price, gap.reason === 'stop' ? this.stopReason : 'target');
      else if (this.closing !== null) this.exit(candle, closeAtOpen(this.side, candle, this.pricing), this.closing);
    }
    if (this.hasPending) {
      if (this.isOpen) {
        this.hasPending = false;
        this.hooks.skipped('position_open');
      } else this.enter(candle);
    }
    if (this.isOpen) {
      const fill = exitWithin(this.side, this.stop, this.target, candle, this.pricing);
      if (fill !== null) this.exit(candle, fill.price, fill.reason === 'stop' ? this.stopReason : 'target');
    }
  }

  /** The candle's close with the Supertrend's ATR after it (NaN when unknown): the exit rules. */
  onClose(candle: FillCandle, atr: number): void {
    if (!this.isOpen || this.closing !== null) return;
    if (exitAtClose(this, markPrice(this.side, candle, this.pricing), atr, this.rules, this.digits) === 'time') this.closing = 'time';
  }

  /**
   * A signal at the candle's close (after {@link onClose}), decided at `entry`: it waits for the
   * next open, where it enters if the pair is flat by then (see {@link onCandle}); a signal of the
   * other side closes the position there first when EXIT_ON_OPPOSITE_SIGNAL is on. A second signal
   * while one waits is skipped.
   */
  onSignal(side: 1 | -1, entry: number, stop: number, target: number, signalTime: number): void {
    if (this.hasPending) return this.hooks.skipped('position_open');
    if (this.isOpen && this.closing === null && isClosedBySignal(this.side, side, this.rules)) this.closing = 'opposite_signal';
    this.hasPending = true;
    const p = this.pending;
    p.side = side;
    p.entry = entry;
    p.stop = stop;
    p.target = target;
    p.signalTime = signalTime;
  }

  /** Closes the position now at `price` (the lab's end of data; later a manual close or a flatten). */
  closeNow(candle: FillCandle, price: number, reason: ExitReason): void {
    if (this.isOpen) this.exit(candle, price, reason);
  }

  /** Takes up a position opened before, and a signal waiting for its entry (the paper account's, from its store). */
  restore(position: PositionState | null, pending: PendingEntry | null): void {
    this.hasPending = pending !== null;
    if (pending !== null) Object.assign(this.pending, pending);
    this.isOpen = position !== null;
    if (position === null) return;
    this.side = position.side;
    this.entry = position.entry;
    this.initialStop = position.initialStop;
    this.stop = position.stop;
    this.stopReason = position.stopReason;
    this.target = position.target;
    this.candlesHeld = position.candlesHeld;
    this.lots = position.lots;
    this.entryTime = position.entryTime;
    this.signalTime = position.signalTime;
    this.closing = position.closing;
  }

  private enter(candle: FillCandle): void {
    this.hasPending = false;
    const { side, stop, target, signalTime } = this.pending;
    if (!areStopsValid(side, stop, target, candle, this.pricing)) return this.hooks.skipped('invalid_stops');
    const lots = this.hooks.lotsFor(side, this.pending.entry, stop, candle);
    if (lots === 0) return this.hooks.skipped('no_lots');
    const entry = entryPrice(side, candle, this.pricing);
    this.isOpen = true;
    this.side = side;
    this.entry = entry;
    this.initialStop = stop;
    this.stop = stop;
    this.stopReason = 'stop';
    this.target = target;
    this.candlesHeld = 0;
    this.lots = lots;
    this.entryTime = candle.time;
    this.signalTime = signalTime;
    this.closing = null;
    this.hooks.entered(candle);
  }

  private exit(candle: FillCandle, price: number, reason: ExitReason): void {
    this.hooks.exited(candle, price, reason);
    this.isOpen = false;
    this.closing = null;
  }
}
