import type { Timeframe } from '@fxdesk/schemas';

export type { Timeframe };

/** A bid/ask quote. `time` is epoch milliseconds. */
export interface Quote {
  symbol: string;
  bid: number;
  ask: number;
  time: number;
}

/**
 * An OHLC bar as venues give it: `time` is the bar's OPEN in epoch seconds (UTC). The last bar
 * of a list may still be forming; `closed` says which.
 */
export interface Bar {
  time: number;
  open: number;
  high: number;
  low: number;
  close: number;
  /** Number of ticks in the bar. */
  tickVolume: number;
  /** Spread in points (MT5's `spread` column), or null when the venue gives none. */
  spread: number | null;
  closed: boolean;
}

/** Removes a listener added by an `on…` method. */
export type Unsubscribe = () => void;
