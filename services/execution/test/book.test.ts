import { afterEach, describe, expect, it } from 'vitest';
import { API_KEY, expectEnvelope, postSignal, signal, simulatedApp, type SimulatedHarness } from './helpers.js';

let harness: SimulatedHarness;

afterEach(async () => {
  await harness.app.close();
  await harness.terminal.close();
});

function get(url: string, headers: Record<string, string> = { 'x-api-key': API_KEY }) {
  return harness.app.inject({ method: 'GET', url, headers });
}

async function open(extra: Record<string, unknown>): Promise<void> {
  const res = await postSignal(harness.app, signal(extra));
  expect(res.statusCode).toBe(200);
}

describe('GET /v1/positions', () => {
  it('lists each open position with its ticket, side, volume, prices, stops, profit and swap', async () => {
    harness = await simulatedApp({ env: { ALLOWED_SYMBOLS: 'EURUSD,GBPUSD' } });
    await open({ stop_loss_distance: '0.0050' });
    const res = await get('/v1/positions');
    expect(res.statusCode).toBe(200);
    const { positions } = res.json<{ positions: Record<string, unknown>[] }>();
    expect(positions).toHaveLength(1);
    expect(positions[0]).toMatchObject({ symbol: 'EURUSD', side: 'buy', volume: '0.10', tp: null, source: 'tradingview', swap: '0.00' });
    expect(positions[0]?.ticket).toMatch(/^\d+$/);
    expect(positions[0]?.open_price).toMatch(/^1\.\d{5}$/);
    expect(positions[0]?.sl).toMatch(/^1\.\d{4,5}$/);
    expect(positions[0]?.profit).toMatch(/^-?\d+\.\d{2}$/);
  });

  it('filters by symbol and by the source of the order comment', async () => {
    harness = await simulatedApp({ env: { ALLOWED_SYMBOLS: 'EURUSD,GBPUSD', ALLOWED_SIGNAL_SOURCES: 'tradingview,manual' } });
    await open({});
    await open({ symbol: 'GBPUSD' });
    await open({ source: 'manual' });
    const bySymbol = (await get('/v1/positions?symbol=GBPUSD')).json<{ positions: { symbol: string }[] }>();
    expect(bySymbol.positions.map((p) => p.symbol)).toEqual(['GBPUSD']);
    const bySource = (await get('/v1/positions?source=manual')).json<{ positions: { source: string }[] }>();
    expect(bySource.positions.map((p) => p.source)).toEqual(['manual']);
    const both = (await get('/v1/positions?symbol=EURUSD&source=tradingview')).json<{ positions: unknown[] }>();
    expect(both.positions).toHaveLength(1);
  });

  it('refuses an unknown parameter with the envelope', async () => {
    harness = await simulatedApp();
    expectEnvelope(await get('/v1/positions?side=buy'), 422, 'validation_error');
  });

  it('needs the API key', async () => {
    harness = await simulatedApp();
    expectEnvelope(await get('/v1/positions', {}), 401, 'unauthorized');
  });

  it('answers 503 broker_unavailable when the terminal does not answer', async () => {
    harness = await simulatedApp();
    harness.terminal.injectFault({ method: 'positions', kind: 'timeout', times: 1 });
    expectEnvelope(await get('/v1/positions'), 503, 'broker_unavailable');
  });
});

describe('GET /v1/orders', () => {
  it('lists each resting order with its type, price, stops and expiration', async () => {
    harness = await simulatedApp();
    const expiresAt = new Date(Date.UTC(2026, 0, 6, 12)).toISOString();
    await open({ execution_type: 'limit', entry_price: '1.00000', expires_at: expiresAt });
    const res = await get('/v1/orders');
    expect(res.statusCode).toBe(200);
    const { orders } = res.json<{ orders: Record<string, unknown>[] }>();
    expect(orders).toEqual([
      expect.objectContaining({ symbol: 'EURUSD', type: 'buy_limit', volume: '0.10', sl: null, tp: null, source: 'tradingview', expiration: expiresAt }),
    ]);
    expect(Number(orders[0]?.price)).toBe(1);
  });

  it('filters by source', async () => {
    harness = await simulatedApp();
    await open({ execution_type: 'limit', entry_price: '1.00000' });
    expect((await get('/v1/orders?source=manual')).json()).toEqual({ orders: [] });
  });
});
