import type { DeskState, LoadFailure } from './desk-state.js';
import { formatClock, formatDuration, formatHourMinute } from './format.js';
import { nextCandleClose, nextFxOpen } from './market-time.js';
import { isMarketClosed, serviceViews } from './service-health.js';

/** One line across the top of every page: something the trader should know before reading the rest. */
export interface Banner {
  id: string;
  level: 'error' | 'warning' | 'info';
  title: string;
  text: string;
}

/** The banners the desk's state calls for, most serious first. */
export function bannersOf(state: DeskState, nowMs: number): Banner[] {
  const banners: Banner[] = [];
  if (state.connection === 'reconnecting') {
    const since = state.updatedAt ? ` Showing what it last sent, at ${formatClock(state.updatedAt)} UTC.` : '';
    banners.push({ id: 'strategy', level: 'error', title: 'The strategy service is not answering', text: `Reconnecting…${since}` });
  }
  if (state.loadError) banners.push(loadBanner(state, state.loadError, nowMs));
  for (const view of serviceViews(state.status, state.services)) {
    if (view.state === 'down') {
      banners.push({
        id: view.service,
        level: 'error',
        title: `${view.label} service is down`,
        text: `${view.detail}. ${view.stops} Still working: ${view.stillWorks}`,
      });
    } else if (view.state === 'degraded') {
      banners.push({ id: view.service, level: 'warning', title: `${view.label} service is not ready`, text: view.detail });
    }
  }
  if (marketClosed(state, nowMs)) {
    const opens = nextFxOpen(nowMs);
    banners.push({
      id: 'market',
      level: 'info',
      title: 'The FX market is closed',
      text: `Prices resume Sunday 22:00 UTC (in ${formatDuration(opens - nowMs)}); charts, signals and orders are all still here.`,
    });
  }
  return banners;
}

/** A failed snapshot: what failed, what the page shows meanwhile, and when it reads again by itself. */
function loadBanner(state: DeskState, failure: LoadFailure, nowMs: number): Banner {
  const shown = state.snapshotAt === null ? '' : ` Showing the desk as read at ${formatClock(state.snapshotAt)} UTC, kept current by its live events.`;
  const retry =
    failure.retryAt === null ? '' : ` Reading it again ${failure.retryAt <= nowMs ? 'now' : `in ${Math.ceil((failure.retryAt - nowMs) / 1000)} s`}.`;
  const title = state.snapshotAt === null ? 'The desk could not be read' : 'The desk could not be read again';
  return { id: 'load', level: state.snapshotAt === null ? 'error' : 'warning', title, text: `${failure.message.replace(/\.$/, '')}.${shown}${retry}` };
}

function marketClosed(state: DeskState, nowMs: number): boolean {
  const statuses = state.order.map((i) => state.pairs[i]?.status ?? 'stopped');
  return isMarketClosed(state.status, state.services, statuses, nowMs);
}

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** The empty state of a signal list: when the strategy next decides (after the open, while the market is closed). */
export function noSignalText(state: DeskState, nowMs: number): string {
  const status = state.status;
  if (!status) return 'No signal yet.';
  if (!status.running) return 'No signal yet: the strategy is stopped.';
  if (marketClosed(state, nowMs)) {
    const close = nextCandleClose(status.timeframe, nextFxOpen(nowMs));
    const day = WEEKDAYS[new Date(close).getUTCDay()] ?? '';
    return `No signal yet: the market is closed; the first ${status.timeframe} candle after the open closes ${day} at ${formatHourMinute(close)} UTC.`;
  }
  return `No signal yet: the next ${status.timeframe} candle closes at ${formatHourMinute(nextCandleClose(status.timeframe, nowMs))} UTC.`;
}
