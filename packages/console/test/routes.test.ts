import { describe, expect, it } from 'vitest';
import { parseRoute, routeHref, signalHref, type Route } from '../src/routes.js';
import { signal } from './fixtures.js';

describe('routes', () => {
  it('reads the desk, a pair with its timeframe and signal, and an activity tab', () => {
    expect(parseRoute('/ui/', '')).toEqual({ page: 'desk' });
    expect(parseRoute('/ui', '')).toEqual({ page: 'desk' });
    expect(parseRoute('/ui/pair/EUR_USD', '?tf=M15&signal=abc')).toEqual({ page: 'pair', instrument: 'EUR_USD', timeframe: 'M15', signalId: 'abc' });
    expect(parseRoute('/ui/activity', '?tab=orders')).toEqual({ page: 'activity', tab: 'orders' });
    expect(parseRoute('/ui/positions', '')).toEqual({ page: 'positions' });
  });

  it('ignores a timeframe or tab it does not know', () => {
    expect(parseRoute('/ui/pair/eur_usd', '?tf=M2')).toEqual({ page: 'pair', instrument: 'EUR_USD', timeframe: null, signalId: null });
    expect(parseRoute('/ui/activity', '?tab=nope')).toEqual({ page: 'activity', tab: 'signals' });
  });

  it('reads the lab, a backtest with the pair it charts and a sweep with its heat map’s axes', () => {
    expect(parseRoute('/ui/lab', '')).toEqual({ page: 'lab' });
    expect(parseRoute('/ui/lab/backtests/42', '?pair=usd_jpy')).toEqual({ page: 'backtest', id: '42', instrument: 'USD_JPY' });
    expect(parseRoute('/ui/lab/backtests/42', '?pair=nope')).toEqual({ page: 'backtest', id: '42', instrument: null });
    expect(parseRoute('/ui/lab/sweeps/7', '?x=min_confluence&y=risk_reward')).toEqual({ page: 'sweep', id: '7', x: 'min_confluence', y: 'risk_reward' });
    expect(parseRoute('/ui/lab/sweeps/7', '?x=colour')).toEqual({ page: 'sweep', id: '7', x: null, y: null });
    expect(parseRoute('/ui/lab/runs/7', '').page).toBe('not_found');
    expect(parseRoute('/ui/lab/backtests/', '').page).toBe('not_found');
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
      { page: 'positions' },
      { page: 'lab' },
      { page: 'backtest', id: '12', instrument: 'EUR_USD' },
      { page: 'backtest', id: '12', instrument: null },
      { page: 'sweep', id: '3', x: 'supertrend_atr_period', y: 'min_confluence' },
      { page: 'sweep', id: '3', x: null, y: null },
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
