import { MarketDataClient, marketDataCalls } from '@fxdesk/client';
import { expectClientMatchesDocument } from '@fxdesk/core/testing';
import type { IntervalCandle } from '@fxdesk/schemas';
import { describe, expect, it } from 'vitest';
import { API_KEY, auth, buildSimulatedService, buildTestService } from './helpers.js';

describe('@fxdesk/client MarketDataClient', () => {
  it("checks each answer with the schema the service's OpenAPI document names for it", async () => {
    const { app } = await buildTestService();
    await expectClientMatchesDocument(app, marketDataCalls, auth);
    await app.close();
  });

  it('reads candles by range page by page over HTTP, the pages making up one big answer', async () => {
    const { app } = await buildSimulatedService({ start: '2026-01-14T15:42:10Z', tickIntervalMs: 5000, config: { MAX_CANDLES: '300' } });
    const client = new MarketDataClient({ baseUrl: await app.listen({ host: '127.0.0.1', port: 0 }), apiKey: API_KEY });
    const [from, to] = ['2026-01-08T00:00:00Z', '2026-01-13T00:00:00Z'];
    const whole = await client.candlePage('EURUSD', 'H1', from, to);
    expect(whole.nextFrom).toBeNull();
    // Thursday, Friday to 22:00, Sunday from 22:00, Monday.
    expect(whole.candles).toHaveLength(24 + 22 + 2 + 24);
    const paged: IntervalCandle[] = [];
    for (let next: string | null = from; next !== null;) {
      const page = await client.candlePage('EURUSD', 'H1', next, to, 25);
      paged.push(...page.candles);
      next = page.nextFrom;
    }
    expect(paged).toEqual(whole.candles);
    await client.close();
    await app.close();
  });
});
