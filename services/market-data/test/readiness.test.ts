import { afterEach, describe, expect, it } from 'vitest';
import { FAKE_SYMBOLS } from './fake-feed.js';
import { buildTestService, quoteEverySymbol, ready, type TestService } from './helpers.js';

let service: TestService | undefined;

afterEach(async () => {
  await service?.app.close();
  service = undefined;
});

describe('readiness before every served symbol has quoted', () => {
  it('answers 503 naming the symbols with no quote yet while their market is open', async () => {
    service = await buildTestService();
    service.feed.quote('EURUSD', 1.085, 1.0851);
    const { status, body } = await ready(service);
    expect(status).toBe(503);
    expect(body.checks.ticks).toEqual({ ok: false, detail: 'no quote yet of 2 of 3 symbols while their market is open: GBPUSD, USDJPY' });
    expect(body.checks.broker?.ok).toBe(true);
  });

  it('is ready once every served symbol has quoted, disabled symbols not awaited', async () => {
    service = await buildTestService();
    service.feed.quote('EURUSD', 1.085, 1.0851);
    service.feed.quote('GBPUSD', 1.27, 1.2702);
    expect((await ready(service)).status).toBe(503);
    service.feed.quote('USDJPY', 150.1, 150.112);
    expect((await ready(service)).status).toBe(200);
  });

  it('stays ready while a symbol with no quote yet has its own market closed, and names it', async () => {
    service = await buildTestService({ prepare: (feed) => feed.closedSymbols.add('USDJPY') });
    service.feed.quote('EURUSD', 1.085, 1.0851);
    service.feed.quote('GBPUSD', 1.27, 1.2702);
    const { status, body } = await ready(service);
    expect(status).toBe(200);
    expect(body.checks.ticks).toEqual({
      ok: true,
      detail: 'last quote 0 s ago (limit 30 s); no quotes received yet of 1 of 3 symbols, their market closed: USDJPY',
    });
  });

  it('names at most ten of the symbols it waits for', async () => {
    const catalog = Array.from({ length: 12 }, (_, i) => ({ ...FAKE_SYMBOLS[0]!, symbolId: 100 + i, name: `SYM${String(i + 1).padStart(2, '0')}` }));
    service = await buildTestService({ prepare: (feed) => (feed.catalog = catalog) });
    const { body } = await ready(service);
    expect(body.checks.ticks?.detail).toBe(
      'no quote yet of 12 of 12 symbols while their market is open: SYM01, SYM02, SYM03, SYM04, SYM05, SYM06, SYM07, SYM08, SYM09, SYM10 and 2 more',
    );
  });

  it('answers 503 while connected but the symbol catalog is not loaded yet', async () => {
    service = await buildTestService({ prepare: (feed) => (feed.failSymbols = 1) });
    const { status, body } = await ready(service);
    expect(status).toBe(503);
    expect(body.checks.ticks).toEqual({ ok: false, detail: 'the symbol catalog is not loaded yet, so nothing is subscribed' });
  });

  it('answers 503 when the catalog leaves no symbol to serve', async () => {
    service = await buildTestService({ config: { SYMBOLS: 'XAUUSD' } });
    const { status, body } = await ready(service);
    expect(status).toBe(503);
    expect(body.checks.ticks).toEqual({ ok: false, detail: 'no symbol to serve: the catalog lists no enabled symbol, or none that SYMBOLS names' });
  });
});

describe('staleness', () => {
  it('does not count the time the market is closed', async () => {
    service = await buildTestService({ config: { TICK_STALENESS_SECONDS: '30' } });
    quoteEverySymbol(service.feed);
    service.clock.advance(1000);
    service.feed.marketOpen = false;
    service.clock.advance(2 * 86_400_000);
    expect((await ready(service)).status).toBe(200);
    // The open is noticed at the next once-a-second check, and silence counts from there.
    service.feed.marketOpen = true;
    service.clock.advance(30_000);
    expect((await ready(service)).status).toBe(200);
    service.clock.advance(2000);
    expect((await ready(service)).status).toBe(503);
  });

  it('makes a feed that never quotes while the market is open stale once the limit has passed since connecting', async () => {
    service = await buildTestService({ config: { TICK_STALENESS_SECONDS: '30' } });
    service.clock.advance(30_000);
    expect((await ready(service)).body.checks.ticks).toEqual({
      ok: false,
      detail: 'no quote yet of 3 of 3 symbols while their market is open: EURUSD, GBPUSD, USDJPY',
    });
    service.clock.advance(1000);
    const { status, body } = await ready(service);
    expect(status).toBe(503);
    expect(body.checks.ticks?.detail).toMatch(/^no quote in 31 s since connecting while the market is open/);
  });

  it('is ready again as soon as quotes resume', async () => {
    service = await buildTestService({ config: { TICK_STALENESS_SECONDS: '30' } });
    quoteEverySymbol(service.feed);
    service.clock.advance(60_000);
    expect((await ready(service)).status).toBe(503);
    service.feed.quote('EURUSD', 1.086, 1.0861);
    expect((await ready(service)).status).toBe(200);
  });
});

describe('GET /health/live', () => {
  it('answers 200 even with no broker session', async () => {
    service = await buildTestService({ prepare: (feed) => (feed.failConnects = 100) });
    const res = await service.app.inject({ method: 'GET', url: '/health/live' });
    expect(res.statusCode).toBe(200);
  });
});
