import { SimulatedMarket, SimulatedTerminal, WorkSlicer } from '@fxdesk/broker';
import { hiddenClassCount } from '@fxdesk/broker/testing';
import { ManualClock } from '@fxdesk/primitives';
import { TIMEFRAME_SECONDS, TIMEFRAMES } from '@fxdesk/schemas';
import { afterEach, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { CandleReader } from '../src/candles.js';
import { ScriptedTerminal } from './fake-terminal.js';
import { API_KEY, buildTestApp, expectEnvelope, NOW, settle, simulatedApp, type SimulatedHarness } from './helpers.js';

let harness: SimulatedHarness | undefined;
afterEach(async () => {
  await harness?.app.close();
  harness = undefined;
});

async function candles(query: string, env: Record<string, string> = {}) {
  harness ??= await simulatedApp({ env });
  return harness.app.inject({ method: 'GET', url: `/v1/market-data/candles${query}`, headers: { 'x-api-key': API_KEY } });
}

describe('GET /v1/market-data/candles', () => {
  it('answers { quote, timeframe, candles } with time in epoch seconds and the tick volume, oldest first', async () => {
    const res = await candles('?quote=EURUSD&timeframe=M5&count=3');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ quote: 'EURUSD', timeframe: 'M5' });
    expect(body.candles).toHaveLength(3);
    const times = body.candles.map((c: { time: number }) => c.time);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    for (const candle of body.candles) {
      expect(Number.isInteger(candle.time) && candle.time % 300 === 0).toBe(true);
      expect(candle.time).toBeLessThanOrEqual(NOW / 1000);
      expect(Number.isInteger(candle.volume) && candle.volume > 0).toBe(true);
      expect(candle.high).toBeGreaterThanOrEqual(Math.max(candle.open, candle.close));
      expect(candle.low).toBeLessThanOrEqual(Math.min(candle.open, candle.close));
      expect(Object.keys(candle).sort()).toEqual(['close', 'high', 'low', 'open', 'spread', 'time', 'volume']);
    }
  });

  it('requires quote', async () => {
    const body = expectEnvelope(await candles('?timeframe=M1'), 422, 'validation_error');
    expect(JSON.stringify(body.details)).toContain('querystring.quote');
  });

  it('refuses a quote outside ALLOWED_SYMBOLS, exact and case-sensitive', async () => {
    expectEnvelope(await candles('?quote=eurusd'), 422, 'symbol_not_allowed');
    expectEnvelope(await candles('?quote=EURGBP'), 422, 'symbol_not_allowed');
  });

  it('takes a URL-encoded space in quote as part of the symbol', async () => {
    const res = await candles('?quote=US%20500', { ALLOWED_SYMBOLS: 'EURUSD,US 500' });
    expect(expectEnvelope(res, 422, 'symbol_not_allowed').message).toContain('does not list US 500');
  });

  it('defaults timeframe to M1 and count to 500', async () => {
    const body = (await candles('?quote=EURUSD')).json();
    expect(body.timeframe).toBe('M1');
    expect(body.candles).toHaveLength(500);
    expect(body.candles[1].time - body.candles[0].time).toBe(60);
  });

  it('accepts each timeframe M1 M5 M15 M30 H1 H4 D1 and nothing else', async () => {
    for (const timeframe of TIMEFRAMES) {
      const body = (await candles(`?quote=EURUSD&timeframe=${timeframe}&count=2`)).json();
      expect(body.candles[1].time - body.candles[0].time).toBeGreaterThanOrEqual(TIMEFRAME_SECONDS[timeframe]);
    }
    expectEnvelope(await candles('?quote=EURUSD&timeframe=M2'), 422, 'validation_error');
    expectEnvelope(await candles('?quote=EURUSD&timeframe=m1'), 422, 'validation_error');
  });

  it('clamps count to MAX_CANDLES_LOOKBACK', async () => {
    expect((await candles('?quote=EURUSD&count=50', { MAX_CANDLES_LOOKBACK: '20' })).json().candles).toHaveLength(20);
  });

  it('refuses a count that is not a positive integer', async () => {
    for (const count of ['0', '-5', '1.5', 'abc', '']) {
      expectEnvelope(await candles(`?quote=EURUSD&count=${count}`), 422, 'validation_error');
    }
  });

  it('answers 503 not_ready while the terminal is disconnected', async () => {
    harness = await simulatedApp();
    harness.terminal.setConnected(false);
    expectEnvelope(await candles('?quote=EURUSD'), 503, 'not_ready');
  });

  it('gives a terminal that does not answer rates up after PRE_SEND_TIMEOUT_MS with 503 broker_unavailable', async () => {
    const terminal = new ScriptedTerminal();
    let asked = false;
    terminal.rates = () => {
      asked = true;
      return new Promise(() => undefined);
    };
    const h = await buildTestApp({ terminal, env: { PRE_SEND_TIMEOUT_MS: '1000' } });
    try {
      let res: LightMyRequestResponse | undefined;
      void h.app.inject({ method: 'GET', url: '/v1/market-data/candles?quote=EURUSD', headers: { 'x-api-key': API_KEY } }).then((answer) => (res = answer));
      await settle(() => asked);
      await h.clock.advanceAsync(1000);
      await settle(() => res !== undefined);
      expect(expectEnvelope(res!, 503, 'broker_unavailable').message).toContain('PRE_SEND_TIMEOUT_MS');
    } finally {
      await h.app.close();
    }
  });
});

describe('CandleReader', () => {
  it('gives the candles of a read one hidden class, not one each', async () => {
    const clock = new ManualClock(NOW);
    const terminal = new SimulatedTerminal({ market: new SimulatedMarket({ seed: 'execution-tests', tickIntervalMs: 1000, marketHours: true, clock }) });
    await terminal.connect();
    const reader = new CandleReader({
      terminal,
      allowedSymbols: ['EURUSD'],
      maxLookback: 1000,
      deadline: { clock, timeoutMs: 1000, setting: 'PRE_SEND_TIMEOUT_MS' },
    });
    const { candles } = await reader.read({ quote: 'EURUSD', timeframe: 'M1', count: 100 }, { warn: () => {} });
    expect(candles).toHaveLength(100);
    expect(hiddenClassCount(candles)).toBe(1);
  });
});

describe('GET /v1/market-data/candles on the simulated terminal', () => {
  it("lets the event loop turn while the terminal builds a thousand D1 candles, and answers the market's bars", async () => {
    let readings = 0;
    // A slice of ten steps (bars), whatever the machine.
    const slicer = new WorkSlicer({ sliceMs: 10, now: () => readings++ });
    const clock = new ManualClock(NOW);
    const market = new SimulatedMarket({ seed: 'execution-tests', tickIntervalMs: 5000, marketHours: true, clock, slicer });
    const terminal = new SimulatedTerminal({ market });
    await terminal.connect();
    const { app } = await buildTestApp({ terminal, clock });
    let turns = 0;
    let isAnswering = true;
    const turn = () => {
      turns++;
      if (isAnswering) setImmediate(turn);
    };
    setImmediate(turn);
    const res = await app.inject({ method: 'GET', url: '/v1/market-data/candles?quote=EURUSD&timeframe=D1&count=1000', headers: { 'x-api-key': API_KEY } });
    isAnswering = false;
    await app.close();
    expect(res.statusCode).toBe(200);
    const reference = new SimulatedMarket({ seed: 'execution-tests', tickIntervalMs: 5000, marketHours: true, clock: new ManualClock(NOW) });
    expect(res.json().candles.map((c: { time: number; close: number }) => [c.time, c.close])).toEqual(
      reference.bars('EURUSD', 'D1', 1000).map((b) => [b.time, b.close]),
    );
    expect(turns).toBeGreaterThan(50);
  }, 120_000);
});
