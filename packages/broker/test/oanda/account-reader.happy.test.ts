import { ManualClock } from '@fxdesk/primitives';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OANDA_HOSTS, oandaBaseUrl, OandaAccountReader } from '../../src/oanda/index.js';
import { FakeV20Server } from './fake-v20-server.js';

describe('OandaAccountReader against the fake v20 server', () => {
  let fake: FakeV20Server;
  let clock: ManualClock;
  let reader: OandaAccountReader;

  beforeEach(async () => {
    clock = new ManualClock('2026-01-05T12:00:00Z');
    fake = await FakeV20Server.start({ now: () => new Date(clock.now()) });
    reader = new OandaAccountReader({ token: fake.token, accountId: fake.account.id, baseUrl: fake.baseUrl, timeoutMs: 30_000, clock });
  });

  afterEach(async () => {
    await reader.close();
    await fake.close();
  });

  it('reads the summary with the decimals exactly as OANDA wrote them', async () => {
    const summary = await reader.summary();
    expect(summary).toMatchObject({
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
      lastTransactionId: '1',
    });
  });

  it('stamps asOf with the injected clock', async () => {
    expect((await reader.summary()).asOf).toBe('2026-01-05T12:00:00.000Z');
  });

  it('sends the bearer token and asks for RFC 3339 date-times on every call', async () => {
    await reader.summary();
    await reader.instruments();
    for (const request of fake.requests) {
      expect(request.headers.authorization).toBe(`Bearer ${fake.token}`);
      expect(request.headers['accept-datetime-format']).toBe('RFC3339');
    }
  });

  it('calls the documented account paths', async () => {
    await reader.summary();
    await reader.details();
    await reader.instruments(['EUR_USD']);
    await reader.changesSince('1');
    expect(fake.requests.map((r) => r.url)).toEqual([
      '/v3/accounts/101-004-1435156-001/summary',
      '/v3/accounts/101-004-1435156-001',
      '/v3/accounts/101-004-1435156-001/instruments?instruments=EUR_USD',
      '/v3/accounts/101-004-1435156-001/changes?sinceTransactionID=1',
    ]);
  });

  it('reuses keep-alive connections instead of opening one per call', async () => {
    for (let i = 0; i < 10; i++) await reader.summary();
    expect(fake.connections).toBeLessThanOrEqual(2);
  });

  it('reads details with open trades, their exit prices, positions and pending orders', async () => {
    const tradeId = fake.account.openTrade({ instrument: 'EUR_USD', units: 10_000, price: '1.08500', stopLoss: '1.08000', takeProfit: '1.09500' });
    fake.account.placeLimitOrder({ instrument: 'USD_JPY', units: -5000, price: '158.250' });
    fake.account.setMark('EUR_USD', 1.086);
    const details = await reader.details();
    expect(details.openTradeCount).toBe(1);
    expect(details.trades).toEqual([
      {
        id: tradeId,
        instrument: 'EUR_USD',
        currentUnits: '10000',
        initialUnits: '10000',
        price: '1.08500',
        openTime: '2026-01-05T12:00:00.000Z',
        unrealizedPL: '10.0000',
        stopLoss: '1.08000',
        takeProfit: '1.09500',
      },
    ]);
    expect(details.positions[0]).toMatchObject({ instrument: 'EUR_USD', long: { units: '10000', averagePrice: '1.08500', tradeIds: [tradeId] } });
    expect(details.orders.map((o) => [o.type, o.instrument, o.units, o.price])).toEqual([
      ['TAKE_PROFIT', 'EUR_USD', '-10000', '1.09500'],
      ['STOP_LOSS', 'EUR_USD', '-10000', '1.08000'],
      ['LIMIT', 'USD_JPY', '-5000', '158.250'],
    ]);
  });

  it('leaves flat positions out of the details', async () => {
    const tradeId = fake.account.openTrade({ instrument: 'EUR_USD', units: 1000, price: '1.08500' });
    fake.account.openTrade({ instrument: 'USD_JPY', units: 1000, price: '158.100' });
    fake.account.closeTrade(tradeId, '1.08600');
    const details = await reader.details();
    expect(details.positions.map((p) => p.instrument)).toEqual(['USD_JPY']);
    expect(details.openPositionCount).toBe(1);
  });

  it('writes OANDA nanosecond date-times as ISO 8601 with milliseconds', async () => {
    clock.set('2026-01-05T12:34:56.789Z');
    fake.account.placeLimitOrder({ instrument: 'EUR_USD', units: 1000, price: '1.07000' });
    const details = await reader.details();
    expect(details.orders[0]?.createTime).toBe('2026-01-05T12:34:56.789Z');
  });

  it('lists every tradable instrument with its metadata', async () => {
    const instruments = await reader.instruments();
    expect(instruments.map((i) => i.name)).toEqual(['EUR_USD', 'USD_JPY', 'GBP_USD', 'XAU_USD', 'DE30_EUR']);
    expect(instruments[0]).toEqual({
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

  it('asks OANDA for only the named instruments', async () => {
    const instruments = await reader.instruments(['XAU_USD', 'EUR_USD']);
    expect(instruments.map((i) => i.name).sort()).toEqual(['EUR_USD', 'XAU_USD']);
    expect(fake.requests.at(-1)?.url).toContain('instruments=XAU_USD%2CEUR_USD');
  });

  it('reports the trades opened and closed and the transactions after a transaction id', async () => {
    const since = fake.account.lastTransactionID;
    const first = fake.account.openTrade({ instrument: 'EUR_USD', units: 1000, price: '1.08500' });
    const second = fake.account.openTrade({ instrument: 'GBP_USD', units: -2000, price: '1.27000' });
    fake.account.closeTrade(first, '1.08700');
    const changes = await reader.changesSince(since);
    expect(changes.sinceTransactionId).toBe(since);
    expect(changes.lastTransactionId).toBe(fake.account.lastTransactionID);
    expect(changes.tradesOpened.map((t) => t.id)).toEqual([second]);
    expect(changes.tradesClosed.map((t) => [t.id, t.currentUnits])).toEqual([[first, '0']]);
    expect(changes.transactions.map((t) => t.type)).toEqual(['MARKET_ORDER', 'ORDER_FILL', 'MARKET_ORDER', 'ORDER_FILL', 'MARKET_ORDER', 'ORDER_FILL']);
    expect(changes.transactions.at(-1)).toMatchObject({ instrument: 'EUR_USD', units: '-1000', price: '1.08700', pl: '2.0000', accountBalance: '100002.0000' });
    expect(changes.state).toMatchObject({ nav: '100002.0000', unrealizedPL: '0.0000' });
  });

  it('reports nothing changed since the last transaction id', async () => {
    const changes = await reader.changesSince(fake.account.lastTransactionID);
    expect(changes.transactions).toEqual([]);
    expect(changes.tradesOpened).toEqual([]);
    expect(changes.lastTransactionId).toBe(fake.account.lastTransactionID);
  });

  it('keeps a funding transaction with its reason and balance', async () => {
    const since = fake.account.lastTransactionID;
    fake.account.deposit(2500);
    const [transfer] = (await reader.changesSince(since)).transactions;
    expect(transfer).toMatchObject({ type: 'TRANSFER_FUNDS', reason: 'CLIENT_FUNDING', accountBalance: '102500.0000', instrument: null });
  });
});

describe('OANDA hosts', () => {
  it('uses the documented practice and live hosts', () => {
    expect(oandaBaseUrl('practice')).toBe('https://api-fxpractice.oanda.com');
    expect(oandaBaseUrl('live')).toBe('https://api-fxtrade.oanda.com');
  });

  it('lets a base URL override the environment host', () => {
    expect(oandaBaseUrl('live', 'http://127.0.0.1:9999')).toBe('http://127.0.0.1:9999');
    expect(OANDA_HOSTS.live).not.toBe('http://127.0.0.1:9999');
  });
});
