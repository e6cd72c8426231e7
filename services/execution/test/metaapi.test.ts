import { SimulatedMarket, type MetaApiTerminal } from '@fxdesk/broker';
import { ConfigError, type App } from '@fxdesk/core';
import { ManualClock } from '@fxdesk/primitives';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeMetaApiServer } from '@fxdesk/broker/testing';
import type { ExecutionConfig } from '../src/config.js';
import { createTerminal } from '../src/terminal.js';
import { API_KEY, appOn, expectEnvelope, getSignal, NOW, postSignal, signal, testConfig, sqliteStore } from './helpers.js';

/** The execution service with BROKER=metaapi, against a local fake MetaApi server. */
describe('execution on BROKER=metaapi', () => {
  let clock: ManualClock;
  let fake: FakeMetaApiServer;
  let config: ExecutionConfig;
  let terminal: MetaApiTerminal;
  let app: App;

  beforeEach(async () => {
    clock = new ManualClock(NOW);
    const market = new SimulatedMarket({ seed: 'execution-metaapi', tickIntervalMs: 1000, marketHours: true, clock });
    fake = await FakeMetaApiServer.start({ market });
    config = testConfig({
      BROKER: 'metaapi',
      METAAPI_TOKEN: fake.token,
      METAAPI_ACCOUNT_ID: fake.accountId,
      METAAPI_BASE_URL: fake.baseUrl,
      METAAPI_MARKET_DATA_BASE_URL: fake.baseUrl,
      METAAPI_HEALTH_INTERVAL_MS: '0',
    });
    const handle = createTerminal(config, clock);
    terminal = handle.terminal as MetaApiTerminal;
    await terminal.connect();
    app = await appOn(config, { clock, terminal, store: sqliteStore(), terminalCalls: handle.calls });
    await app.ready();
  });

  afterEach(async () => {
    await app.close();
    await terminal.close();
    await fake.close();
  });

  it('is ready once the MetaApi terminal answers', async () => {
    const res = await app.inject({ method: 'GET', url: '/health/ready' });
    expect(res.statusCode).toBe(200);
    expect(res.json().checks.terminal.detail).toBe('metaapi terminal connected');
  });

  it('fills a market signal through order_check and POST /trade, with the broker tickets', async () => {
    const body = signal({ stop_loss_distance: '0.0020' });
    const res = await postSignal(app, body);
    expect(res.statusCode).toBe(200);
    const answer = res.json();
    expect(answer).toMatchObject({
      state: 'filled',
      result: { retcode: 10009, retcode_name: 'TRADE_RETCODE_DONE', requested_volume: '0.10', filled_volume: '0.1' },
    });
    expect(answer.tickets.order).not.toBeNull();
    expect(answer.tickets.deal).not.toBeNull();
    expect(fake.count('calculate-margin')).toBe(1);
    expect(fake.count('trade')).toBe(1);
  });

  it('places a limit signal as a resting pending order', async () => {
    const res = await postSignal(app, signal({ execution_type: 'limit', entry_price: '1.00000' }));
    expect(res.json()).toMatchObject({ state: 'placed', result: { retcode: 10008 } });
  });

  it('rejects a signal before sending anything when the emulated order_check finds the market closed', async () => {
    clock.set(Date.UTC(2026, 0, 10, 12)); // a Saturday
    const res = await postSignal(app, signal({ occurred_at: new Date(clock.now()).toISOString() }));
    const error = expectEnvelope(res, 422, 'preflight_rejected');
    expect(error.message).toMatch(/TRADE_RETCODE_MARKET_CLOSED \(10018\)/);
    expect(fake.count('trade')).toBe(0);
  });

  it('stores an unanswered trade as unknown, sends it once and finds it by its comment', async () => {
    fake.inject({ route: 'trade', kind: 'execute-then-hang', onArrive: () => clock.advance(config.ORDER_SEND_TIMEOUT_MS) });
    const body = signal();
    const res = await postSignal(app, body);
    expectEnvelope(res, 503, 'execution_outcome_unknown');
    expect(fake.count('trade')).toBe(1);
    const record = (await getSignal(app, body.signal_id as string)).json();
    expect(record.state).toBe('unknown');
    const found = await terminal.findByComment(record.order_comment, config.MAGIC_NUMBER);
    expect(found.some((r) => r.kind === 'deal' && r.state === 'filled')).toBe(true);
  });

  it('serves candles from the market data API', async () => {
    const res = await app.inject({ method: 'GET', url: '/v1/market-data/candles?quote=EURUSD&timeframe=M5&count=3', headers: { 'x-api-key': API_KEY } });
    expect(res.statusCode).toBe(200);
    expect(res.json().candles).toHaveLength(3);
  });
});

describe('execution config for BROKER=metaapi', () => {
  it('requires the MetaApi token and account id, naming both', () => {
    let message = '';
    try {
      testConfig({ BROKER: 'metaapi' });
    } catch (err) {
      if (err instanceof ConfigError) message = err.message;
    }
    expect(message).toMatch(/METAAPI_TOKEN: is required when BROKER=metaapi/);
    expect(message).toMatch(/METAAPI_ACCOUNT_ID: is required when BROKER=metaapi/);
  });

  it('defaults to the new-york region and MetaApi-sized timeouts', () => {
    expect(testConfig({ BROKER: 'metaapi', METAAPI_TOKEN: 't', METAAPI_ACCOUNT_ID: 'a' })).toMatchObject({
      METAAPI_REGION: 'new-york',
      METAAPI_TIMEOUT_MS: 10_000,
      METAAPI_TRADE_TIMEOUT_MS: 60_000,
      METAAPI_HEALTH_INTERVAL_MS: 15_000,
      METAAPI_HISTORY_LOOKBACK_HOURS: 168,
    });
  });
});
