import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { API_KEY, signal, simulatedApp, type SimulatedHarness } from './helpers.js';

describe('GET /v1/account', () => {
  let h: SimulatedHarness;
  const headers = { 'x-api-key': API_KEY };
  const account = async () => h.app.inject({ method: 'GET', url: '/v1/account', headers });

  beforeEach(async () => {
    h = await simulatedApp({ balance: '25000' });
  });
  afterEach(async () => h.app.close());

  it('answers the terminal’s money: its currency, balance, equity, margin, free margin and leverage', async () => {
    const res = await account();
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      currency: 'USD',
      balance: '25000.00',
      equity: '25000.00',
      margin: '0.00',
      free_margin: '25000.00',
      leverage: 100,
      as_of: '2026-01-05T12:00:00.000Z',
    });
  });

  it('holds the margin of a position the service opened, and equity less margin free', async () => {
    expect((await h.app.inject({ method: 'POST', url: '/v1/signals', headers, payload: signal() })).statusCode).toBe(200);
    const state = h.terminal.accountState();
    const body = (await account()).json();
    expect(body).toMatchObject({ equity: state.equity.toFixed(2), margin: state.margin.toFixed(2), free_margin: state.marginFree.toFixed(2) });
    expect(Number(body.margin)).toBeGreaterThan(0);
  });

  it('is 503 not_ready while the terminal is disconnected', async () => {
    h.terminal.setConnected(false);
    const res = await account();
    expect(res.statusCode).toBe(503);
    expect(res.json().code).toBe('not_ready');
  });

  it('requires the key', async () => {
    expect((await h.app.inject({ method: 'GET', url: '/v1/account' })).statusCode).toBe(401);
  });
});
