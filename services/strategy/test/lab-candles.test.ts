import { SimulatedFeed, SimulatedMarket, WorkSlicer } from '@fxdesk/broker';
import { MarketDataClient } from '@fxdesk/client';
import { loadConfig } from '@fxdesk/core';
import { ManualClock } from '@fxdesk/primitives';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../market-data/src/app.js';
import { MarketDataConfigSchema } from '../../market-data/src/config.js';
import { MarketDataLabHistory, SimulatedLabHistory } from '../src/lab/candles.js';
import type { LabCandle } from '../src/lab/types.js';

/** Wednesday 2026-01-14 15:42:10 UTC; the week before holds a weekend. */
const NOW = Date.UTC(2026, 0, 14, 15, 42, 10);
const SEED = 'lab-candles';
const sec = (iso: string) => Date.parse(iso) / 1000;

function simulatedMarket(at = NOW): SimulatedMarket {
  return new SimulatedMarket({ seed: SEED, tickIntervalMs: 5000, marketHours: true, clock: new ManualClock(at) });
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** The market-data service on its simulated feed (same seed), listening on loopback, and a client of it. */
async function marketDataClient(maxCandles: number): Promise<MarketDataClient> {
  const market = simulatedMarket();
  const feed = new SimulatedFeed({ market });
  const config = loadConfig(MarketDataConfigSchema, {
    API_KEY: 'lab-candles-key',
    LOG_LEVEL: 'silent',
    RATE_LIMIT_PER_MINUTE: '0',
    MAX_CANDLES: String(maxCandles),
  });
  const { app } = await buildApp({ config, deps: { clock: market.clock, feed, close: () => feed.close() } });
  const client = new MarketDataClient({ baseUrl: await app.listen({ host: '127.0.0.1', port: 0 }), apiKey: 'lab-candles-key' });
  closers.push(async () => {
    await client.close();
    await app.close();
    await feed.close();
    market.stop();
  });
  return client;
}

describe('SimulatedLabHistory', () => {
  it('loads the same candles every time, and from another market on the same seed at another time', async () => {
    const history = new SimulatedLabHistory(simulatedMarket());
    const range = [sec('2026-01-05T00:00:00Z'), sec('2026-01-10T00:00:00Z')] as const;
    const first = await history.candles('EURUSD', 'M15', ...range);
    expect(first).toHaveLength(5 * 96 - 2 * 4);
    expect(await history.candles('EURUSD', 'M15', ...range)).toEqual(first);
    const later = new SimulatedLabHistory(simulatedMarket(Date.UTC(2027, 3, 1)));
    expect(await later.candles('EURUSD', 'M15', ...range)).toEqual(first);
  });

  it('takes the candles opening at or after from and before to, from the first whole period on', async () => {
    const history = new SimulatedLabHistory(simulatedMarket());
    const from = sec('2026-01-13T09:00:00Z');
    const to = sec('2026-01-13T10:00:00Z');
    const times = (await history.candles('GBPUSD', 'M5', from, to)).map((c) => c.time);
    expect(times).toEqual(Array.from({ length: 12 }, (_, i) => from + i * 300));
    expect((await history.candles('GBPUSD', 'M5', from + 1, to + 1)).map((c) => c.time)).toEqual([...times.slice(1), to]);
    expect(await history.candles('GBPUSD', 'M5', to, to)).toEqual([]);
  });

  it('has no candle over the weekend', async () => {
    const history = new SimulatedLabHistory(simulatedMarket());
    const candles = await history.candles('USDJPY', 'H1', sec('2026-01-09T20:00:00Z'), sec('2026-01-12T00:00:00Z'));
    expect(candles.map((c) => new Date(c.time * 1000).toISOString())).toEqual([
      '2026-01-09T20:00:00.000Z',
      '2026-01-09T21:00:00.000Z',
      '2026-01-11T22:00:00.000Z',
      '2026-01-11T23:00:00.000Z',
    ]);
  });

  it('leaves out the candle still forming', async () => {
    const history = new SimulatedLabHistory(simulatedMarket());
    const candles = await history.candles('EURUSD', 'H1', sec('2026-01-14T12:00:00Z'), sec('2026-01-15T00:00:00Z'));
    expect(candles.at(-1)!.time).toBe(sec('2026-01-14T14:00:00Z'));
  });

  it("gives each candle the bar's spread in price units, and its mid: the bar's bid plus half that spread", async () => {
    const market = simulatedMarket();
    const [candle] = await new SimulatedLabHistory(market).candles('USDJPY', 'M30', sec('2026-01-13T09:00:00Z'), sec('2026-01-13T09:30:00Z'));
    const [bar] = market.barsBetween('USDJPY', 'M30', Date.UTC(2026, 0, 13, 9), Date.UTC(2026, 0, 13, 9, 30));
    const half = bar!.spread! / 2000;
    expect(candle).toEqual({
      time: bar!.time,
      open: expect.closeTo(bar!.open + half, 9),
      high: expect.closeTo(bar!.high + half, 9),
      low: expect.closeTo(bar!.low + half, 9),
      close: expect.closeTo(bar!.close + half, 9),
      volume: bar!.tickVolume,
      spread: bar!.spread! / 1000,
    });
    expect(candle!.spread).toBeGreaterThan(0);
  });

  it('builds a long range page by page, reporting progress up to 1, to the candles of one build', async () => {
    const market = simulatedMarket();
    const progress: number[] = [];
    const [from, to] = [sec('2025-12-29T00:00:00Z'), sec('2026-01-12T00:00:00Z')];
    const candles = await new SimulatedLabHistory(market).candles('EURGBP', 'M1', from, to, (f) => progress.push(f));
    expect(candles.length).toBeGreaterThan(10_000);
    expect(candles).toEqual(
      market
        .barsBetween('EURGBP', 'M1', from * 1000, to * 1000, 100_000)
        .map((b) => expect.objectContaining({ time: b.time, close: expect.closeTo(b.close + b.spread! / 2e5, 9) })),
    );
    expect(progress.length).toBeGreaterThan(1);
    expect(progress.at(-1)).toBe(1);
    expect([...progress].sort((a, b) => a - b)).toEqual(progress);
  });

  it('lets the event loop turn while it builds three years of D1, to the candles of one build', async () => {
    let readings = 0;
    // A slice of ten steps (bars), whatever the machine.
    const slicer = new WorkSlicer({ sliceMs: 10, now: () => readings++ });
    const market = new SimulatedMarket({ seed: SEED, tickIntervalMs: 5000, marketHours: true, clock: new ManualClock(NOW), slicer });
    const [from, to] = [sec('2023-01-01T00:00:00Z'), sec('2026-01-01T00:00:00Z')];
    let turns = 0;
    let isLoading = true;
    const turn = () => {
      turns++;
      if (isLoading) setImmediate(turn);
    };
    setImmediate(turn);
    const candles = await new SimulatedLabHistory(market).candles('EURUSD', 'D1', from, to);
    isLoading = false;
    const bars = simulatedMarket().barsBetween('EURUSD', 'D1', from * 1000, to * 1000);
    expect(candles).toEqual(
      bars.map((b) => {
        const half = b.spread! / 2e5;
        return expect.objectContaining({
          time: b.time,
          open: expect.closeTo(b.open + half, 9),
          close: expect.closeTo(b.close + half, 9),
          volume: b.tickVolume,
        });
      }),
    );
    expect(candles.length).toBeGreaterThan(750);
    expect(turns).toBeGreaterThan(50);
  }, 120_000);

  it('lists every symbol of the market with its digits', async () => {
    const catalog = await new SimulatedLabHistory(simulatedMarket()).catalog();
    expect(catalog).toContainEqual({ symbol: 'EURUSD', digits: 5 });
    expect(catalog).toContainEqual({ symbol: 'USDJPY', digits: 3 });
  });
});

describe('MarketDataLabHistory', () => {
  const range = [sec('2026-01-07T10:00:00Z'), sec('2026-01-14T12:00:00Z')] as const;

  it('reads the service page by page to exactly the candles the simulated market gives for the same seed', async () => {
    const client = await marketDataClient(100);
    const progress: number[] = [];
    const paged = await new MarketDataLabHistory(client).candles('EURUSD', 'M15', ...range, (f) => progress.push(f));
    const direct: LabCandle[] = await new SimulatedLabHistory(simulatedMarket()).candles('EURUSD', 'M15', ...range);
    expect(direct.length).toBeGreaterThan(400);
    expect(paged).toEqual(direct);
    expect(progress.length).toBe(Math.ceil(direct.length / 100));
    expect(progress.at(-1)).toBe(1);
  });

  it('gives the same candles whatever the page size: pages of 37, and one page', async () => {
    const client = await marketDataClient(1000);
    const whole = await new MarketDataLabHistory(client).candles('USDJPY', 'M30', ...range);
    expect(whole.length).toBeLessThan(1000);
    expect(await new MarketDataLabHistory(client, { pageSize: 37 }).candles('USDJPY', 'M30', ...range)).toEqual(whole);
    expect(whole.every((c) => c.spread !== null && c.spread > 0)).toBe(true);
  });

  it('answers an empty range with no candle, and lists the catalog', async () => {
    const client = await marketDataClient(100);
    const history = new MarketDataLabHistory(client);
    expect(await history.candles('EURUSD', 'M5', range[0], range[0])).toEqual([]);
    expect(await history.catalog()).toContainEqual({ symbol: 'EURUSD', digits: 5 });
  });
});
