import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startOanda, type OandaHarness } from './helpers.js';

describe('account service on OANDA v20 (fake server, real adapter)', () => {
  let h: OandaHarness;

  beforeEach(async () => {
    h = await startOanda({ env: { INSTRUMENTS_CACHE_TTL_SECONDS: '60' } });
  });

  afterEach(async () => {
    await h.close();
  });

  it('answers the normalized summary with decimals as strings, asOf and lastTransactionId', async () => {
    const res = await h.get('/api/v1/account/summary');
    expect(res.statusCode).toBe(200);
    expect(res.json().account).toEqual({
      id: '101-004-1435156-001',
      alias: 'fxdesk test',
      currency: 'USD',
      balance: '100000.0000',
      nav: '100000.0000',
      unrealizedPL: '0.0000',
      realizedPL: '0.0000',
      marginUsed: '0.0000',
      marginAvailable: '100000.0000',
      marginRate: '0.02',
      openTradeCount: 0,
      openPositionCount: 0,
      pendingOrderCount: 0,
      lastTransactionId: '1',
      asOf: '2026-01-05T12:00:00.000Z',
    });
  });

  it('persists exactly one snapshot per summary call and names it in the answer', async () => {
    const first = (await h.get('/api/v1/account/summary')).json();
    const second = (await h.get('/api/v1/account/summary')).json();
    const { snapshots } = (await h.get('/api/v1/account/snapshots')).json();
    expect(snapshots.map((s: { id: number }) => s.id)).toEqual([second.snapshot.id, first.snapshot.id]);
    expect(snapshots[0]).toMatchObject({ kind: 'summary', broker: 'oanda', accountId: '101-004-1435156-001', lastTransactionId: '1' });
    expect(snapshots[0].account).toEqual(second.account);
  });

  it('answers details with trades, positions and orders and persists exactly one snapshot', async () => {
    h.fake.account.openTrade({ instrument: 'EUR_USD', units: 10_000, price: '1.08500', stopLoss: '1.08000' });
    h.fake.account.setMark('EUR_USD', 1.0855);
    const res = await h.get('/api/v1/account/details');
    expect(res.statusCode).toBe(200);
    const { account, snapshot } = res.json();
    expect(account.trades).toEqual([
      expect.objectContaining({
        instrument: 'EUR_USD',
        currentUnits: '10000',
        price: '1.08500',
        unrealizedPL: '5.0000',
        stopLoss: '1.08000',
        takeProfit: null,
      }),
    ]);
    expect(account.positions[0]).toMatchObject({ instrument: 'EUR_USD', long: { units: '10000' }, short: { units: '0', averagePrice: null } });
    expect(account.orders).toEqual([expect.objectContaining({ type: 'STOP_LOSS', instrument: 'EUR_USD', units: '-10000', price: '1.08000' })]);
    const { snapshots } = (await h.get('/api/v1/account/snapshots')).json();
    expect(snapshots).toHaveLength(1);
    expect(snapshots[0]).toMatchObject({ id: snapshot.id, kind: 'details' });
    expect(snapshots[0].account.trades).toHaveLength(1);
  });

  it('lists snapshots newest first, 50 by default, as many as limit asks', async () => {
    for (let i = 0; i < 55; i++) await h.get('/api/v1/account/summary');
    const all = (await h.get('/api/v1/account/snapshots')).json().snapshots as { id: number }[];
    expect(all).toHaveLength(50);
    expect(all.map((s) => s.id)).toEqual([...all.map((s) => s.id)].sort((a, b) => b - a));
    expect((await h.get('/api/v1/account/snapshots?limit=3')).json().snapshots).toHaveLength(3);
  });

  it('refuses a snapshot limit above 500 or below 1 with 422', async () => {
    expect((await h.get('/api/v1/account/snapshots?limit=501')).statusCode).toBe(422);
    expect((await h.get('/api/v1/account/snapshots?limit=0')).statusCode).toBe(422);
    expect((await h.get('/api/v1/account/snapshots?limit=500')).statusCode).toBe(200);
  });

  it('narrows snapshots to one endpoint with kind', async () => {
    await h.get('/api/v1/account/summary');
    await h.get('/api/v1/account/details');
    const { snapshots } = (await h.get('/api/v1/account/snapshots?kind=details')).json();
    expect(snapshots.map((s: { kind: string }) => s.kind)).toEqual(['details']);
  });

  it('answers the normalized instruments', async () => {
    const res = await h.get('/api/v1/account/instruments');
    expect(res.statusCode).toBe(200);
    expect(res.json().instruments[0]).toEqual({
      name: 'EUR_USD',
      type: 'CURRENCY',
      displayName: 'EUR/USD',
      pipLocation: -4,
      displayPrecision: 5,
      tradeUnitsPrecision: 0,
      minimumTradeSize: '1',
      maximumOrderUnits: '100000000',
      marginRate: '0.02',
    });
  });

  it('serves instruments from the cache within the TTL, saying so', async () => {
    const first = await h.get('/api/v1/account/instruments');
    h.clock.advance(59_999);
    const second = await h.get('/api/v1/account/instruments');
    expect([first.json().cached, first.headers['x-cache']]).toEqual([false, 'MISS']);
    expect([second.json().cached, second.headers['x-cache']]).toEqual([true, 'HIT']);
    expect(h.fake.requests.filter((r) => r.url.includes('/instruments'))).toHaveLength(1);
  });

  it('asks the broker again once the TTL has passed', async () => {
    await h.get('/api/v1/account/instruments');
    h.clock.advance(60_000);
    const res = await h.get('/api/v1/account/instruments');
    expect(res.json()).toMatchObject({ cached: false, fetchedAt: '2026-01-05T12:01:00.000Z', expiresAt: '2026-01-05T12:02:00.000Z' });
    expect(h.fake.requests.filter((r) => r.url.includes('/instruments'))).toHaveLength(2);
  });

  it('filters instruments by name from the cached list', async () => {
    await h.get('/api/v1/account/instruments');
    const res = await h.get('/api/v1/account/instruments?instruments=XAU_USD,EUR_USD');
    expect(res.json().instruments.map((i: { name: string }) => i.name)).toEqual(['EUR_USD', 'XAU_USD']);
    expect(res.json().cached).toBe(true);
  });

  it('answers 404 instrument_not_found for a name the broker does not list', async () => {
    const res = await h.get('/api/v1/account/instruments?instruments=EUR_USD,ZZZ_USD');
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ code: 'instrument_not_found', message: expect.stringContaining('ZZZ_USD') });
  });

  it('answers what changed since a transaction id and the new lastTransactionId', async () => {
    const since = (await h.get('/api/v1/account/summary')).json().account.lastTransactionId as string;
    const tradeId = h.fake.account.openTrade({ instrument: 'GBP_USD', units: -3000, price: '1.27000' });
    const res = await h.get(`/api/v1/account/changes?sinceTransactionId=${since}`);
    expect(res.statusCode).toBe(200);
    const changes = res.json();
    expect(changes.sinceTransactionId).toBe(since);
    expect(changes.lastTransactionId).toBe(h.fake.account.lastTransactionID);
    expect(changes.tradesOpened).toEqual([expect.objectContaining({ id: tradeId, instrument: 'GBP_USD', currentUnits: '-3000' })]);
    expect(changes.transactions.map((t: { type: string }) => t.type)).toEqual(['MARKET_ORDER', 'ORDER_FILL']);
  });

  it('answers empty changes when polled with the last transaction id', async () => {
    h.fake.account.deposit(100);
    const last = h.fake.account.lastTransactionID;
    const changes = (await h.get(`/api/v1/account/changes?sinceTransactionId=${last}`)).json();
    expect(changes).toMatchObject({ lastTransactionId: last, transactions: [], tradesOpened: [], tradesClosed: [] });
  });

  it('answers 404 transaction_not_found for a transaction id past the last one', async () => {
    const res = await h.get('/api/v1/account/changes?sinceTransactionId=999999');
    expect(res.statusCode).toBe(404);
    expect(res.json().code).toBe('transaction_not_found');
  });

  it('answers 422 when sinceTransactionId is missing', async () => {
    const res = await h.get('/api/v1/account/changes');
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ code: 'validation_error', details: [{ path: 'querystring.sinceTransactionId' }] });
  });

  it('answers 422 when sinceTransactionId is not a transaction id', async () => {
    for (const bad of ['abc', '-1', '1.5', '', '12345678901234567890123']) {
      const res = await h.get(`/api/v1/account/changes?sinceTransactionId=${encodeURIComponent(bad)}`);
      expect(res.statusCode, bad).toBe(422);
    }
  });
});
