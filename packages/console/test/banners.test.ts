import { describe, expect, it } from 'vitest';
import { bannersOf, noSignalText } from '../src/banners.js';
import { deskReducer, initialDeskState, type DeskState } from '../src/desk-state.js';
import { serviceView } from '../src/service-health.js';
import { downstream, health, NOW, pair, services, status } from './fixtures.js';

function desk(overrides: Partial<DeskState> = {}): DeskState {
  const state = deskReducer(initialDeskState, { type: 'snapshot', status: status(), pairs: [pair('EUR_USD')], signals: [], profiles: {}, at: NOW });
  return { ...state, services: services(), connection: 'live', ...overrides };
}

describe('the load banner', () => {
  it('counts down to the next read by itself and says the desk shown is the last whole one', () => {
    const failed = desk({ loadError: { message: 'the strategy service asked the console to slow down (429)', retryAt: NOW + 51_000 } });
    const at = (ms: number) => bannersOf(failed, ms).find((b) => b.id === 'load');
    expect(at(NOW)?.text).toContain('Reading it again in 51 s.');
    expect(at(NOW + 50_000)?.text).toContain('Reading it again in 1 s.');
    expect(at(NOW + 51_000)?.text).toContain('Reading it again now.');
    expect(at(NOW)).toMatchObject({ level: 'warning', title: 'The desk could not be read again' });
    expect(at(NOW)?.text).toContain('Showing the desk as read at');
  });

  it('is an error, with nothing shown, before any whole snapshot', () => {
    const failed = { ...initialDeskState, loadError: { message: 'not answering', retryAt: NOW + 5000 } };
    expect(bannersOf(failed, NOW).find((b) => b.id === 'load')).toMatchObject({ level: 'error', title: 'The desk could not be read' });
  });
});

describe('service states', () => {
  it('calls a service down when the strategy’s last call to it failed, with its error', () => {
    const view = serviceView('market_data', downstream('failing', 'connection refused'), health());
    expect(view).toMatchObject({ state: 'down', detail: 'connection refused' });
  });

  it('calls it down when its readiness could not be read, and not ready when it answered not ready', () => {
    expect(serviceView('account', downstream(), health({ reachable: false, ready: false, error: 'timed out after 2000 ms' }))).toMatchObject({
      state: 'down',
      detail: 'timed out after 2000 ms',
    });
    const checks = { terminal: { ok: true, detail: 'connected' }, trading_enabled: { ok: false, detail: 'TRADING_ENABLED=false' } };
    expect(serviceView('execution', downstream(), health({ ready: false, checks }))).toMatchObject({
      state: 'degraded',
      detail: 'trading enabled: TRADING_ENABLED=false',
    });
  });

  it('says what it means when a service is not configured', () => {
    expect(serviceView('account', downstream('not_configured'), health({ configured: false }))).toMatchObject({ state: 'not_configured' });
  });
});

describe('banners', () => {
  it('shows none on a healthy desk', () => {
    expect(bannersOf(desk(), NOW)).toEqual([]);
  });

  it('names a service that is down, what stops and what still works', () => {
    const state = desk();
    const down = deskReducer(state, { type: 'downstream', event: { service: 'market_data', state: downstream('failing', 'connection refused') }, at: NOW });
    const [banner] = bannersOf(down, NOW);
    expect(banner).toMatchObject({ id: 'market_data', level: 'error', title: 'Market data service is down' });
    expect(banner?.text).toContain('connection refused');
    expect(banner?.text).toContain('Still working: The charts up to the last candle');
  });

  it('says the strategy is not answering while the stream reconnects, and since when', () => {
    const [banner] = bannersOf(desk({ connection: 'reconnecting', updatedAt: Date.parse('2026-01-07T12:30:00Z') }), NOW);
    expect(banner).toMatchObject({ id: 'strategy', level: 'error' });
    expect(banner?.text).toContain('12:30:00 UTC');
  });

  it('says the market is closed when the market-data service says so', () => {
    const closed = services({ market_data: health({ checks: { ticks: { ok: true, detail: 'market closed; quotes resume at the open' } } }) });
    expect(bannersOf(desk({ services: closed }), NOW).map((b) => b.id)).toEqual(['market']);
  });

  it('says the market is closed when every pair went stale in the FX weekend', () => {
    const saturday = Date.parse('2026-01-10T12:00:00Z');
    const stale = deskReducer(desk(), { type: 'pair', pair: pair('EUR_USD', { status: 'stale' }), at: saturday });
    const [banner] = bannersOf(stale, saturday);
    expect(banner).toMatchObject({ id: 'market', level: 'info' });
    expect(banner?.text).toContain('in 1 d 10 h');
    expect(bannersOf(stale, NOW)).toEqual([]);
  });
});

describe('the empty signal list', () => {
  it('says when the next candle of the timeframe closes while the market trades', () => {
    // NOW is Wednesday 12:33:20 UTC; the strategy decides on M5.
    expect(noSignalText(desk(), NOW)).toBe('No signal yet: the next M5 candle closes at 12:35 UTC.');
  });

  it('says the strategy is stopped when it is', () => {
    const stopped = desk();
    expect(noSignalText({ ...stopped, status: { ...stopped.status!, running: false } }, NOW)).toBe('No signal yet: the strategy is stopped.');
  });

  it('points past the weekend while the market is closed: the first candle after the open', () => {
    const closed = services({ market_data: health({ checks: { ticks: { ok: true, detail: 'market closed; quotes resume at the open' } } }) });
    const saturday = Date.parse('2026-01-10T05:19:00Z');
    expect(noSignalText(desk({ services: closed }), saturday)).toBe(
      'No signal yet: the market is closed; the first M5 candle after the open closes Sunday at 22:05 UTC.',
    );
    const h4 = desk({ services: closed });
    expect(noSignalText({ ...h4, status: { ...h4.status!, timeframe: 'H4' } }, saturday)).toBe(
      'No signal yet: the market is closed; the first H4 candle after the open closes Monday at 00:00 UTC.',
    );
  });
});
