import type { TradingTerminal } from '@fxdesk/broker';
import type { LightMyRequestResponse } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { ScriptedTerminal } from './fake-terminal.js';
import { API_KEY, buildTestApp, expectEnvelope, settle, simulatedApp, type TestApp } from './helpers.js';

let harness: TestApp & { terminal: TradingTerminal };

afterEach(async () => {
  await harness.app.close();
  await harness.terminal.close();
});

function get(symbol: string, headers: Record<string, string> = { 'x-api-key': API_KEY }) {
  return harness.app.inject({ method: 'GET', url: `/v1/symbols/${encodeURIComponent(symbol)}`, headers });
}

describe('GET /v1/symbols/{symbol}', () => {
  it('answers the venue’s terms for a symbol: contract size, volume min/max/step, levels, modes and currencies', async () => {
    const sim = await simulatedApp();
    harness = sim;
    const res = await get('USDJPY');
    expect(res.statusCode).toBe(200);
    const info = (await sim.terminal.symbolInfo('USDJPY'))!;
    expect(res.json()).toEqual({
      symbol: 'USDJPY',
      description: info.description,
      digits: 3,
      contract_size: 100_000,
      volume_min: info.volumeMin,
      volume_max: info.volumeMax,
      volume_step: info.volumeStep,
      // The simulated terminal's 100 lots, above MAXIMUM_VOLUME's 10.
      order_volume_max: '10',
      stops_level: info.stopsLevel,
      freeze_level: info.freezeLevel,
      trade_mode: 'full',
      filling_modes: info.fillingModes,
      expiration_modes: info.expirationModes,
      currency_base: 'USD',
      currency_profit: 'JPY',
      currency_margin: info.currencyMargin,
    });
  });

  it('gives the largest order it sends: the venue’s maximum or MAXIMUM_VOLUME, the smaller, rounded down to the volume step', async () => {
    harness = await simulatedApp({ env: { MAXIMUM_VOLUME: '2.555' } });
    const info = (await harness.terminal.symbolInfo('EURUSD'))!;
    expect([info.volumeMax, info.volumeStep]).toEqual(['100', '0.01']);
    expect((await get('EURUSD')).json()).toMatchObject({ volume_max: '100', order_volume_max: '2.55' });
    await harness.app.close();
    await harness.terminal.close();
    harness = await simulatedApp({ env: { MAXIMUM_VOLUME: '500' } });
    expect((await get('EURUSD')).json()).toMatchObject({ volume_max: '100', order_volume_max: '100' });
  });

  it('refuses a symbol outside ALLOWED_SYMBOLS, and one the terminal does not list, with 422 symbol_not_allowed', async () => {
    harness = await simulatedApp({ env: { ALLOWED_SYMBOLS: 'EURUSD,EURXYZ' } });
    expect(expectEnvelope(await get('GBPUSD'), 422, 'symbol_not_allowed').message).toContain('not in ALLOWED_SYMBOLS');
    expect(expectEnvelope(await get('EURXYZ'), 422, 'symbol_not_allowed').message).toContain('does not list EURXYZ');
  });

  it('needs the API key', async () => {
    harness = await simulatedApp();
    expectEnvelope(await get('EURUSD', {}), 401, 'unauthorized');
  });

  it('answers 503 not_ready while the terminal is disconnected', async () => {
    const sim = await simulatedApp();
    harness = sim;
    sim.terminal.setConnected(false);
    expectEnvelope(await get('EURUSD'), 503, 'not_ready');
  });

  it('answers 503 broker_unavailable when the terminal stays silent past PRE_SEND_TIMEOUT_MS', async () => {
    const terminal = new ScriptedTerminal();
    let asked = false;
    terminal.symbolInfo = () => {
      asked = true;
      return new Promise(() => undefined);
    };
    harness = { ...(await buildTestApp({ terminal, env: { PRE_SEND_TIMEOUT_MS: '1000' } })), terminal };
    let res: LightMyRequestResponse | undefined;
    void get('EURUSD').then((answer) => (res = answer));
    await settle(() => asked);
    await harness.clock.advanceAsync(1000);
    await settle(() => res !== undefined);
    expect(expectEnvelope(res!, 503, 'broker_unavailable').message).toContain('PRE_SEND_TIMEOUT_MS');
  });
});
