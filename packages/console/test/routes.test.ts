import { describe, expect, it } from 'vitest';
import { parseRoute, routeHref, signalHref, type Route } from '../src/routes.js';
import { signal } from './fixtures.js';

describe('routes', () => {
  it('reads the desk, a pair with its timeframe and signal, and an activity tab', () => {
    expect(parseRoute('/ui/', '')).toEqual({ page: 'desk' });
    expect(parseRoute('/ui', '')).toEqual({ page: 'desk' });
    expect(parseRoute('/ui/pair/EUR_USD', '?tf=M15&signal=abc')).toEqual({ page: 'pair', instrument: 'EUR_USD', timeframe: 'M15', signalId: 'abc' });
    expect(parseRoute('/ui/activity', '?tab=orders')).toEqual({ page: 'activity', tab: 'orders' });
  });

  it('ignores a timeframe or tab it does not know', () => {
    expect(parseRoute('/ui/pair/eur_usd', '?tf=M2')).toEqual({ page: 'pair', instrument: 'EUR_USD', timeframe: null, signalId: null });
    expect(parseRoute('/ui/activity', '?tab=nope')).toEqual({ page: 'activity', tab: 'signals' });
  });

  it('answers not found for any other path', () => {
    expect(parseRoute('/ui/pair/not-a-pair', '').page).toBe('not_found');
    expect(parseRoute('/ui/settings', '').page).toBe('not_found');
  });

  it('writes each page back to the address it was read from', () => {
    const routes: Route[] = [
      { page: 'desk' },
      { page: 'pair', instrument: 'USD_JPY', timeframe: 'H1', signalId: 'x-1' },
      { page: 'pair', instrument: 'USD_JPY', timeframe: null, signalId: null },
      { page: 'activity', tab: 'signals' },
      { page: 'activity', tab: 'deliveries' },
    ];
    for (const route of routes) {
      if (route.page === 'not_found') continue;
      const url = new URL(routeHref(route), 'http://desk');
      expect(parseRoute(url.pathname, url.search)).toEqual(route);
    }
  });

  it('links a signal to its pair chart on its timeframe', () => {
    expect(signalHref(signal())).toBe('/ui/pair/EUR_USD?tf=M5&signal=6f1c1a52-9c1e-5d3f-8a57-0d5c7e1b2a11');
  });
});
