/**
 * The soak's heavy calls: the ones that once froze a service's event loop (issue 21). The D1
 * candle reads (a thousand days of history at a request), a long lab job, and the nested-body
 * attack (1 MB of `[[[…]]]`, to a route no service has and to a real one).
 */
import type { Call } from './load.js';
import type { ServiceName } from './stack.js';

/** 1 MB of nested arrays: 524,288 levels, which a JSON parser without a depth limit recurses through. */
const NESTED_BODY = `${'['.repeat(512 * 1024)}${']'.repeat(512 * 1024)}`;

/** The route each service takes a POST on (account and market-data have none: a path they read with GET). */
const POST_PATHS: Record<ServiceName, string> = {
  strategy: '/backtests',
  execution: '/v1/signals',
  account: '/api/v1/account/summary',
  'market-data': '/v1/symbols',
  notification: '/notifications',
};

/** The nested body, in turn to an unknown route and to the service's POST route (with `headers`, its key): each to be refused 4xx. */
export function nestedBodies(service: ServiceName, headers: Record<string, string> = {}): (n: number) => Call {
  return (n) => {
    const isUnknown = n % 2 === 0;
    const path = isUnknown ? '/soak/no-such-route' : POST_PATHS[service];
    return { label: `nested body to ${isUnknown ? 'an unknown route' : path}`, bad: true, method: 'POST', path, headers, body: NESTED_BODY };
  };
}

/** A thousand D1 candles of EURUSD: market-data's route, or execution's (the terminal's rates). */
export function dailyCandles(service: 'market-data' | 'execution', headers: Record<string, string>): (n: number) => Call {
  const path =
    service === 'market-data'
      ? '/v1/market-data/candles?symbol=EURUSD&timeframe=D1&count=1000'
      : '/v1/market-data/candles?quote=EURUSD&timeframe=D1&count=1000';
  return () => ({ label: `GET D1 candles (${service})`, bad: false, path, headers });
}

/** A long lab job: three years of M5 on two pairs, read through market-data and run on the strategy's worker threads. */
export const LONG_BACKTEST = { instruments: ['EUR_USD', 'GBP_USD'], timeframe: 'M5', from: '2022-01-01', to: '2025-01-01', name: 'soak' };
