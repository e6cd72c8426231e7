import type { Timeframe } from '@fxdesk/schemas';

/** The timeframes the strategy charts, shortest first, with their length (the contract's list). */
export const TIMEFRAME_SECONDS = {
  M1: 60,
  M5: 300,
  M15: 900,
  M30: 1800,
  H1: 3600,
  H4: 14_400,
  D1: 86_400,
} as const satisfies Record<Timeframe, number>;

export const TIMEFRAMES = Object.keys(TIMEFRAME_SECONDS) as Timeframe[];

export function isTimeframe(value: string | null | undefined): value is Timeframe {
  return value !== null && value !== undefined && Object.hasOwn(TIMEFRAME_SECONDS, value);
}

/** Open time (epoch seconds) of the candle of `timeframe` that holds the instant `epochSeconds` (UTC-aligned, as the desk's candles are). */
export function candleOpen(epochSeconds: number, timeframe: Timeframe): number {
  const length = TIMEFRAME_SECONDS[timeframe];
  return Math.floor(epochSeconds / length) * length;
}

/** When the candle forming at `nowMs` closes, in epoch milliseconds. */
export function nextCandleClose(timeframe: Timeframe, nowMs: number): number {
  return (candleOpen(Math.floor(nowMs / 1000), timeframe) + TIMEFRAME_SECONDS[timeframe]) * 1000;
}

const HOUR_MS = 3_600_000;
const WEEK_MS = 7 * 24 * HOUR_MS;
/** The epoch began on a Thursday: Friday 22:00 UTC is 1 day 22 h into each epoch week. */
const CLOSE_IN_WEEK_MS = 46 * HOUR_MS;
/** FX trades from Sunday 22:00 to Friday 22:00 UTC: closed for 48 hours. */
const CLOSED_FOR_MS = 48 * HOUR_MS;

/** Whether `nowMs` falls in the FX weekend, Friday 22:00 to Sunday 22:00 UTC. */
export function isFxWeekend(nowMs: number): boolean {
  const inWeek = (((nowMs - CLOSE_IN_WEEK_MS) % WEEK_MS) + WEEK_MS) % WEEK_MS;
  return inWeek < CLOSED_FOR_MS;
}

/** When the FX market next opens (Sunday 22:00 UTC) after `nowMs`, in epoch milliseconds. */
export function nextFxOpen(nowMs: number): number {
  const inWeek = (((nowMs - CLOSE_IN_WEEK_MS) % WEEK_MS) + WEEK_MS) % WEEK_MS;
  const untilOpen = CLOSED_FOR_MS - inWeek;
  return nowMs + (untilOpen > 0 ? untilOpen : untilOpen + WEEK_MS);
}

/** The FX market's time from `fromMs` to a later `toMs`, both while it trades: the weekends between left out. */
export function tradingMsBetween(fromMs: number, toMs: number): number {
  const weekends = Math.floor((toMs - CLOSE_IN_WEEK_MS) / WEEK_MS) - Math.floor((fromMs - CLOSE_IN_WEEK_MS) / WEEK_MS);
  return toMs - fromMs - weekends * CLOSED_FOR_MS;
}

/**
 * The instant `byMs` of trading time after `fromMs` (before it when negative), stepping over the
 * weekends, for a time the market trades: a span that reaches a Friday's close goes on from the
 * Sunday's open, and back the other way.
 */
export function shiftTradingMs(fromMs: number, byMs: number): number {
  let at = fromMs;
  let left = Math.abs(byMs);
  while (left > 0) {
    const inWeek = (((at - CLOSE_IN_WEEK_MS) % WEEK_MS) + WEEK_MS) % WEEK_MS;
    // Trading time to the next close going forward, or back to the last open (a close ends the week before it).
    const room = byMs > 0 ? WEEK_MS - inWeek : (inWeek === 0 ? WEEK_MS : inWeek) - CLOSED_FOR_MS;
    if (left <= room) return at + Math.sign(byMs) * left;
    left -= room;
    at += byMs > 0 ? room + CLOSED_FOR_MS : -(room + CLOSED_FOR_MS);
  }
  return at;
}
