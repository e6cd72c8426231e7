import type { Timeframe } from '@fxdesk/schemas';
import { isRuleKey, type RuleKey } from './lab/rules.js';
import { isTimeframe } from './market-time.js';

/** Where the console is served; every page is a path under it (the server answers index.html for each). */
export const BASE = '/ui/';

export const ACTIVITY_TABS = ['signals', 'orders', 'deliveries'] as const;
export type ActivityTab = (typeof ACTIVITY_TABS)[number];

export type Route =
  | { page: 'desk' }
  | { page: 'pair'; instrument: string; timeframe: Timeframe | null; signalId: string | null }
  | { page: 'activity'; tab: ActivityTab }
  | { page: 'positions' }
  | { page: 'lab' }
  | { page: 'backtest'; id: string; instrument: string | null }
  | { page: 'sweep'; id: string; x: RuleKey | null; y: RuleKey | null }
  | { page: 'not_found'; path: string };

const INSTRUMENT = /^[A-Z0-9]{2,10}_[A-Z0-9]{2,10}$/;

/** A job's id as the lab issues them: anything a path segment holds, within the API's 64 characters. */
const JOB_ID = /^[\w.~-]{1,64}$/;

/**
 * The page a location names: `/ui/`, `/ui/pair/EUR_USD?tf=M5&signal=…`, `/ui/activity?tab=orders`,
 * `/ui/positions`, `/ui/lab`, `/ui/lab/backtests/{id}?pair=EUR_USD`, `/ui/lab/sweeps/{id}?x=…&y=…` (the heat map's axes).
 */
export function parseRoute(pathname: string, search: string): Route {
  const rest = pathname.startsWith(BASE) ? pathname.slice(BASE.length) : pathname === '/ui' ? '' : null;
  if (rest === null) return { page: 'not_found', path: pathname };
  const parts = rest.split('/').filter((p) => p !== '');
  const query = new URLSearchParams(search);
  if (parts.length === 0) return { page: 'desk' };
  if (parts[0] === 'pair' && parts.length === 2) {
    const instrument = decodeURIComponent(parts[1] as string).toUpperCase();
    if (!INSTRUMENT.test(instrument)) return { page: 'not_found', path: pathname };
    const tf = query.get('tf');
    return { page: 'pair', instrument, timeframe: isTimeframe(tf) ? tf : null, signalId: query.get('signal') };
  }
  if (parts[0] === 'activity' && parts.length === 1) {
    const tab = query.get('tab');
    return { page: 'activity', tab: ACTIVITY_TABS.find((t) => t === tab) ?? 'signals' };
  }
  if (parts[0] === 'positions' && parts.length === 1) return { page: 'positions' };
  if (parts[0] === 'lab') return labRoute(parts.slice(1), query) ?? { page: 'not_found', path: pathname };
  return { page: 'not_found', path: pathname };
}

function labRoute(parts: string[], query: URLSearchParams): Route | null {
  if (parts.length === 0) return { page: 'lab' };
  const id = parts.length === 2 ? decodeURIComponent(parts[1] as string) : '';
  if (!JOB_ID.test(id)) return null;
  if (parts[0] === 'backtests') {
    const pair = query.get('pair')?.toUpperCase() ?? null;
    return { page: 'backtest', id, instrument: pair !== null && INSTRUMENT.test(pair) ? pair : null };
  }
  if (parts[0] === 'sweeps') {
    const x = query.get('x');
    const y = query.get('y');
    return { page: 'sweep', id, x: isRuleKey(x) ? x : null, y: isRuleKey(y) ? y : null };
  }
  return null;
}

/** The address of a page, the inverse of parseRoute. */
export function routeHref(route: Exclude<Route, { page: 'not_found' }>): string {
  switch (route.page) {
    case 'desk':
      return BASE;
    case 'pair': {
      const query = new URLSearchParams();
      if (route.timeframe) query.set('tf', route.timeframe);
      if (route.signalId) query.set('signal', route.signalId);
      const search = query.toString();
      return `${BASE}pair/${encodeURIComponent(route.instrument)}${search ? `?${search}` : ''}`;
    }
    case 'activity':
      return route.tab === 'signals' ? `${BASE}activity` : `${BASE}activity?tab=${route.tab}`;
    case 'positions':
      return `${BASE}positions`;
    case 'lab':
      return `${BASE}lab`;
    case 'backtest':
      return `${BASE}lab/backtests/${encodeURIComponent(route.id)}${route.instrument ? `?pair=${route.instrument}` : ''}`;
    case 'sweep': {
      const query = new URLSearchParams();
      if (route.x) query.set('x', route.x);
      if (route.y) query.set('y', route.y);
      const search = query.toString();
      return `${BASE}lab/sweeps/${encodeURIComponent(route.id)}${search ? `?${search}` : ''}`;
    }
  }
}

/** A backtest's page. */
export function backtestHref(id: string): string {
  return routeHref({ page: 'backtest', id, instrument: null });
}

/** A sweep's page. */
export function sweepHref(id: string): string {
  return routeHref({ page: 'sweep', id, x: null, y: null });
}

/** The chart of a pair, on a signal's timeframe with that signal picked out. */
export function signalHref(signal: { instrument: string; timeframe: Timeframe; signal_id: string }): string {
  return routeHref({ page: 'pair', instrument: signal.instrument, timeframe: signal.timeframe, signalId: signal.signal_id });
}
