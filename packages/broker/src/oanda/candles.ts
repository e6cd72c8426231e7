import type { Bar, Timeframe } from '../types.js';
import type { OandaHttpClient } from './http-client.js';
import { CandlesResponseSchema, type Candlestick } from './trading-wire.js';

/**
 * Candles of GET /v3/instruments/{instrument}/candles (Instrument endpoints): `price=BA` (bid and
 * ask candles), the granularity of the timeframe, aligned on UTC midnight (`dailyAlignment=0`,
 * `alignmentTimezone=UTC`; OANDA's default is 17:00 America/New_York) like every bar of the desk.
 * "count … [default=500, maximum=5000]": longer histories are read in pages of at most 5 000.
 */
export const OANDA_MAX_CANDLES = 5000;

const GRANULARITY: Record<Timeframe, { name: string; ms: number }> = {
  M1: { name: 'M1', ms: 60_000 },
  M5: { name: 'M5', ms: 300_000 },
  M15: { name: 'M15', ms: 900_000 },
  M30: { name: 'M30', ms: 1_800_000 },
  H1: { name: 'H1', ms: 3_600_000 },
  H4: { name: 'H4', ms: 14_400_000 },
  D1: { name: 'D', ms: 86_400_000 },
};

export function granularityOf(timeframe: Timeframe): string {
  return GRANULARITY[timeframe].name;
}

function query(timeframe: Timeframe, extra: Record<string, string>): Record<string, string> {
  return { price: 'BA', granularity: GRANULARITY[timeframe].name, dailyAlignment: '0', alignmentTimezone: 'UTC', ...extra };
}

const candlesPath = (instrument: string) => `/v3/instruments/${encodeURIComponent(instrument)}/candles`;

/** The latest `count` candles, oldest first, the forming one last: pages of 5 000 read backwards, each ending where the one after it starts. */
export async function readLatestCandles(http: OandaHttpClient, instrument: string, timeframe: Timeframe, count: number): Promise<Candlestick[]> {
  const pages: Candlestick[][] = [];
  let read = 0;
  let to: string | undefined;
  while (read < count) {
    const size = Math.min(OANDA_MAX_CANDLES, count - read);
    const { candles } = await http.get(candlesPath(instrument), query(timeframe, { count: String(size), ...(to ? { to } : {}) }), CandlesResponseSchema);
    const page = to ? candles.filter((c) => Date.parse(c.time) < Date.parse(to!)) : candles;
    if (page.length === 0) break;
    pages.unshift(page);
    read += page.length;
    to = page[0]!.time;
  }
  return pages.flat().slice(-count);
}

/**
 * The complete candles opening in [fromMs, toMs), oldest first, at most `limit`: read in spans of
 * at most 5 000 periods ("from" and "to" given, the range sets the count), never past `nowMs`
 * (OANDA refuses a "to" in the future).
 */
export async function readCandlesBetween(
  http: OandaHttpClient,
  instrument: string,
  timeframe: Timeframe,
  range: { fromMs: number; toMs: number; limit: number; nowMs: number },
): Promise<Candlestick[]> {
  const periodMs = GRANULARITY[timeframe].ms;
  const end = Math.min(range.toMs, range.nowMs);
  const found: Candlestick[] = [];
  for (let cursor = range.fromMs; cursor < end && found.length < range.limit;) {
    const spanEnd = Math.min(end, Math.floor(cursor / periodMs) * periodMs + OANDA_MAX_CANDLES * periodMs);
    const params = query(timeframe, { from: new Date(cursor).toISOString(), to: new Date(spanEnd).toISOString() });
    const { candles } = await http.get(candlesPath(instrument), params, CandlesResponseSchema);
    for (const c of candles) {
      const openMs = Date.parse(c.time);
      if (c.complete && openMs >= range.fromMs && openMs < end && (found.length === 0 || openMs > Date.parse(found.at(-1)!.time))) found.push(c);
    }
    cursor = spanEnd;
  }
  return found.slice(0, range.limit);
}

/** Candles as bars of the bids (as MT5 charts them), the spread at the close in points. */
export function barsOfCandles(candles: readonly Candlestick[], digits: number): Bar[] {
  return candles.flatMap((c) => {
    const bid = c.bid ?? c.mid;
    if (!bid) return [];
    return [
      {
        time: Math.floor(Date.parse(c.time) / 1000),
        open: Number(bid.o),
        high: Number(bid.h),
        low: Number(bid.l),
        close: Number(bid.c),
        tickVolume: c.volume,
        spread: c.bid && c.ask ? Math.round((Number(c.ask.c) - Number(c.bid.c)) * 10 ** digits) : null,
        closed: c.complete,
      },
    ];
  });
}
