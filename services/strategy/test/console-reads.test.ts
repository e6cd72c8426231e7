import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { AccountClient, ExecutionClient, NotificationClient } from '@fxdesk/client';
import {
  AccountSummaryReadSchema,
  ConsoleServicesSchema,
  DeliveryListSchema,
  SignalListSchema,
  SignalRecordSchema,
  type AccountSummaryRead,
  type DeliveryList,
  type SignalRecord,
} from '@fxdesk/schemas';
import { afterEach, describe, expect, it } from 'vitest';
import { envelope, fakeService, type FakeAnswer, type FakeService, type RecordedRequest } from './fake-service.js';
import { harness, type Harness } from './helpers.js';

const SIGNAL_ID = '3f2c8a4e-9b1d-5e7f-8a6b-1c2d3e4f5a6b';
/** A cursor as the execution service writes them (30 base64url characters). */
const CURSOR = 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';

const SUMMARY: AccountSummaryRead = AccountSummaryReadSchema.parse({
  account: {
    id: '101-004-1435156-001',
    alias: null,
    currency: 'USD',
    balance: '100000.0000',
    nav: '100250.5000',
    unrealizedPL: '250.5000',
    realizedPL: '0.0000',
    marginUsed: '3300.2500',
    marginAvailable: '96950.2500',
    marginRate: '0.0333',
    openTradeCount: 1,
    openPositionCount: 1,
    pendingOrderCount: 0,
    lastTransactionId: '6358',
    asOf: '2026-01-05T12:00:00.000Z',
  },
  snapshot: { id: 7, takenAt: '2026-01-05T12:00:00.000Z' },
});

const ORDER: SignalRecord = SignalRecordSchema.parse({
  signal_id: SIGNAL_ID,
  state: 'filled',
  request: { signal_id: SIGNAL_ID, symbol: 'EURUSD', direction: 'buy', volume: '0.10' },
  order_comment: 'fxdesk-strategy 3f2c8a4e',
  tickets: { order: '5001', deal: '6001', position: '5001' },
  result: { retcode: 10009, retcode_name: 'TRADE_RETCODE_DONE', requested_volume: '0.10', filled_volume: '0.10', price: '1.10012', broker_comment: 'done' },
  error: null,
  http_status: 200,
  reconciliation: null,
  received_at: '2026-01-05T12:00:01.000Z',
  completed_at: '2026-01-05T12:00:01.200Z',
  updated_at: '2026-01-05T12:00:01.200Z',
});

const DELIVERIES: DeliveryList = DeliveryListSchema.parse({
  items: [
    {
      id: '0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0',
      requestId: '7d1f3c2e-5b6a-4c8d-9e0f-1a2b3c4d5e6f',
      channel: 'CHAT_APP',
      recipient: '@desk',
      source: 'fxdesk-strategy',
      status: 'sent',
      attempts: 1,
      provider: 'sandbox',
      providerMessageId: '42',
      error: null,
      subject: 'LONG EUR_USD (paper)',
      createdAt: '2026-01-05T12:00:01.000Z',
      updatedAt: '2026-01-05T12:00:02.000Z',
      nextAttemptAt: null,
      sentAt: '2026-01-05T12:00:02.000Z',
      deliveredAt: null,
      readAt: null,
    },
  ],
  nextCursor: 'c2',
});

const READY = { status: 200, body: { status: 'ready', checks: { broker: { ok: true, detail: 'connected' } } } };

let cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

async function fake(handler: (request: RecordedRequest) => FakeAnswer): Promise<FakeService> {
  const service = await fakeService(handler);
  cleanups.push(service.close);
  return service;
}

/** A URL where nothing listens (a service that is down). */
async function deadUrl(): Promise<string> {
  const service = await fakeService(() => ({ status: 200 }));
  await service.close();
  return service.url;
}

/** A server that takes requests and never answers them. */
async function silentUrl(): Promise<string> {
  const server = http.createServer(() => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** The strategy with the given downstream URLs, each read through its client with a key, as deps.ts builds them. */
async function desk(urls: { account?: string; execution?: string; notification?: string; marketData?: string } = {}): Promise<Harness> {
  const options = (baseUrl: string, apiKey: string) => ({ baseUrl, apiKey, timeoutMs: 500 });
  const account = urls.account === undefined ? undefined : new AccountClient(options(urls.account, 'account-key-123'));
  const execution = urls.execution === undefined ? undefined : new ExecutionClient(options(urls.execution, 'exec-key-123'));
  const notification = urls.notification === undefined ? undefined : new NotificationClient(options(urls.notification, 'notify-key-123'));
  const env: Record<string, string> = { DOWNSTREAM_TIMEOUT_MS: '500', ACCOUNT_REFRESH_SECONDS: '0' };
  if (urls.account) env.ACCOUNT_URL = urls.account;
  if (urls.execution) env.EXECUTION_URL = urls.execution;
  if (urls.notification) env.NOTIFICATION_URL = urls.notification;
  if (urls.marketData) env.MARKET_DATA_URL = urls.marketData;
  const h = await harness({ env, deps: { account, execution, notification } });
  cleanups.push(async () => {
    await h.close();
    await Promise.all([account?.close(), execution?.close(), notification?.close()]);
  });
  return h;
}

describe('GET /console/services', () => {
  it("reads each service's /health/ready now: ready, not ready with its failing check, no readiness record, not reachable", async () => {
    const account = await fake(() => READY);
    const execution = await fake(() => ({
      status: 503,
      body: { status: 'not_ready', checks: { terminal: { ok: false, detail: 'MT5 not logged in' }, store: { ok: true } } },
    }));
    const notification = await fake(() => ({ status: 404, body: envelope('not_found') }));
    const h = await desk({ account: account.url, execution: execution.url, notification: notification.url, marketData: await deadUrl() });
    const res = await h.app.inject({ url: '/console/services' });
    expect(res.statusCode).toBe(200);
    const services = ConsoleServicesSchema.parse(res.json());
    expect(services.account).toEqual({ configured: true, reachable: true, ready: true, checks: { broker: { ok: true, detail: 'connected' } }, error: null });
    expect(services.execution).toMatchObject({ configured: true, reachable: true, ready: false, error: 'not ready: terminal (MT5 not logged in)' });
    expect(services.notification).toMatchObject({
      configured: true,
      reachable: true,
      ready: false,
      error: 'GET /health/ready answered 404 without a readiness record',
    });
    expect(services.market_data).toMatchObject({ configured: true, reachable: false, ready: false, error: expect.stringContaining('ECONNREFUSED') });
    expect(account.requests.map((r) => r.url)).toEqual(['/health/ready']);
  });

  it('says which services the strategy has no URL for, and one that does not answer in time', async () => {
    const h = await desk({ account: await silentUrl() });
    const services = (await h.app.inject({ url: '/console/services' })).json<Record<string, unknown>>();
    for (const name of ['market_data', 'execution', 'notification']) {
      expect(services[name]).toEqual({ configured: false, reachable: false, ready: false, checks: {}, error: null });
    }
    expect(services.account).toMatchObject({ configured: true, reachable: false, ready: false, error: 'no answer within 500 ms' });
  });
});

describe('GET /console/account', () => {
  it("answers the account service's summary read, asked with the strategy's key", async () => {
    const account = await fake(() => ({ status: 200, body: SUMMARY }));
    const h = await desk({ account: account.url });
    const res = await h.app.inject({ url: '/console/account' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(SUMMARY);
    expect(account.requests[0]).toMatchObject({ method: 'GET', url: '/api/v1/account/summary' });
    expect(account.requests[0]?.headers['x-internal-api-key']).toBe('account-key-123');
    expect(res.body).not.toContain('account-key-123');
  });

  it('answers 404 NOT_CONFIGURED without ACCOUNT_URL', async () => {
    const h = await desk();
    const res = await h.app.inject({ url: '/console/account' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ code: 'NOT_CONFIGURED', message: expect.stringContaining('ACCOUNT_URL') });
  });

  it('answers 503 when the service is down, 504 when it does not answer in time, 502 when it answers an error', async () => {
    const down = await desk({ account: await deadUrl() });
    expect((await down.app.inject({ url: '/console/account' })).json()).toMatchObject({ code: 'DOWNSTREAM_UNAVAILABLE' });
    expect((await down.app.inject({ url: '/console/account' })).statusCode).toBe(503);

    const silent = await desk({ account: await silentUrl() });
    const late = await silent.app.inject({ url: '/console/account' });
    expect(late.statusCode).toBe(504);
    expect(late.json()).toMatchObject({ code: 'DOWNSTREAM_TIMEOUT' });

    const failing = await fake(() => ({ status: 500, body: envelope('broker_error', 'OANDA answered 500') }));
    const broken = await desk({ account: failing.url });
    const res = await broken.app.inject({ url: '/console/account' });
    expect(res.statusCode).toBe(502);
    expect(res.json()).toMatchObject({ code: 'DOWNSTREAM_ERROR', message: expect.stringContaining('broker_error') });
  });

  it("passes on a 503's Retry-After", async () => {
    const busy = await fake(() => ({ status: 503, body: envelope('broker_unavailable'), headers: { 'retry-after': '7' } }));
    const h = await desk({ account: busy.url });
    const res = await h.app.inject({ url: '/console/account' });
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('7');
  });
});

describe('GET /console/orders', () => {
  it("passes the filters and cursor to the execution service's GET /v1/signals and answers its page", async () => {
    const page = SignalListSchema.parse({ signals: [ORDER], next_cursor: 'n2' });
    const execution = await fake(() => ({ status: 200, body: page }));
    const h = await desk({ execution: execution.url });
    const res = await h.app.inject({
      url: `/console/orders?state=filled&symbol=EURUSD&source=fxdesk-strategy&from=2026-01-05T00:00:00Z&limit=5&cursor=${CURSOR}`,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(page);
    const sent = new URL(execution.requests[0]!.url, 'http://x');
    expect(sent.pathname).toBe('/v1/signals');
    expect(Object.fromEntries(sent.searchParams)).toEqual({
      state: 'filled',
      symbol: 'EURUSD',
      source: 'fxdesk-strategy',
      from: '2026-01-05T00:00:00Z',
      limit: '5',
      cursor: CURSOR,
    });
    expect(execution.requests[0]?.headers['x-api-key']).toBe('exec-key-123');
  });

  it('refuses a filter the execution service does not know with 422, without asking it', async () => {
    const execution = await fake(() => ({ status: 200, body: { signals: [], next_cursor: null } }));
    const h = await desk({ execution: execution.url });
    const res = await h.app.inject({ url: '/console/orders?colour=red' });
    expect(res.statusCode).toBe(422);
    expect(execution.requests).toHaveLength(0);
  });

  it('answers one order, 404 ORDER_NOT_FOUND for one the execution service does not know, and 404 NOT_CONFIGURED without EXECUTION_URL', async () => {
    const execution = await fake((request) =>
      request.url === `/v1/signals/${SIGNAL_ID}` ? { status: 200, body: ORDER } : { status: 404, body: envelope('signal_not_found') },
    );
    const h = await desk({ execution: execution.url });
    expect((await h.app.inject({ url: `/console/orders/${SIGNAL_ID}` })).json()).toEqual(ORDER);
    const missing = await h.app.inject({ url: '/console/orders/0b7e6a52-8f0c-4d7e-9a51-3c2b1a0f9e8d' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ code: 'ORDER_NOT_FOUND' });
    const none = await desk();
    expect((await none.app.inject({ url: `/console/orders/${SIGNAL_ID}` })).json()).toMatchObject({ code: 'NOT_CONFIGURED' });
    expect((await none.app.inject({ url: '/console/orders' })).json()).toMatchObject({ code: 'NOT_CONFIGURED' });
  });
});

describe('GET /console/deliveries', () => {
  it("passes the filters to the notification service's GET /notifications and answers its page", async () => {
    const notification = await fake(() => ({ status: 200, body: DELIVERIES }));
    const h = await desk({ notification: notification.url });
    const res = await h.app.inject({ url: '/console/deliveries?source=fxdesk-strategy&status=sent&limit=20' });
    expect(res.json()).toEqual(DELIVERIES);
    const sent = new URL(notification.requests[0]!.url, 'http://x');
    expect(sent.pathname).toBe('/notifications');
    expect(Object.fromEntries(sent.searchParams)).toEqual({ source: 'fxdesk-strategy', status: 'sent', limit: '20' });
    expect(notification.requests[0]?.headers['x-api-key']).toBe('notify-key-123');
  });

  it('answers 404 NOT_CONFIGURED without NOTIFICATION_URL and 503 when the service is down', async () => {
    expect((await (await desk()).app.inject({ url: '/console/deliveries' })).json()).toMatchObject({ code: 'NOT_CONFIGURED' });
    const down = await desk({ notification: await deadUrl() });
    expect((await down.app.inject({ url: '/console/deliveries' })).statusCode).toBe(503);
  });
});
