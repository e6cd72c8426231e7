import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { API_KEY, auth, buildSimulatedService } from './helpers.js';
import { TestEventSource } from './sse-client.js';

type Service = Awaited<ReturnType<typeof buildSimulatedService>>;
type TickData = { symbol: string; ts: string };

let service: Service | undefined;
let source: TestEventSource | undefined;

afterEach(async () => {
  source?.close();
  source = undefined;
  await service?.app.close();
  service = undefined;
});

/** What a client does before using the service: asks /health/ready until it answers 200, 100 ms of clock time apart. */
async function untilReady(s: Service): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    if ((await s.app.inject({ method: 'GET', url: '/health/ready' })).statusCode === 200) return;
    s.clock.advance(100);
  }
  throw new Error('not ready within 10 s of clock time');
}

async function servedSymbols(s: Service): Promise<string[]> {
  const res = await s.app.inject({ method: 'GET', url: '/v1/symbols', headers: auth });
  return (res.json().symbols as { symbol: string; enabled: boolean }[]).filter((e) => e.enabled).map((e) => e.symbol);
}

async function tickStatuses(s: Service, symbols: string[]): Promise<Record<string, number>> {
  const statuses: Record<string, number> = {};
  for (const symbol of symbols) {
    statuses[symbol] = (await s.app.inject({ method: 'GET', url: `/v1/market-data/tick?symbol=${symbol}`, headers: auth })).statusCode;
  }
  return statuses;
}

describe('ready on the simulated feed', () => {
  it('answers the latest tick of every symbol as soon as it is ready', async () => {
    service = await buildSimulatedService({ start: '2026-01-06T10:00:00.000Z' });
    await untilReady(service);
    const symbols = await servedSymbols(service);
    expect(symbols.length).toBeGreaterThan(1);
    expect(await tickStatuses(service, symbols)).toEqual(Object.fromEntries(symbols.map((symbol) => [symbol, 200])));
  });

  it('replays one tick per requested symbol on a stream opened right after ready', async () => {
    service = await buildSimulatedService({ start: '2026-01-06T10:00:00.000Z' });
    await service.app.listen({ host: '127.0.0.1', port: 0 });
    await untilReady(service);
    const symbols = await servedSymbols(service);
    const port = (service.app.server.address() as AddressInfo).port;
    const stream = new TestEventSource(`http://127.0.0.1:${port}/v1/stream/ticks`, API_KEY);
    source = stream;
    await stream.waitFor(() => stream.ofType('status').length > 0);
    expect(
      stream
        .ofType('tick')
        .map((e) => (e.data as TickData).symbol)
        .sort(),
    ).toEqual([...symbols].sort());
  });

  it('is ready on a Saturday and answers the last quote before Friday’s close', async () => {
    service = await buildSimulatedService({ start: '2026-01-10T12:00:00.000Z' });
    const ready = await service.app.inject({ method: 'GET', url: '/health/ready' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json().checks.ticks).toEqual({ ok: true, detail: 'market closed; quotes resume at the open' });
    const tick = (await service.app.inject({ method: 'GET', url: '/v1/market-data/tick?symbol=EURUSD', headers: auth })).json<TickData>();
    expect(tick.ts).toBe(new Date(service.market.lastTick('EURUSD')!.time).toISOString());
    expect(Date.parse(tick.ts)).toBeLessThan(Date.parse('2026-01-09T22:00:00.000Z'));
  });
});
