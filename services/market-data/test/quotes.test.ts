import { afterEach, describe, expect, it } from 'vitest';
import { auth, buildTestService, quoteEverySymbol, type TestService } from './helpers.js';

let service: TestService;

afterEach(async () => {
  await service.app.close();
});

describe('GET /v1/market-data/tick', () => {
  it('answers the latest tick of the symbol', async () => {
    service = await buildTestService();
    service.feed.quote('USDJPY', 150.1, 150.112);
    service.clock.advance(250);
    service.feed.quote('USDJPY', 150.102, 150.115);
    const res = await service.app.inject({ method: 'GET', url: '/v1/market-data/tick?symbol=USDJPY', headers: auth });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ symbol: 'USDJPY', bid: 150.102, ask: 150.115, spread: 0.013, ts: '2026-01-05T12:00:00.250Z', provider: 'fake' });
  });

  it('answers 404 no_quote_yet before the first quote of a listed symbol', async () => {
    service = await buildTestService();
    const res = await service.app.inject({ method: 'GET', url: '/v1/market-data/tick?symbol=GBPUSD', headers: auth });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ error: true, code: 'no_quote_yet' });
  });

  it('answers 404 symbol_not_found for a symbol the catalog does not list', async () => {
    service = await buildTestService();
    const res = await service.app.inject({ method: 'GET', url: '/v1/market-data/tick?symbol=EURXYZ', headers: auth });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ error: true, code: 'symbol_not_found' });
  });

  it('answers 422 without a symbol', async () => {
    service = await buildTestService();
    const res = await service.app.inject({ method: 'GET', url: '/v1/market-data/tick', headers: auth });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ code: 'validation_error', details: [{ path: 'querystring.symbol' }] });
  });
});

describe('GET /v1/symbols', () => {
  it('lists the resolved catalog with integer symbolId and digits and a boolean enabled', async () => {
    service = await buildTestService();
    const res = await service.app.inject({ method: 'GET', url: '/v1/symbols', headers: auth });
    expect(res.statusCode).toBe(200);
    const { symbols } = res.json<{ symbols: Record<string, unknown>[] }>();
    expect(symbols).toHaveLength(4);
    expect(symbols[0]).toEqual({ symbol: 'EURUSD', symbolId: 1, digits: 5, enabled: true, description: 'Euro vs US Dollar' });
    expect(symbols[3]).toMatchObject({ symbol: 'XAUUSD', symbolId: 41, digits: 2, enabled: false });
  });

  it('subscribes to the enabled symbols only', async () => {
    service = await buildTestService();
    expect([...service.feed.subscribed].sort()).toEqual(['EURUSD', 'GBPUSD', 'USDJPY']);
  });

  it('answers 503 broker_unavailable until a connection has loaded the catalog', async () => {
    service = await buildTestService({ prepare: (feed) => (feed.failConnects = 1) });
    const res = await service.app.inject({ method: 'GET', url: '/v1/symbols', headers: auth });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({ error: true, code: 'broker_unavailable' });
    await service.clock.advanceAsync(1000);
    expect((await service.app.inject({ method: 'GET', url: '/v1/symbols', headers: auth })).statusCode).toBe(200);
  });
});

describe('authentication', () => {
  for (const url of ['/v1/symbols', '/v1/market-data/tick?symbol=EURUSD', '/v1/market-data/candles?symbol=EURUSD', '/v1/stream/ticks']) {
    it(`answers 401 on ${url.split('?')[0]} without the key and with a wrong one`, async () => {
      service = await buildTestService();
      for (const headers of [{}, { 'x-api-key': 'wrong-key-123' }]) {
        const res = await service.app.inject({ method: 'GET', url, headers });
        expect(res.statusCode).toBe(401);
        expect(res.json()).toMatchObject({ error: true, code: 'unauthorized' });
      }
    });
  }

  it('needs no key on the health routes', async () => {
    service = await buildTestService();
    quoteEverySymbol(service.feed);
    expect((await service.app.inject({ method: 'GET', url: '/health/live' })).statusCode).toBe(200);
    expect((await service.app.inject({ method: 'GET', url: '/health/ready' })).statusCode).toBe(200);
  });
});
