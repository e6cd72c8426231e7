import { TIMEFRAME_SECONDS } from '@fxdesk/schemas';
import type { Timeframe } from '../types.js';

const DAY_MS = 86_400_000;

export interface TrendbarPeriod {
  /** ProtoOATrendbarPeriod (OpenApiModelMessages.proto): M1 = 1, M5 = 5, M15 = 7, … D1 = 12. */
  code: number;
  seconds: number;
  /**
   * Widest `toTimestamp − fromTimestamp` one ProtoOAGetTrendbarsReq may span. The Open API
   * tutorial "Attaining historical data" (help.ctrader.com/open-api/symbol-data, "Timestamp
   * Constraints") says the limit depends on the period; the values are the ones Spotware's
   * own SDK samples and other clients use: M1–M5 302 400 000 ms (3.5 days), M10–H1
   * 21 168 000 000 ms (35 weeks), H4–D1 31 622 400 000 ms (366 days).
   */
  maxSpanMs: number;
}

/**
 * The latest `toTimestamp` a ProtoOAGetTrendbarsReq takes: "Smaller or equal to 2147483646000
 * (19th Jan 2038)" (OpenApiMessages.proto); `fromTimestamp` must be at least 0.
 */
export const MAX_TIMESTAMP_MS = 2_147_483_646_000;

const SHORT_SPAN_MS = 302_400_000;
const MEDIUM_SPAN_MS = 21_168_000_000;
const LONG_SPAN_MS = 31_622_400_000;

const CODES: Record<Timeframe, [code: number, maxSpanMs: number]> = {
  M1: [1, SHORT_SPAN_MS],
  M5: [5, SHORT_SPAN_MS],
  M15: [7, MEDIUM_SPAN_MS],
  M30: [8, MEDIUM_SPAN_MS],
  H1: [9, MEDIUM_SPAN_MS],
  H4: [10, LONG_SPAN_MS],
  D1: [12, LONG_SPAN_MS],
};

export function trendbarPeriod(timeframe: Timeframe): TrendbarPeriod {
  const [code, maxSpanMs] = CODES[timeframe];
  return { code, seconds: TIMEFRAME_SECONDS[timeframe], maxSpanMs };
}

/**
 * How far back a trendbars call looks for `count` bars before giving up: three times the bars'
 * own length (trendbars exist only where ticks were, FAQ: "trend bars are only created if
 * there are incoming ticks", so weekends and sessions leave gaps) plus a week for holidays.
 */
export function lookbackMs(period: TrendbarPeriod, count: number): number {
  return count * period.seconds * 1000 * 3 + 7 * DAY_MS;
}
