import { describe, expect, it } from 'vitest';
import { startRig } from './setup.js';

describe('cTrader spot events', () => {
  it('delivers the first spot event after subscribing, prices decoded to the symbol digits', async () => {
    const { feed, quotes, clock } = await startRig();
    await feed.connect();
    await feed.subscribe(['EURUSD']);
    await feed.serverVersion();
    expect(quotes).toEqual([{ symbol: 'EURUSD', bid: 1.0815, ask: 1.08162, time: clock.now() }]);
  });

  it('keeps the side a spot event leaves out', async () => {
    const { feed, fake, quotes } = await startRig();
    await feed.connect();
    await feed.subscribe(['USDJPY']);
    fake.pushSpot(4, { bid: 15_713_100 });
    fake.pushSpot(4, { ask: 15_714_800 });
    await feed.serverVersion();
    expect(quotes.slice(1).map((q) => [q.bid, q.ask])).toEqual([
      [157.131, 157.135],
      [157.131, 157.148],
    ]);
  });

  it('waits for both sides before the first quote of a symbol', async () => {
    const { feed, fake, quotes } = await startRig({ fake: { technicalSpotEvent: false } });
    await feed.connect();
    await feed.subscribe(['EURUSD']);
    fake.pushSpot(1, { bid: 108_200 });
    await feed.serverVersion();
    expect(quotes).toEqual([]);
    fake.pushSpot(1, { ask: 108_212 });
    await feed.serverVersion();
    expect(quotes.map((q) => [q.bid, q.ask])).toEqual([[1.082, 1.08212]]);
  });

  it('stamps a quote with the spot timestamp, or the arrival time without one', async () => {
    const { feed, fake, quotes, clock } = await startRig({ fake: { technicalSpotEvent: false } });
    await feed.connect();
    await feed.subscribe(['EURUSD']);
    fake.pushSpot(1, { bid: 108_200, ask: 108_212, timestamp: Date.UTC(2026, 0, 7, 11, 59, 59, 250) });
    fake.pushSpot(1, { bid: 108_201 });
    await feed.serverVersion();
    expect(quotes.map((q) => q.time)).toEqual([Date.UTC(2026, 0, 7, 11, 59, 59, 250), clock.now()]);
  });

  it('reads int64 fields written as JSON strings', async () => {
    const { feed, quotes } = await startRig({ fake: { int64AsStrings: true } });
    await feed.connect();
    expect((await feed.symbols()).find((s) => s.name === 'EURUSD')?.symbolId).toBe(1);
    await feed.subscribe(['EURUSD']);
    await feed.serverVersion();
    expect(quotes.map((q) => [q.bid, q.ask])).toEqual([[1.0815, 1.08162]]);
  });

  it('subscribes with spot timestamps and names only new symbols', async () => {
    const { feed, fake } = await startRig();
    await feed.connect();
    await feed.subscribe(['EURUSD']);
    await feed.subscribe(['EURUSD', 'GBPUSD']);
    expect(fake.messages(2127).map((m) => m.payload)).toEqual([
      { ctidTraderAccountId: fake.accountId, symbolId: [1], subscribeToSpotTimestamp: true },
      { ctidTraderAccountId: fake.accountId, symbolId: [2], subscribeToSpotTimestamp: true },
    ]);
  });

  it('tells the venue when unsubscribing', async () => {
    const { feed, fake } = await startRig();
    await feed.connect();
    await feed.subscribe(['EURUSD', 'GBPUSD']);
    await feed.unsubscribe(['GBPUSD', 'USDJPY']);
    expect(fake.messages(2129).map((m) => m.payload)).toEqual([{ ctidTraderAccountId: fake.accountId, symbolId: [2] }]);
  });
});
