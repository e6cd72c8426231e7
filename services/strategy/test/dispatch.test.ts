import { ExecutionClient, NotificationClient } from '@fxdesk/client';
import { createLogger } from '@fxdesk/core';
import { LogCapture } from '@fxdesk/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { signalIdFor } from '../src/signal-id.js';
import { accepted, envelope, fakeService, filled, type FakeService } from './fake-service.js';
import { advanceUntilSignal, harness, type Harness } from './helpers.js';

let cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

async function desk(options: { execution?: FakeService; notification?: FakeService; env?: Record<string, string>; logs?: LogCapture } = {}): Promise<Harness> {
  const execution = options.execution && new ExecutionClient({ baseUrl: options.execution.url, apiKey: 'exec-key-123', timeoutMs: 2000 });
  const notification = options.notification && new NotificationClient({ baseUrl: options.notification.url, apiKey: 'notify-key-123', timeoutMs: 2000 });
  const logger = options.logs && createLogger({ name: 'strategy', level: 'info', stream: options.logs });
  const h = await harness({ env: { MIN_CONFLUENCE: '1', ...options.env }, deps: { execution, notification, logger } });
  cleanups.push(async () => {
    await h.close();
    await execution?.close();
    await notification?.close();
  });
  return h;
}

/** The orders a fake execution service received (a live signal first reads the strategy's positions of its pair). */
const orders = (execution: FakeService) => execution.requests.filter((r) => r.method === 'POST' && r.url === '/v1/signals');

async function fake(handler: Parameters<typeof fakeService>[0]): Promise<FakeService> {
  const service = await fakeService(handler);
  cleanups.push(service.close);
  return service;
}

describe('orders to the execution service', () => {
  it('submits each signal of a dry_run false start with its deterministic signal_id and stores the outcome with the signal', async () => {
    const execution = await fake(filled);
    const h = await desk({ execution });
    await h.app.inject({ method: 'POST', url: '/start', payload: { dry_run: false } });
    await advanceUntilSignal(h);
    await h.settle();
    const signals = (await h.store.page({ limit: 500 })).signals;
    expect(orders(execution)).toHaveLength(signals.length);
    const signal = signals[0]!;
    const request = orders(execution).find((r) => (r.body as { signal_id: string }).signal_id === signal.signal_id)!;
    expect(request.method).toBe('POST');
    expect(request.url).toBe('/v1/signals');
    expect(request.headers['x-api-key']).toBe('exec-key-123');
    expect(request.body).toEqual({
      signal_id: signalIdFor(signal.instrument, 'M5', Date.parse(signal.candle_time) / 1000),
      occurred_at: signal.generated_at,
      execution_type: 'market',
      symbol: signal.symbol,
      direction: signal.type === 'LONG' ? 'buy' : 'sell',
      volume: '0.10',
      source: 'fxdesk-strategy',
      stop_loss: String(signal.stop_loss),
      take_profit: String(signal.take_profit),
      note: expect.stringContaining(signal.instrument),
      ignore_signal_age: false,
    });
    expect(signal.execution).toMatchObject({ status: 'filled', code: null, tickets: { order: '5001', deal: '6001', position: '5001' }, attempts: 1 });
    const status = (await h.app.inject({ url: '/status' })).json();
    expect(status.downstream.execution).toMatchObject({ configured: true, state: 'ok', consecutive_failures: 0 });
  });

  it('retries a failed submission with the identical payload, so the execution service can never trade it twice', async () => {
    let calls = 0;
    const execution = await fake((request) =>
      request.url === '/v1/signals' && ++calls === 1 ? { status: 503, body: envelope('not_ready'), headers: { 'retry-after': '1' } } : filled(request),
    );
    const h = await desk({ execution, env: { INSTRUMENTS: 'EUR_USD' } });
    await h.app.inject({ method: 'POST', url: '/start' });
    await advanceUntilSignal(h);
    await h.advance(1000);
    const signal = (await h.store.page({ limit: 1 })).signals[0]!;
    const attempts = orders(execution).filter((r) => (r.body as { signal_id: string }).signal_id === signal.signal_id);
    expect(attempts).toHaveLength(2);
    expect(attempts[1]!.body).toEqual(attempts[0]!.body);
    expect(signal.execution).toMatchObject({ status: 'filled', attempts: 2 });
  });

  it('stores rejected with the code when the execution service refuses the order, without retrying', async () => {
    const execution = await fake(() => ({ status: 422, body: envelope('invalid_stops', 'stop loss too close') }));
    const h = await desk({ execution, env: { INSTRUMENTS: 'EUR_USD' } });
    await h.app.inject({ method: 'POST', url: '/start' });
    await advanceUntilSignal(h);
    await h.advance(10_000);
    const signal = (await h.store.page({ limit: 1 })).signals[0]!;
    expect(signal.execution).toMatchObject({ status: 'rejected', code: 'invalid_stops', attempts: 1 });
    expect(orders(execution)).toHaveLength(1);
  });

  it('stores unknown and never repeats the order when the execution outcome is unknown', async () => {
    const execution = await fake(() => ({ status: 503, body: envelope('execution_outcome_unknown') }));
    const h = await desk({ execution, env: { INSTRUMENTS: 'EUR_USD' } });
    await h.app.inject({ method: 'POST', url: '/start' });
    await advanceUntilSignal(h);
    await h.advance(10_000);
    expect((await h.store.page({ limit: 1 })).signals[0]!.execution).toMatchObject({ status: 'unknown', code: 'execution_outcome_unknown' });
    expect(orders(execution)).toHaveLength(1);
  });

  it('stores failed when the execution service cannot be reached, shows it in /status, and keeps the strategy running', async () => {
    const gone = await fake(filled);
    await gone.close();
    const h = await desk({ execution: gone, env: { INSTRUMENTS: 'EUR_USD', DOWNSTREAM_RETRIES: '1' } });
    await h.app.inject({ method: 'POST', url: '/start' });
    await advanceUntilSignal(h);
    await h.advance(1000);
    expect((await h.store.page({ limit: 1 })).signals[0]!.execution).toMatchObject({ status: 'failed', code: 'network_error', attempts: 2 });
    const status = (await h.app.inject({ url: '/status' })).json();
    expect(status.running).toBe(true);
    expect(status.downstream.execution).toMatchObject({ state: 'failing', last_error: { code: 'network_error' } });
    await h.advance(300_000);
    expect((await h.app.inject({ url: '/pairs' })).json().pairs[0].status).toBe('monitoring');
  });

  it('logs the failure once as a warning naming the service and code, never the key', async () => {
    const execution = await fake(() => ({ status: 503, body: envelope('not_ready') }));
    const logs = new LogCapture();
    const h = await desk({ execution, logs, env: { INSTRUMENTS: 'EUR_USD', DOWNSTREAM_RETRIES: '2' } });
    await h.app.inject({ method: 'POST', url: '/start' });
    await advanceUntilSignal(h);
    await h.advance(1000);
    await h.advance(2000);
    const warnings = logs.lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.level === 'warn' && l.service === 'execution');
    expect(warnings[0]).toMatchObject({ msg: 'execution call failed; the strategy goes on', code: 'not_ready' });
    expect(warnings.filter((l) => l.msg === 'execution call failed; the strategy goes on')).toHaveLength(1);
    expect(logs.text()).not.toContain('exec-key-123');
  });

  it('sends no order for a dry_run start: the paper account trades instead', async () => {
    const execution = await fake(filled);
    const h = await desk({ execution });
    await h.app.inject({ method: 'POST', url: '/start', payload: { dry_run: true } });
    await advanceUntilSignal(h);
    await h.settle();
    expect(orders(execution)).toHaveLength(0);
    expect((await h.store.page({ limit: 1 })).signals[0]!.execution.status).toBe('paper');
    // The paper account holds the signal's trade, which enters at the next candle's open.
    const [trade] = await h.stores.paperTrades.positions();
    expect(trade?.signalId).toBe((await h.store.page({ limit: 1 })).signals[0]!.signal_id);
  });

  it('sends on start-up what a previous process left pending', async () => {
    const execution = await fake(filled);
    const h = await desk({ execution, env: { INSTRUMENTS: 'EUR_USD' } });
    await h.app.inject({ method: 'POST', url: '/start' });
    await advanceUntilSignal(h);
    await h.settle();
    const signal = (await h.store.page({ limit: 1 })).signals[0]!;
    await h.store.updateExecution(signal, { ...signal.execution, status: 'pending' });
    const second = await harness({ clock: h.clock, deps: { stores: h.stores, execution: new ExecutionClient({ baseUrl: execution.url }) } });
    await second.settle();
    expect(orders(execution).filter((r) => (r.body as { signal_id: string }).signal_id === signal.signal_id)).toHaveLength(2);
    expect((await h.store.find(signal.signal_id))?.execution.status).toBe('filled');
    await second.app.close();
  });
});

describe('announcements to the notification service', () => {
  it('announces each signal with its signal_id as idempotencyKey and stores the request id', async () => {
    const notification = await fake(accepted);
    const h = await desk({ notification, env: { INSTRUMENTS: 'EUR_USD' } });
    await h.app.inject({ method: 'POST', url: '/start', payload: { dry_run: true } });
    await advanceUntilSignal(h);
    await h.settle();
    const signal = (await h.store.page({ limit: 1 })).signals[0]!;
    const request = notification.requests[0]!;
    expect(request.url).toBe('/notifications');
    expect(request.headers['x-api-key']).toBe('notify-key-123');
    expect(request.body).toEqual({
      message: expect.stringContaining(`${signal.type} ${signal.instrument} at ${signal.entry_price}`),
      subject: `${signal.type} ${signal.instrument} (paper)`,
      channels: ['CHAT_APP'],
      source: 'fxdesk-strategy',
      idempotencyKey: signal.signal_id,
    });
    expect(signal.notification).toMatchObject({
      status: 'sent',
      request_id: '7d1f3c2e-5b6a-4c8d-9e0f-1a2b3c4d5e6f',
      delivery_ids: ['0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0'],
    });
  });

  it('announces after the order, with its outcome', async () => {
    const execution = await fake(filled);
    const notification = await fake(accepted);
    const h = await desk({ execution, notification, env: { INSTRUMENTS: 'EUR_USD' } });
    await h.app.inject({ method: 'POST', url: '/start' });
    await advanceUntilSignal(h);
    await h.settle();
    expect((notification.requests[0]!.body as { message: string }).message).toContain('execution: filled');
  });

  it('records a failed announcement without touching the order, and the strategy goes on', async () => {
    const execution = await fake(filled);
    const notification = await fake(() => ({ status: 401, body: envelope('unauthorized') }));
    const h = await desk({ execution, notification, env: { INSTRUMENTS: 'EUR_USD' } });
    await h.app.inject({ method: 'POST', url: '/start' });
    await advanceUntilSignal(h);
    await h.settle();
    const signal = (await h.store.page({ limit: 1 })).signals[0]!;
    expect(signal.execution.status).toBe('filled');
    expect(signal.notification).toMatchObject({ status: 'failed', message: expect.stringContaining('unauthorized') });
    const status = (await h.app.inject({ url: '/status' })).json();
    expect(status.running).toBe(true);
    expect(status.downstream.notification).toMatchObject({ state: 'failing', last_error: { code: 'unauthorized' } });
  });
});
