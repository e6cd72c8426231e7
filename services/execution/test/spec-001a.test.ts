/**
 * Spec 001 (A), table by table: each `it` names the row it covers. Runs on the simulated
 * terminal with a manual clock (Monday 12:00 UTC, market open).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createLogger } from '@fxdesk/core';
import { LogCapture } from '@fxdesk/core/testing';
import type { LightMyRequestResponse } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { orderComment } from '../src/order-comment.js';
import { API_KEY, expectEnvelope, getSignal, NOW, postSignal, settle, signal, simulatedApp, type SimulatedHarness, sqliteStore } from './helpers.js';

let harness: SimulatedHarness | undefined;
let dataDir: string | undefined;
afterEach(async () => {
  await harness?.app.close();
  harness = undefined;
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  dataDir = undefined;
});

async function setup(options: Parameters<typeof simulatedApp>[0] = {}): Promise<SimulatedHarness> {
  harness = await simulatedApp(options);
  return harness;
}

/** Executes `body` on a service that is then restarted on the same DATA_DIR with `env`. */
async function completedThenRestarted(body: Record<string, unknown>, env: Record<string, string>) {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fxdesk-exec-restart-'));
  const file = path.join(dataDir, 'execution.db');
  const before = await simulatedApp({ store: sqliteStore(file) });
  const first = await postSignal(before.app, body);
  await before.app.close();
  return { first, h: await setup({ store: sqliteStore(file), env }) };
}

/** Submits `body` and holds it inside its `method` call (a hang fault) until `releaseHung()`; `first` is its answer. */
async function heldInside(h: SimulatedHarness, method: 'orderCheck' | 'orderSend', body: Record<string, unknown>) {
  h.terminal.injectFault({ method, kind: 'hang', times: 1 });
  const first = postSignal(h.app, body);
  await settle(() => h.terminal.stats.faultsTriggered === 1);
  return { first };
}

/** `again` is `first` replayed: the same status and bytes, marked Idempotent-Replayed. */
function expectReplayOf(again: LightMyRequestResponse, first: LightMyRequestResponse): void {
  expect(again.statusCode).toBe(first.statusCode);
  expect(again.body).toBe(first.body);
  expect(again.headers['idempotent-replayed']).toBe('true');
}

async function quote(h: SimulatedHarness) {
  const tick = await h.terminal.tick('EURUSD');
  if (!tick) throw new Error('no EURUSD quote');
  return { bid: tick.bid, ask: tick.ask };
}

const price = (value: number) => value.toFixed(5);
const id = (body: Record<string, unknown>) => body.signal_id as string;

function detailPaths(body: Record<string, unknown>): string[] {
  return ((body.details ?? []) as { path: string }[]).map((d) => d.path);
}

describe('spec 001 (A) signal submission: fields', () => {
  it('rejects unknown fields with 422 validation_error', async () => {
    const h = await setup();
    const body = expectEnvelope(await postSignal(h.app, signal({ leverage: 500 })), 422, 'validation_error');
    expect(body.message).toMatch(/leverage|unrecognized/i);
  });

  it('requires signal_id, occurred_at, execution_type, symbol, direction, volume and source', async () => {
    const h = await setup();
    for (const field of ['signal_id', 'occurred_at', 'execution_type', 'symbol', 'direction', 'volume', 'source']) {
      const { [field]: _omitted, ...rest } = signal();
      expect(detailPaths(expectEnvelope(await postSignal(h.app, rest), 422, 'validation_error'))).toContain(`body.${field}`);
    }
  });

  it('signal_id: rejects a value that is not a UUID', async () => {
    const h = await setup();
    expect(detailPaths(expectEnvelope(await postSignal(h.app, signal({ signal_id: 'sig-1' })), 422, 'validation_error'))).toContain('body.signal_id');
  });

  it('occurred_at: requires an RFC 3339 date-time with a time zone', async () => {
    const h = await setup();
    for (const occurred_at of ['2026-01-05T12:00:00', '2026-01-05 12:00:00Z', '1767614400', '2026-02-30T12:00:00Z']) {
      expectEnvelope(await postSignal(h.app, signal({ occurred_at })), 422, 'validation_error');
    }
  });

  it('occurred_at: is used for the freshness check', async () => {
    const h = await setup();
    const old = signal({ occurred_at: new Date(NOW - 3_600_000).toISOString(), ignore_signal_age: false });
    expectEnvelope(await postSignal(h.app, old), 422, 'signal_too_old');
  });

  it('execution_type: accepts market, limit and stop only', async () => {
    const h = await setup();
    const { ask } = await quote(h);
    expect((await postSignal(h.app, signal())).statusCode).toBe(200);
    expect((await postSignal(h.app, signal({ execution_type: 'limit', entry_price: price(ask - 0.005) }))).statusCode).toBe(200);
    expect((await postSignal(h.app, signal({ execution_type: 'stop', entry_price: price(ask + 0.005) }))).statusCode).toBe(200);
    expectEnvelope(await postSignal(h.app, signal({ execution_type: 'stop_limit', entry_price: '1.1' })), 422, 'validation_error');
  });

  it('symbol: must be in ALLOWED_SYMBOLS, exact and case-sensitive', async () => {
    const h = await setup();
    expectEnvelope(await postSignal(h.app, signal({ symbol: 'eurusd' })), 422, 'symbol_not_allowed');
    expectEnvelope(await postSignal(h.app, signal({ symbol: 'EURGBP' })), 422, 'symbol_not_allowed');
    expect(h.terminal.stats.orderCheckCalls).toBe(0);
  });

  it('direction: accepts buy and sell only', async () => {
    const h = await setup();
    expect((await postSignal(h.app, signal({ direction: 'sell' }))).json()).toMatchObject({ state: 'filled' });
    expectEnvelope(await postSignal(h.app, signal({ direction: 'long' })), 422, 'validation_error');
  });

  it('volume: a decimal string, validated against the broker volume step and MAXIMUM_VOLUME', async () => {
    const h = await setup();
    expectEnvelope(await postSignal(h.app, signal({ volume: 0.1 })), 422, 'validation_error');
    expectEnvelope(await postSignal(h.app, signal({ volume: '0.015' })), 422, 'invalid_volume');
    expectEnvelope(await postSignal(h.app, signal({ volume: '10.01' })), 422, 'invalid_volume');
    expect((await postSignal(h.app, signal({ volume: '0.3' }))).json()).toMatchObject({ result: { filled_volume: '0.3' } });
  });

  it('source: must be in ALLOWED_SIGNAL_SOURCES', async () => {
    const h = await setup();
    expectEnvelope(await postSignal(h.app, signal({ source: 'someone-else' })), 422, 'source_not_allowed');
  });

  it('source: is written to the order comment with a short form of the signal_id', async () => {
    const h = await setup();
    const body = signal({ source: 'fxdesk-strategy' });
    await postSignal(h.app, body);
    const comment = orderComment('fxdesk-strategy', id(body));
    expect(comment.startsWith('fxdesk-strategy:')).toBe(true);
    expect((await getSignal(h.app, id(body))).json()).toMatchObject({ order_comment: comment });
    const onTerminal = await h.terminal.findByComment(comment, h.config.MAGIC_NUMBER);
    expect(onTerminal.map((r) => r.kind).sort()).toEqual(['deal', 'order']);
  });

  it('entry_price: required for limit and stop, prohibited for market', async () => {
    const h = await setup();
    expect(detailPaths(expectEnvelope(await postSignal(h.app, signal({ execution_type: 'limit' })), 422, 'validation_error'))).toContain('body.entry_price');
    expect(detailPaths(expectEnvelope(await postSignal(h.app, signal({ execution_type: 'stop' })), 422, 'validation_error'))).toContain('body.entry_price');
    expect(detailPaths(expectEnvelope(await postSignal(h.app, signal({ entry_price: '1.08' })), 422, 'validation_error'))).toContain('body.entry_price');
  });

  it('stop_loss: an absolute price validated for precision and stop distance', async () => {
    const h = await setup();
    const { bid } = await quote(h);
    expectEnvelope(await postSignal(h.app, signal({ stop_loss: '1.0800001' })), 422, 'invalid_price');
    expectEnvelope(await postSignal(h.app, signal({ stop_loss: price(bid - 0.00005) })), 422, 'invalid_stops');
    expect((await postSignal(h.app, signal({ stop_loss: price(bid - 0.002) }))).statusCode).toBe(200);
    expect((await h.terminal.positions())[0]?.sl).toBe(String(Number(price(bid - 0.002))));
  });

  it('take_profit: an absolute price with the same validation', async () => {
    const h = await setup();
    const { bid } = await quote(h);
    expectEnvelope(await postSignal(h.app, signal({ take_profit: '1.1000001' })), 422, 'invalid_price');
    expectEnvelope(await postSignal(h.app, signal({ take_profit: price(bid + 0.00005) })), 422, 'invalid_stops');
    expect((await postSignal(h.app, signal({ take_profit: price(bid + 0.002) }))).statusCode).toBe(200);
  });

  it('stop_loss_distance: an unsigned magnitude in price units', async () => {
    const h = await setup();
    expectEnvelope(await postSignal(h.app, signal({ stop_loss_distance: '-0.002' })), 422, 'validation_error');
    expectEnvelope(await postSignal(h.app, signal({ stop_loss_distance: '0' })), 422, 'validation_error');
    expect((await postSignal(h.app, signal({ stop_loss_distance: '0.002' }))).statusCode).toBe(200);
  });

  it('take_profit_distance: an unsigned magnitude in price units', async () => {
    const h = await setup();
    expectEnvelope(await postSignal(h.app, signal({ take_profit_distance: '-0.002' })), 422, 'validation_error');
    expect((await postSignal(h.app, signal({ take_profit_distance: '0.002' }))).statusCode).toBe(200);
  });

  it('expires_at: a pending order expires at it on the terminal', async () => {
    const h = await setup();
    const { ask } = await quote(h);
    const body = signal({ execution_type: 'limit', entry_price: price(ask - 0.02), expires_at: new Date(NOW + 60_000).toISOString() });
    expect((await postSignal(h.app, body)).json()).toMatchObject({ state: 'placed' });
    const comment = orderComment('tradingview', id(body));
    expect((await h.terminal.findByComment(comment, h.config.MAGIC_NUMBER))[0]?.state).toBe('placed');
    h.clock.advance(61_000);
    expect((await h.terminal.findByComment(comment, h.config.MAGIC_NUMBER))[0]?.state).toBe('expired');
  });

  it('expires_at: a signal past it is rejected signal_expired', async () => {
    const h = await setup();
    expectEnvelope(await postSignal(h.app, signal({ expires_at: new Date(NOW - 1000).toISOString() })), 422, 'signal_expired');
  });

  it('deviation_points: an integer bounded by MAX_DEVIATION_POINTS', async () => {
    const h = await setup({ env: { MAX_DEVIATION_POINTS: '20' } });
    expectEnvelope(await postSignal(h.app, signal({ deviation_points: 1.5 })), 422, 'validation_error');
    expectEnvelope(await postSignal(h.app, signal({ deviation_points: 21 })), 422, 'invalid_deviation');
    expect((await postSignal(h.app, signal({ deviation_points: 20 }))).statusCode).toBe(200);
  });

  it('note: optional free text, kept with the request as received', async () => {
    const h = await setup();
    const body = signal({ note: 'breakout retest' });
    await postSignal(h.app, body);
    expect((await getSignal(h.app, id(body))).json()).toMatchObject({ request: { note: 'breakout retest' } });
  });

  it('ignore_signal_age: defaults to true, skipping the SIGNAL_MAX_AGE_SECONDS check', async () => {
    const h = await setup();
    const old = new Date(NOW - 3_600_000).toISOString();
    expect((await postSignal(h.app, signal({ occurred_at: old }))).statusCode).toBe(200);
    expectEnvelope(await postSignal(h.app, signal({ occurred_at: old, ignore_signal_age: false })), 422, 'signal_too_old');
  });

  it('ignore_signal_age: true still enforces the future tolerance and expires_at', async () => {
    const h = await setup();
    const ahead = new Date(NOW + 60_000).toISOString();
    expectEnvelope(await postSignal(h.app, signal({ occurred_at: ahead, ignore_signal_age: true })), 422, 'signal_in_future');
    expectEnvelope(await postSignal(h.app, signal({ ignore_signal_age: true, expires_at: new Date(NOW).toISOString() })), 422, 'signal_expired');
  });
});

describe('spec 001 (A) risk-level rules', () => {
  it('1. each leg takes either the absolute price or the distance, never both', async () => {
    const h = await setup();
    const both = signal({ stop_loss: '1.0', stop_loss_distance: '0.002' });
    expect(detailPaths(expectEnvelope(await postSignal(h.app, both), 422, 'validation_error'))).toContain('body.stop_loss_distance');
    const bothTp = signal({ take_profit: '1.2', take_profit_distance: '0.002' });
    expect(detailPaths(expectEnvelope(await postSignal(h.app, bothTp), 422, 'validation_error'))).toContain('body.take_profit_distance');
  });

  it('2. a distance is resolved against the reference price with the direction sign', async () => {
    const h = await setup();
    const { bid } = await quote(h);
    await postSignal(h.app, signal({ direction: 'sell', stop_loss_distance: '0.002', take_profit_distance: '0.003' }));
    const [position] = await h.terminal.positions();
    expect(position).toMatchObject({ side: 'sell', sl: String(Number(price(bid + 0.002))), tp: String(Number(price(bid - 0.003))) });
  });

  it('3. the reference price is the ask for buy, the bid for sell, entry_price for pending orders', async () => {
    const h = await setup();
    const { ask } = await quote(h);
    await postSignal(h.app, signal({ direction: 'buy', stop_loss_distance: '0.002' }));
    expect((await h.terminal.positions())[0]?.sl).toBe(String(Number(price(ask - 0.002))));
    const entry = price(ask - 0.01);
    const pending = signal({ execution_type: 'limit', entry_price: entry, stop_loss_distance: '0.001', take_profit_distance: '0.002' });
    expect((await postSignal(h.app, pending)).json()).toMatchObject({ state: 'placed', result: { price: String(Number(entry)) } });
    expect(await h.terminal.positions()).toHaveLength(1);
  });
});

describe('spec 001 (A) states', () => {
  it('filled: the order fully executed', async () => {
    const h = await setup();
    const res = await postSignal(h.app, signal());
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      state: 'filled',
      tickets: { order: expect.any(String), deal: expect.any(String), position: expect.any(String) },
      result: { retcode: 10009, retcode_name: 'TRADE_RETCODE_DONE', requested_volume: '0.10', filled_volume: '0.10', price: expect.any(String) },
    });
  });

  it('partially_filled: the order partially executed', async () => {
    const h = await setup({ env: { MAXIMUM_VOLUME: '50' } });
    const res = await postSignal(h.app, signal({ volume: '25' }));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ state: 'partially_filled', result: { retcode: 10010, requested_volume: '25', filled_volume: '20' } });
  });

  it('placed: a pending order accepted and resting', async () => {
    const h = await setup();
    const { ask } = await quote(h);
    const res = await postSignal(h.app, signal({ execution_type: 'stop', entry_price: price(ask + 0.01) }));
    expect(res.json()).toMatchObject({ state: 'placed', tickets: { order: expect.any(String), deal: null }, result: { retcode: 10008, filled_volume: '0' } });
  });

  it('rejected: a final state, readable through GET /v1/signals/{signal_id}', async () => {
    const h = await setup();
    const body = signal({ volume: '0.015' });
    await postSignal(h.app, body);
    const record = await getSignal(h.app, id(body));
    expect(record.statusCode).toBe(200);
    expect(record.json()).toMatchObject({ state: 'rejected', http_status: 422, error: { code: 'invalid_volume' }, completed_at: expect.any(String) });
  });

  it('unknown: a final state, readable through GET /v1/signals/{signal_id}', async () => {
    const h = await setup();
    h.terminal.injectFault({ method: 'orderSend', kind: 'ambiguous', times: 1 });
    const body = signal();
    await postSignal(h.app, body);
    expect((await getSignal(h.app, id(body))).json()).toMatchObject({ state: 'unknown', http_status: 503, error: { code: 'execution_outcome_unknown' } });
  });
});

describe('spec 001 (A) idempotency rules', () => {
  it('the same signal_id re-sent identical after completion: the stored response replayed, no second trade', async () => {
    const h = await setup();
    const body = signal();
    const first = await postSignal(h.app, body);
    const again = await postSignal(h.app, { ...body });
    expectReplayOf(again, first);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(h.terminal.stats.orderSendCalls).toBe(1);
  });

  it('the same signal_id re-sent identical after a rejection: the stored error raised again', async () => {
    const h = await setup();
    const body = signal({ volume: '0.015' });
    const first = await postSignal(h.app, body);
    h.clock.advance(5000);
    const again = await postSignal(h.app, body);
    expect(again.statusCode).toBe(422);
    expectReplayOf(again, first);
  });

  it('identical means the same meaning: key order, spacing and "0.10" vs "0.1" do not matter', async () => {
    const h = await setup();
    const body = signal();
    const first = await postSignal(h.app, body);
    const reordered = JSON.stringify(Object.fromEntries(Object.entries({ ...body, volume: '0.1', ignore_signal_age: true }).reverse()), null, 2);
    const again = await h.app.inject({
      method: 'POST',
      url: '/v1/signals',
      headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' },
      payload: reordered,
    });
    expect(again.body).toBe(first.body);
  });

  it('the same signal_id re-sent with any changed field: 409 idempotency_conflict', async () => {
    const h = await setup();
    const body = signal();
    await postSignal(h.app, body);
    for (const change of [{ volume: '0.11' }, { direction: 'sell' }, { note: 'changed' }, { ignore_signal_age: false }]) {
      expectEnvelope(await postSignal(h.app, { ...body, ...change }), 409, 'idempotency_conflict');
    }
    expect(h.terminal.stats.orderSendCalls).toBe(1);
  });

  it('the same signal still being processed: 409 signal_in_progress', async () => {
    const h = await setup();
    const body = signal();
    const { first } = await heldInside(h, 'orderSend', body);
    expectEnvelope(await postSignal(h.app, body), 409, 'signal_in_progress');
    expect((await getSignal(h.app, id(body))).json()).toMatchObject({ state: 'processing', http_status: null });
    h.terminal.releaseHung();
    expect((await first).statusCode).toBe(200);
    expect((await postSignal(h.app, body)).headers['idempotent-replayed']).toBe('true');
    expect(h.terminal.stats.orderSendCalls).toBe(1);
  });

  it('the same signal_id re-sent identical after completion while TRADING_ENABLED=false: the stored response replayed', async () => {
    const body = signal();
    const { first, h } = await completedThenRestarted(body, { TRADING_ENABLED: 'false' });
    expectReplayOf(await postSignal(h.app, body), first);
  });

  it('the same signal_id re-sent identical after its symbol left ALLOWED_SYMBOLS: the stored response replayed', async () => {
    const body = signal();
    const { first, h } = await completedThenRestarted(body, { ALLOWED_SYMBOLS: 'GBPUSD' });
    expectReplayOf(await postSignal(h.app, body), first);
  });

  it('the same signal_id re-sent identical after completion while the terminal is disconnected: the stored response replayed', async () => {
    const h = await setup();
    const body = signal();
    const first = await postSignal(h.app, body);
    h.terminal.setConnected(false);
    expectReplayOf(await postSignal(h.app, body), first);
  });

  it('the same signal_id re-sent with a changed field while TRADING_ENABLED=false: 409 idempotency_conflict', async () => {
    const body = signal();
    const { h } = await completedThenRestarted(body, { TRADING_ENABLED: 'false' });
    expectEnvelope(await postSignal(h.app, { ...body, volume: '0.11' }), 409, 'idempotency_conflict');
  });

  it('the same signal still being processed while the terminal is disconnected: 409 signal_in_progress', async () => {
    const h = await setup();
    const body = signal();
    const { first } = await heldInside(h, 'orderSend', body);
    h.terminal.setConnected(false);
    expectEnvelope(await postSignal(h.app, body), 409, 'signal_in_progress');
    h.terminal.releaseHung();
    await first;
  });

  it('an ambiguous broker send result: 503 execution_outcome_unknown, no retry', async () => {
    const h = await setup();
    h.terminal.injectFault({ method: 'orderSend', kind: 'ambiguous', times: 1 });
    const body = signal();
    const first = await postSignal(h.app, body);
    expectEnvelope(first, 503, 'execution_outcome_unknown');
    const again = await postSignal(h.app, body);
    expect(again.body).toBe(first.body);
    expect(h.terminal.stats.orderSendCalls).toBe(1);
    // The ambiguous send did reach the simulated server: the order exists, and stays unknown to us.
    expect(h.terminal.stats.ordersProcessed).toBe(1);
  });
});

describe('spec 001 (A) endpoints', () => {
  it('POST /v1/signals validates and executes a signal', async () => {
    const h = await setup();
    expect((await postSignal(h.app, signal())).json()).toMatchObject({ state: 'filled' });
    expect(await h.terminal.positions()).toHaveLength(1);
  });

  it('GET /v1/signals/{signal_id} returns the durable record: state, request, tickets, result, timestamps', async () => {
    const h = await setup();
    const body = signal({ volume: '0.20' });
    const posted = (await postSignal(h.app, body)).json();
    const res = await getSignal(h.app, id(body).toUpperCase());
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      signal_id: id(body),
      state: 'filled',
      request: body,
      order_comment: orderComment('tradingview', id(body)),
      tickets: posted.tickets,
      result: posted.result,
      error: null,
      http_status: 200,
      reconciliation: null,
      received_at: new Date(NOW).toISOString(),
      completed_at: new Date(NOW).toISOString(),
      updated_at: new Date(NOW).toISOString(),
    });
  });

  it('GET /v1/signals/{signal_id} answers 404 signal_not_found for an unknown id', async () => {
    const h = await setup();
    expectEnvelope(await getSignal(h.app, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'), 404, 'signal_not_found');
  });

  it('GET /v1/signals/{signal_id} answers 422 for an id that is not a UUID', async () => {
    const h = await setup();
    expect(detailPaths(expectEnvelope(await getSignal(h.app, 'not-a-uuid'), 422, 'validation_error'))).toContain('params.signal_id');
  });

  it('GET /v1/market-data/candles returns historical OHLC candles from the terminal', async () => {
    const h = await setup();
    const res = await h.app.inject({ method: 'GET', url: '/v1/market-data/candles?quote=EURUSD&timeframe=H1&count=24', headers: { 'x-api-key': API_KEY } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ quote: 'EURUSD', timeframe: 'H1', candles: expect.any(Array) });
    expect(res.json().candles).toHaveLength(24);
    expect(h.terminal.stats.ratesCalls).toBe(1);
  });

  it('GET /health/live answers 200 without a key', async () => {
    const h = await setup();
    expect((await h.app.inject({ method: 'GET', url: '/health/live' })).statusCode).toBe(200);
  });

  it('GET /health/ready answers 200 when the terminal is connected and TRADING_ENABLED=true', async () => {
    const h = await setup();
    const res = await h.app.inject({ method: 'GET', url: '/health/ready' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ status: 'ready', checks: { terminal: { ok: true }, trading_enabled: { ok: true } } });
  });

  it('GET /health/ready answers 503 naming the terminal when it is disconnected', async () => {
    const h = await setup();
    h.terminal.setConnected(false);
    const res = await h.app.inject({ method: 'GET', url: '/health/ready' });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({ status: 'not_ready', checks: { terminal: { ok: false }, trading_enabled: { ok: true } } });
  });

  it('GET /health/ready answers 503 naming trading_enabled when TRADING_ENABLED=false', async () => {
    const h = await setup({ env: { TRADING_ENABLED: 'false' } });
    const res = await h.app.inject({ method: 'GET', url: '/health/ready' });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({ checks: { terminal: { ok: true }, trading_enabled: { ok: false, detail: 'TRADING_ENABLED=false' } } });
  });

  it('GET /docs serves the interactive API page documenting the /v1 routes', async () => {
    const h = await setup();
    expect((await h.app.inject({ method: 'GET', url: '/docs/' })).statusCode).toBe(200);
    const paths = Object.keys((await h.app.inject({ method: 'GET', url: '/docs/json' })).json().paths as object);
    expect(paths).toEqual(expect.arrayContaining(['/v1/signals', '/v1/signals/{signal_id}', '/v1/market-data/candles', '/health/ready']));
  });
});

describe('spec 001 (A) authentication', () => {
  for (const url of ['/v1/signals/a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '/v1/market-data/candles?quote=EURUSD']) {
    it(`answers 401 with the envelope on ${url.split('?')[0]} without X-API-Key or with a wrong one`, async () => {
      const h = await setup();
      expectEnvelope(await h.app.inject({ method: 'GET', url }), 401, 'unauthorized');
      expectEnvelope(await h.app.inject({ method: 'GET', url, headers: { 'x-api-key': 'wrong-key-123' } }), 401, 'unauthorized');
    });
  }

  it('answers 401 to POST /v1/signals without a key before reading the body, and places nothing', async () => {
    const h = await setup();
    expectEnvelope(await h.app.inject({ method: 'POST', url: '/v1/signals', payload: signal() }), 401, 'unauthorized');
    expect(h.terminal.stats.orderCheckCalls).toBe(0);
  });

  it('logs only whether a key was present, never its value', async () => {
    const capture = new LogCapture();
    const h = await setup({ logger: createLogger({ name: 'execution', level: 'debug', stream: capture }) });
    await h.app.inject({ method: 'GET', url: '/v1/signals/a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', headers: { 'x-api-key': 'wrong-secret-value' } });
    await h.app.inject({ method: 'POST', url: '/v1/signals', payload: signal() });
    await postSignal(h.app, signal());
    const text = capture.text();
    expect(text).toContain('"keyPresent":true');
    expect(text).toContain('"keyPresent":false');
    expect(text).not.toContain('wrong-secret-value');
    expect(text).not.toContain(API_KEY);
  });
});

describe('spec 001 (A) errors', () => {
  it('401: missing or invalid X-API-Key', async () => {
    const h = await setup();
    expectEnvelope(await postSignal(h.app, signal(), { 'x-api-key': 'nope-nope-nope' }), 401, 'unauthorized');
  });

  it('409 idempotency_conflict: same signal_id re-sent with a different payload', async () => {
    const h = await setup();
    const body = signal();
    await postSignal(h.app, body);
    expectEnvelope(await postSignal(h.app, { ...body, volume: '0.2' }), 409, 'idempotency_conflict');
  });

  it('409 signal_in_progress: the same signal is still being processed', async () => {
    const h = await setup();
    const body = signal();
    const { first } = await heldInside(h, 'orderCheck', body);
    expectEnvelope(await postSignal(h.app, body), 409, 'signal_in_progress');
    h.terminal.releaseHung();
    expect((await first).statusCode).toBe(200);
  });

  it('422 validation error: bad or missing fields, wrong types, with a detail per problem', async () => {
    const h = await setup();
    const body = expectEnvelope(await postSignal(h.app, signal({ volume: 1, direction: 'up', symbol: undefined })), 422, 'validation_error');
    expect(detailPaths(body)).toEqual(expect.arrayContaining(['body.volume', 'body.direction', 'body.symbol']));
  });

  it('422 source_not_allowed: source not in ALLOWED_SIGNAL_SOURCES, nothing stored', async () => {
    const h = await setup({ env: { ALLOWED_SIGNAL_SOURCES: 'fxdesk-strategy' } });
    const body = signal({ source: 'tradingview' });
    expectEnvelope(await postSignal(h.app, body), 422, 'source_not_allowed');
    expectEnvelope(await getSignal(h.app, id(body)), 404, 'signal_not_found');
  });

  it('422 preflight_rejected: the broker pre-check returned a nonzero return code', async () => {
    const h = await setup({ balance: '100' });
    const body = signal({ volume: '1' });
    const res = expectEnvelope(await postSignal(h.app, body), 422, 'preflight_rejected');
    expect(res.message).toContain('TRADE_RETCODE_NO_MONEY');
    expect(h.terminal.stats.orderSendCalls).toBe(0);
    expect((await getSignal(h.app, id(body))).json()).toMatchObject({ state: 'rejected', result: { retcode: 10019 } });
  });

  it('503 not ready: terminal disconnected, nothing stored', async () => {
    const h = await setup();
    h.terminal.setConnected(false);
    const body = signal();
    expectEnvelope(await postSignal(h.app, body), 503, 'not_ready');
    expectEnvelope(await getSignal(h.app, id(body)), 404, 'signal_not_found');
  });

  it('503 not ready: TRADING_ENABLED=false, nothing stored', async () => {
    const h = await setup({ env: { TRADING_ENABLED: 'false' } });
    const body = signal();
    expect(expectEnvelope(await postSignal(h.app, body), 503, 'not_ready').message).toContain('TRADING_ENABLED=false');
    expectEnvelope(await getSignal(h.app, id(body)), 404, 'signal_not_found');
    expect(h.terminal.stats.orderCheckCalls).toBe(0);
  });

  it('503 execution_outcome_unknown: broker send result ambiguous, not retried', async () => {
    const h = await setup();
    h.terminal.injectFault({ method: 'orderSend', kind: 'timeout', times: 1 });
    const body = signal();
    expect(expectEnvelope(await postSignal(h.app, body), 503, 'execution_outcome_unknown').message).toContain('human');
    expectEnvelope(await postSignal(h.app, body), 503, 'execution_outcome_unknown');
    expect(h.terminal.stats.orderSendCalls).toBe(1);
  });
});

describe('spec 001 (A) limits', () => {
  it('MAXIMUM_VOLUME applies to the volume of a signal', async () => {
    const h = await setup({ env: { MAXIMUM_VOLUME: '0.5' } });
    expectEnvelope(await postSignal(h.app, signal({ volume: '0.51' })), 422, 'invalid_volume');
    expect((await postSignal(h.app, signal({ volume: '0.5' }))).statusCode).toBe(200);
  });

  it('MAX_DEVIATION_POINTS applies to deviation_points', async () => {
    const h = await setup({ env: { MAX_DEVIATION_POINTS: '5' } });
    expectEnvelope(await postSignal(h.app, signal({ deviation_points: 6 })), 422, 'invalid_deviation');
  });

  it('MAX_CANDLES_LOOKBACK applies to the count of candles', async () => {
    const h = await setup({ env: { MAX_CANDLES_LOOKBACK: '7' } });
    const res = await h.app.inject({ method: 'GET', url: '/v1/market-data/candles?quote=EURUSD&count=100', headers: { 'x-api-key': API_KEY } });
    expect(res.json().candles).toHaveLength(7);
  });

  it('SIGNAL_MAX_AGE_SECONDS applies to signal freshness, skipped when ignore_signal_age is true', async () => {
    const h = await setup({ env: { SIGNAL_MAX_AGE_SECONDS: '10' } });
    const occurred_at = new Date(NOW - 11_000).toISOString();
    expectEnvelope(await postSignal(h.app, signal({ occurred_at, ignore_signal_age: false })), 422, 'signal_too_old');
    expect((await postSignal(h.app, signal({ occurred_at, ignore_signal_age: true }))).statusCode).toBe(200);
  });
});
