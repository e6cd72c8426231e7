import type { StartResponse } from '@fxdesk/schemas';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Api, ApiError, describeRefusal, newIdempotencyKey, tradesCsvHref } from '../src/api.js';
import { status } from './fixtures.js';

interface Sent {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string | undefined;
}

/** Stands in for the browser's fetch: answers each request with the next of `answers` and keeps what was sent. */
function serve(...answers: Response[]): Sent[] {
  const sent: Sent[] = [];
  vi.stubGlobal('fetch', async (url: string, init: RequestInit) => {
    sent.push({ url, method: init.method ?? 'GET', headers: init.headers as Record<string, string>, body: init.body as string | undefined });
    const answer = answers.shift();
    if (!answer) throw new TypeError('Failed to fetch');
    return answer;
  });
  return sent;
}

function json(body: unknown, statusCode = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status: statusCode, headers: { 'content-type': 'application/json', ...headers } });
}

function envelope(code: string, message: string, details?: { path: string; message: string }[]) {
  return { error: true, code, message, timestamp: '2026-01-07T12:33:20.000Z', ...(details ? { details } : {}) };
}

const started: StartResponse = { success: true, message: 'started', started_at: '2026-01-07T12:33:20.000Z', instruments: ['EUR_USD'], dry_run: true };

describe("the console's calls to the strategy", () => {
  let api: Api;
  beforeEach(() => {
    api = new Api();
  });
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it("reads an answer with its call's schema, at the console's copy of the route", async () => {
    const sent = serve(json(status()));
    expect(await api.status()).toEqual(status());
    expect(sent).toMatchObject([{ url: '/console/status', method: 'GET' }]);
  });

  it('fills the path parameters and the query, leaving out what is empty', async () => {
    const sent = serve(json({ instrument: 'EUR/USD', timeframe: 'M5', candles: [] }));
    await api.pairCandles('EUR/USD', { limit: 1 }).catch(() => undefined);
    await api.orders({ limit: 50, cursor: null, state: undefined }).catch(() => undefined);
    expect(sent.map((s) => s.url)).toEqual(['/console/pairs/EUR%2FUSD/candles?limit=1', '/console/orders?limit=50']);
  });

  it('sends a close under the Idempotency-Key it is given, with the CSRF token', async () => {
    api.csrfToken = 'csrf-1';
    const sent = serve(json({ error: true, code: 'EXECUTION_OUTCOME_UNKNOWN', message: 'unknown', timestamp: '2026-01-07T12:33:20.000Z' }, 503));
    const err = await api.closePosition('5001', 'console-key-1').catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 503, code: 'EXECUTION_OUTCOME_UNKNOWN' });
    expect(sent).toMatchObject([{ url: '/console/positions/5001/close', method: 'POST', body: '{}' }]);
    expect(sent[0]?.headers).toMatchObject({ 'idempotency-key': 'console-key-1', 'x-csrf-token': 'csrf-1' });
  });

  it('makes a new Idempotency-Key each time, one the execution service takes', () => {
    const keys = new Set([newIdempotencyKey(), newIdempotencyKey()]);
    expect(keys.size).toBe(2);
    for (const key of keys) expect(key).toMatch(/^[\x21\x22\x24-\x7e]{1,128}$/);
  });

  it('links the journal’s CSV with its filters', () => {
    expect(tradesCsvHref({ account: 'live', instrument: undefined, exit_reason: 'flatten' })).toBe(
      '/console/trades?account=live&exit_reason=flatten&format=csv',
    );
  });

  it('refuses an answer of another shape as INVALID_RESPONSE, naming the field', async () => {
    serve(json({ ...status(), running: 'yes' }));
    const err = await api.status().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 200, code: 'INVALID_RESPONSE' });
    expect((err as ApiError).message).toContain('running');
  });

  it("surfaces a refusal's code, message, details and Retry-After", async () => {
    const details = [{ path: 'body.rules.min_confluence', message: 'Too big' }];
    serve(json(envelope('VALIDATION_ERROR', 'invalid request', details), 422), json(envelope('RATE_LIMITED', 'slow down'), 429, { 'retry-after': '12' }));
    const refused = await api.startBacktest({ instruments: ['EUR_USD'], from: '2025-01-01', to: '2025-02-01' }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ status: 422, code: 'VALIDATION_ERROR', message: 'invalid request', details });
    expect(await api.backtests({}).catch((e: unknown) => e)).toMatchObject({ status: 429, code: 'RATE_LIMITED', retryAfterSeconds: 12 });
  });

  it("reads the journal's performance over a range at the console's copy of the route", async () => {
    const performance = {
      account: 'paper',
      from: '2026-01-05T00:00:00.000Z',
      to: '2026-01-07T12:33:20.000Z',
      initial_equity: 100_000,
      metrics: {
        net_profit: 40,
        trade_count: 1,
        win_rate: 1,
        profit_factor: null,
        expectancy: 40,
        average_r: 2,
        max_drawdown: 0,
        max_drawdown_percent: 0,
        sharpe: null,
        sortino: null,
        cagr: null,
        exposure: 0.01,
        longest_losing_streak: 0,
        gross_profit: 40,
        gross_loss: 0,
        final_equity: 100_040,
      },
      equity: [{ time: '2026-01-06T10:00:00.000Z', equity: 100_040 }],
      pnl_by_day: [],
      pnl_by_week: [],
    };
    const sent = serve(json(performance));
    expect(await api.performance({ account: 'paper', from: '2026-01-05T00:00:00.000Z' })).toEqual(performance);
    expect(sent.map((s) => s.url)).toEqual(['/console/performance?account=paper&from=2026-01-05T00%3A00%3A00.000Z']);
  });

  it('describes a refusal with what it found wrong, field by field', () => {
    const refused = new ApiError(422, 'VALIDATION_ERROR', 'invalid request', null, [{ path: 'body.to', message: 'not in the future' }]);
    expect(describeRefusal(refused)).toBe('invalid request (to: not in the future)');
    expect(describeRefusal(new ApiError(404, 'NOT_CONFIGURED', 'no ACCOUNT_URL'))).toBe('no ACCOUNT_URL');
  });

  it('describes an answer that is not the error envelope by its status', async () => {
    serve(new Response('<html>Bad gateway</html>', { status: 502, statusText: 'Bad Gateway' }));
    expect(await api.services().catch((e: unknown) => e)).toMatchObject({ status: 502, code: 'HTTP_502' });
  });

  it("sends a control with the session's CSRF token and its JSON body", async () => {
    const sent = serve(json(started));
    api.csrfToken = 'token-1';
    expect(await api.start({ dry_run: true, instruments: ['EUR_USD'] })).toEqual(started);
    expect(sent[0]).toMatchObject({ url: '/console/start', method: 'POST', body: '{"dry_run":true,"instruments":["EUR_USD"]}' });
    expect(sent[0]?.headers['x-csrf-token']).toBe('token-1');
  });

  it('tells onUnauthorized when a console route answers 401, but not for a wrong password', async () => {
    serve(json(envelope('UNAUTHORIZED', 'wrong password'), 401), json(envelope('UNAUTHORIZED', 'no session'), 401));
    const unauthorized = vi.fn();
    api.onUnauthorized = unauthorized;
    await api.login('nope').catch(() => undefined);
    expect(unauthorized).not.toHaveBeenCalled();
    await api.account().catch(() => undefined);
    expect(unauthorized).toHaveBeenCalledOnce();
  });

  it('reads a deleted job (204) as undefined', async () => {
    const sent = serve(new Response(null, { status: 204 }));
    expect(await api.deleteBacktest('b-1')).toBeUndefined();
    expect(sent).toMatchObject([{ url: '/backtests/b-1', method: 'DELETE' }]);
  });

  it('fails as NETWORK when nothing answers', async () => {
    serve();
    expect(await api.session().catch((e: unknown) => e)).toMatchObject({ status: 0, code: 'NETWORK', isNetwork: true });
  });
});
