import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SimulatedMarket } from '@fxdesk/broker';
import { MarketDataClient } from '@fxdesk/client';
import { ManualClock } from '@fxdesk/primitives';
import { TIMEFRAME_SECONDS, type Timeframe } from '@fxdesk/schemas';
import { afterEach, describe, expect, it } from 'vitest';
import { MarketDataSource } from '../src/market-data-source.js';
import { harness, MONDAY_NOON, type Harness } from './helpers.js';

/**
 * A stand-in for the market-data service (spec 002 C) over real HTTP: the catalog, closed
 * candles stamped with the END of their interval (from the same simulated market), and a tick
 * stream the test writes to.
 */
async function fakeMarketData(market: SimulatedMarket) {
  const streams = new Set<http.ServerResponse>();
  const headers: http.IncomingHttpHeaders[] = [];
  let nextId = 1;
  const server = http.createServer((req, res) => {
    headers.push(req.headers);
    const url = new URL(req.url ?? '/', 'http://x');
    const json = (body: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (url.pathname === '/v1/symbols') {
      // One symbol is in the catalog but not streamed.
      return json({
        symbols: market
          .symbols()
          .map((s) => ({ symbol: s.symbol, symbolId: s.symbolId, digits: s.digits, enabled: s.symbol !== 'EURCHF', description: s.description })),
      });
    }
    if (url.pathname === '/v1/market-data/candles') {
      const timeframe = url.searchParams.get('timeframe') as Timeframe;
      const count = Number(url.searchParams.get('count'));
      const digits = market.spec(url.searchParams.get('symbol')!)!.digits;
      const bars = market
        .bars(url.searchParams.get('symbol')!, timeframe, count + 1)
        .filter((b) => b.closed)
        .slice(-count);
      return json({
        symbol: url.searchParams.get('symbol'),
        timeframe,
        candles: bars.map((b) => ({
          ts: new Date((b.time + TIMEFRAME_SECONDS[timeframe]) * 1000).toISOString(),
          open: b.open,
          high: b.high,
          low: b.low,
          close: b.close,
          volume: b.tickVolume,
          provider: 'simulated',
          source_instrument: url.searchParams.get('symbol'),
          // As the service writes it: the bar's spread in price units, to the symbol's digits.
          spread: b.spread === null ? null : Number((b.spread / 10 ** digits).toFixed(digits)),
          spread_source: b.spread === null ? null : 'provider_bar',
        })),
      });
    }
    if (url.pathname === '/v1/stream/ticks') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`retry: 1000\n\nevent: status\nid: ${nextId++}\ndata: {"state":"connected","dropped":0,"ts":"2026-01-05T12:00:00.000Z"}\n\n`);
      streams.add(res);
      res.on('close', () => streams.delete(res));
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    headers,
    get openStreams() {
      return streams.size;
    },
    tick(symbol: string, bid: number, ask: number, ts: string) {
      const data = JSON.stringify({ symbol, bid, ask, spread: Number((ask - bid).toFixed(5)), ts, provider: 'simulated' });
      for (const res of streams) res.write(`event: tick\nid: ${nextId++}\ndata: ${data}\n\n`);
    },
    dropStreams() {
      for (const res of streams) res.destroy();
    },
    /** Ends every stream cleanly, as the service does when it shuts down. */
    endStreams() {
      for (const res of streams) res.end();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Waits (on I/O turns, not on a clock) until `check` holds. */
async function eventually(check: () => boolean | Promise<boolean>, turns = 400): Promise<void> {
  for (let i = 0; i < turns; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error('condition not met');
}

let cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.reverse()) await c();
  cleanups = [];
});

async function overMarketData(clock: ManualClock): Promise<{ h: Harness; service: Awaited<ReturnType<typeof fakeMarketData>> }> {
  const market = new SimulatedMarket({ seed: 'strategy-tests', tickIntervalMs: 10_000, marketHours: false, clock });
  const service = await fakeMarketData(market);
  const client = new MarketDataClient({ baseUrl: service.url, apiKey: 'md-key-123', timeoutMs: 2000 });
  const h = await harness({ clock, deps: { source: new MarketDataSource(client, clock) } });
  cleanups.push(service.close, () => h.close());
  return { h, service };
}

const pairs = async (h: Harness) => (await h.app.inject({ url: '/pairs' })).json().pairs;
const status = async (h: Harness) => (await h.app.inject({ url: '/status' })).json();

describe('prices from the market-data service (MARKET_DATA_URL)', () => {
  it('warms up from its candles (ts = interval end) to exactly the indicators the in-process market gives', async () => {
    const clock = new ManualClock(MONDAY_NOON);
    const { h, service } = await overMarketData(clock);
    const local = await harness({ clock });
    cleanups.push(() => local.close());
    for (const desk of [h, local]) await desk.app.inject({ method: 'POST', url: '/start', payload: { instruments: ['EUR_USD', 'USD_JPY'] } });
    await h.settle();
    await local.settle();
    const strip = (list: { current_price: unknown; last_data_at: unknown }[]) => list.map(({ current_price: _p, last_data_at: _d, ...rest }) => rest);
    expect(strip(await pairs(h))).toEqual(strip(await pairs(local)));
    expect((await pairs(h))[0].last_candle_time).toBe('2026-01-05T11:55:00.000Z');
    expect(service.headers.every((hd) => hd['x-api-key'] === 'md-key-123')).toBe(true);
  });

  it('takes current_price from the tick stream (the mid of bid and ask)', async () => {
    const clock = new ManualClock(MONDAY_NOON);
    const { h, service } = await overMarketData(clock);
    await h.app.inject({ method: 'POST', url: '/start', payload: { instruments: ['EUR_USD'] } });
    await h.settle();
    await eventually(() => service.openStreams === 1);
    service.tick('EURUSD', 1.2345, 1.2347, '2026-01-05T12:00:01.000Z');
    await eventually(async () => (await pairs(h))[0].current_price === 1.2346);
    expect((await status(h)).downstream.market_data).toMatchObject({ configured: true, state: 'ok' });
  });

  it('shows market_data failing while the stream is down, reconnects after the retry delay, and is ok again', async () => {
    const clock = new ManualClock(MONDAY_NOON);
    const { h, service } = await overMarketData(clock);
    await h.app.inject({ method: 'POST', url: '/start', payload: { instruments: ['EUR_USD'] } });
    await h.settle();
    await eventually(() => service.openStreams === 1);
    service.dropStreams();
    await eventually(async () => (await status(h)).downstream.market_data.state === 'failing');
    expect((await status(h)).running).toBe(true);
    clock.advance(1000);
    await eventually(() => service.openStreams === 1);
    await eventually(async () => (await status(h)).downstream.market_data.state === 'ok');
  });

  it('takes a stream the service ends cleanly (a restart) for no failure when the reconnection succeeds', async () => {
    const clock = new ManualClock(MONDAY_NOON);
    const { h, service } = await overMarketData(clock);
    await h.app.inject({ method: 'POST', url: '/start', payload: { instruments: ['EUR_USD'] } });
    await h.settle();
    await eventually(() => service.openStreams === 1);
    service.endStreams();
    await eventually(() => service.openStreams === 0);
    await h.settle();
    expect((await status(h)).downstream.market_data).toMatchObject({ state: 'ok', consecutive_failures: 0 });
    await eventually(() => {
      clock.advance(1000);
      return service.openStreams === 1;
    });
    expect((await status(h)).downstream.market_data).toMatchObject({ state: 'ok', consecutive_failures: 0 });
  });

  it('shows market_data failing when the service that ended its stream does not take the reconnection', async () => {
    const clock = new ManualClock(MONDAY_NOON);
    const { h, service } = await overMarketData(clock);
    await h.app.inject({ method: 'POST', url: '/start', payload: { instruments: ['EUR_USD'] } });
    await h.settle();
    await eventually(() => service.openStreams === 1);
    service.endStreams();
    await service.close();
    // The reconnection is due a second after the client has seen the end; time moves until it is refused.
    await eventually(async () => {
      clock.advance(1000);
      return (await status(h)).downstream.market_data.state === 'failing';
    });
  });

  it('refuses to start on a symbol the service lists but does not stream (enabled: false)', async () => {
    const { h } = await overMarketData(new ManualClock(MONDAY_NOON));
    const res = await h.app.inject({ method: 'POST', url: '/start', payload: { instruments: ['EUR_USD', 'EUR_CHF'] } });
    expect(res.statusCode).toBe(422);
    expect(res.json().details).toEqual([{ path: 'body.instruments.1', message: expect.stringContaining('EUR_CHF') }]);
  });

  it('closes the stream when the strategy stops', async () => {
    const clock = new ManualClock(MONDAY_NOON);
    const { h, service } = await overMarketData(clock);
    await h.app.inject({ method: 'POST', url: '/start', payload: { instruments: ['EUR_USD'] } });
    await eventually(() => service.openStreams === 1);
    await h.app.inject({ method: 'POST', url: '/stop' });
    await eventually(() => service.openStreams === 0);
  });
});
