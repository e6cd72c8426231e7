import type { Clock } from '@fxdesk/primitives';

/** A count of operations allowed in every sliding window of `windowMs`. */
export interface TradeLimit {
  limit: number;
  windowMs: number;
}

/**
 * The trading rate limits, per kind of operation: "500 operations per minute" for new orders,
 * 100 for cancels, 2,000 for closes, 1,000 a minute and 5,000 per 15 minutes for changes of a
 * position's protection; past one "No trading operations can be performed for one minute"
 * (help.ctrader.com/ctrader-automate/rate-limits, "applied per authorised connection with the
 * cTrader backend"). A trade that would go over is refused unsent rather than queued: a trade
 * held back for a minute would reach the market long after its caller gave up on it.
 */
export const TRADE_LIMITS = {
  newOrder: [{ limit: 500, windowMs: 60_000 }],
  cancelOrder: [{ limit: 100, windowMs: 60_000 }],
  closePosition: [{ limit: 2_000, windowMs: 60_000 }],
  amendProtection: [
    { limit: 1_000, windowMs: 60_000 },
    { limit: 5_000, windowMs: 15 * 60_000 },
  ],
} as const satisfies Record<string, readonly TradeLimit[]>;

export type TradeKind = keyof typeof TRADE_LIMITS;

export class TradeBudget {
  private readonly clock: Clock;
  private readonly limits: Record<TradeKind, readonly TradeLimit[]>;
  private readonly sent = new Map<TradeKind, number[]>();

  constructor(clock: Clock, limits: Record<TradeKind, readonly TradeLimit[]> = TRADE_LIMITS) {
    this.clock = clock;
    this.limits = limits;
  }

  /** Takes one operation of `kind` when every window has room; false (nothing taken) when one is full. */
  take(kind: TradeKind): boolean {
    const now = this.clock.now();
    const limits = this.limits[kind];
    const longestMs = Math.max(...limits.map((l) => l.windowMs));
    const times = (this.sent.get(kind) ?? []).filter((t) => t > now - longestMs);
    if (limits.some((l) => times.filter((t) => t > now - l.windowMs).length >= l.limit)) {
      this.sent.set(kind, times);
      return false;
    }
    times.push(now);
    this.sent.set(kind, times);
    return true;
  }
}
