import { BrokerError } from '../errors.js';
import type { Timeframe } from '../types.js';
import type { MetaApiClients } from './clients.js';
import { METAAPI_TIMEFRAMES } from './normalize.js';
import { CandlesSchema, DealsSchema, type WireCandle, type WireDeal } from './wire.js';

/** MetaApi's largest page: "limit … max: 1000" (history and candles). */
export const PAGE_LIMIT = 1000;
/** History is read this far past now, for a clock a little behind MetaApi's. */
export const HISTORY_SLACK_MS = 60_000;

/** Every page of a history query ("offset … limit … max: 1000"); a page marked `synchronizing` is refused rather than returned incomplete. */
export async function allPages<T>(what: string, read: (query: Record<string, string>) => Promise<{ items: T[]; synchronizing: boolean }>): Promise<T[]> {
  const all: T[] = [];
  for (let offset = 0; ; offset += PAGE_LIMIT) {
    const page = await read({ offset: String(offset), limit: String(PAGE_LIMIT) });
    if (page.synchronizing) throw new BrokerError('unavailable', `MetaApi is still synchronizing the history (${what}); results would be incomplete`);
    all.push(...page.items);
    if (page.items.length < PAGE_LIMIT) return all;
  }
}

/** `:startTime/:endTime` of a history route, encoded. */
export function timeRangePath(fromMs: number, toMs: number): string {
  return `${encodeURIComponent(new Date(fromMs).toISOString())}/${encodeURIComponent(new Date(toMs).toISOString())}`;
}

/**
 * Every history deal of [fromMs, toMs): GET …/history-deals/time/:startTime/:endTime ("start of
 * time range, inclusive", "end of time range, exclusive"), offset/limit pages of 1000,
 * "Response schema: Array<MetatraderDeal>".
 */
export function historyDealsBetween(clients: MetaApiClients, fromMs: number, toMs: number, timeoutMs: number): Promise<WireDeal[]> {
  const path = `${clients.accountPath}/history-deals/time/${timeRangePath(fromMs, toMs)}`;
  return allPages(path, async (query) => {
    const page = await clients.client.get(path, query, DealsSchema, timeoutMs);
    return { items: page.deals, synchronizing: page.synchronizing };
  });
}

/**
 * Candles of the market data API, newest page first, back from `startMs` (now when undefined):
 * "candles are loaded in backwards direction, so this should be the latest time", at most 1000
 * a page ("limit … max: 1000"), one request at a time. Stops at `count` candles, at a short page,
 * or once a page reaches back before `oldestMs`.
 */
export async function candlesBackwards(
  clients: MetaApiClients,
  symbol: string,
  timeframe: Timeframe,
  range: { count: number; startMs?: number; oldestMs?: number },
  timeoutMs: number,
): Promise<WireCandle[]> {
  const path = `${clients.accountPath}/historical-market-data/symbols/${encodeURIComponent(symbol)}/timeframes/${METAAPI_TIMEFRAMES[timeframe]}/candles`;
  const candles: WireCandle[] = [];
  let startTime = range.startMs === undefined ? undefined : new Date(range.startMs).toISOString();
  while (candles.length < range.count) {
    const limit = Math.min(PAGE_LIMIT, range.count - candles.length);
    const page = await clients.marketData.get(path, { startTime, limit: String(limit) }, CandlesSchema, timeoutMs);
    candles.push(...page);
    if (page.length < limit) break;
    const oldest = Math.min(...page.map((c) => Date.parse(c.time)));
    if (range.oldestMs !== undefined && oldest <= range.oldestMs) break;
    startTime = new Date(oldest - 1).toISOString();
  }
  return candles;
}
