import { ExecutionClient } from '@fxdesk/client';
import {
  ActionAnswerSchema,
  ClosePositionsAnswerSchema,
  JournalPageSchema,
  OpenPositionListSchema,
  type ActionAnswer,
  type OpenPositionList,
} from '@fxdesk/schemas';
import { afterEach, describe, expect, it } from 'vitest';
import { actionRecord, envelope, fakeService, type FakeAnswer, type FakeService, type RecordedRequest } from './fake-service.js';
import { harness, type Harness } from './helpers.js';

const KEY = 'console-close-7d1f3c2e';

const POSITIONS: OpenPositionList = OpenPositionListSchema.parse({
  positions: [
    {
      ticket: '5001',
      symbol: 'EURUSD',
      side: 'buy',
      volume: '0.10',
      open_price: '1.10012',
      sl: '1.09500',
      tp: '1.11000',
      profit: '12.40',
      swap: '-0.30',
      magic: 0,
      comment: 'fxdesk-strategy 3f2c8a4e',
      source: 'fxdesk-strategy',
      opened_at: '2026-01-05T12:00:01.000Z',
    },
  ],
});

const CLOSED: ActionAnswer = ActionAnswerSchema.parse({
  action_id: '0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0',
  kind: 'close',
  ticket: '5001',
  state: 'done',
  result: { retcode: 10009, retcode_name: 'TRADE_RETCODE_DONE', order: '5002', deal: '6002', volume: '0.10', price: '1.10100', broker_comment: 'done' },
});

/** The execution service's book and actions as documented; a repeated key replays its first answer. */
function book(): (request: RecordedRequest) => FakeAnswer {
  const seen = new Set<string>();
  return (request) => {
    const key = String(request.headers['idempotency-key']);
    const headers = seen.has(key) ? { 'idempotent-replayed': 'true' } : undefined;
    seen.add(key);
    if (request.method === 'GET' && request.url.startsWith('/v1/positions')) return { status: 200, body: POSITIONS };
    if (request.url === '/v1/positions/close-all') {
      return { status: 200, headers, body: { idempotency_key: key, positions: [{ ticket: '5001', state: 'done', http_status: 200, answer: CLOSED }] } };
    }
    if (request.url === '/v1/positions/5001/close') return { status: 200, headers, body: CLOSED };
    return { status: 404, body: envelope('position_not_found', 'no open position') };
  };
}

let cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

async function desk(execution?: FakeService): Promise<Harness> {
  const client = execution && new ExecutionClient({ baseUrl: execution.url, apiKey: 'exec-key-123', timeoutMs: 2000 });
  const h = await harness({ deps: { execution: client } });
  cleanups.push(async () => {
    await h.close();
    await client?.close();
  });
  return h;
}

async function withExecution(handler: (request: RecordedRequest) => FakeAnswer = book()): Promise<{ h: Harness; execution: FakeService }> {
  const execution = await fakeService(handler);
  cleanups.push(execution.close);
  return { h: await desk(execution), execution };
}

const close = (h: Harness, headers: Record<string, string> = { 'idempotency-key': KEY }, url = '/console/positions/5001/close') =>
  h.app.inject({ method: 'POST', url, headers, payload: {} });

describe('GET /console/positions', () => {
  it('reads the open positions of SIGNAL_SOURCE with the strategy’s key', async () => {
    const { h, execution } = await withExecution();
    const res = await h.app.inject({ url: '/console/positions' });
    expect(res.statusCode).toBe(200);
    expect(OpenPositionListSchema.parse(res.json())).toEqual(POSITIONS);
    expect(execution.requests[0]).toMatchObject({ method: 'GET', url: '/v1/positions?source=fxdesk-strategy' });
    expect(execution.requests[0]?.headers['x-api-key']).toBe('exec-key-123');
  });

  it('answers 503 DOWNSTREAM_UNAVAILABLE when the execution service is not ready', async () => {
    const { h } = await withExecution(() => ({ status: 503, body: envelope('service_unavailable', 'terminal disconnected') }));
    const res = await h.app.inject({ url: '/console/positions' });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({ code: 'DOWNSTREAM_UNAVAILABLE' });
  });
});

describe('POST /console/positions/{ticket}/close', () => {
  it('forwards the console’s Idempotency-Key and body, and answers what the execution service answered', async () => {
    const { h, execution } = await withExecution();
    const res = await h.app.inject({ method: 'POST', url: '/console/positions/5001/close', headers: { 'idempotency-key': KEY }, payload: { volume: '0.05' } });
    expect(res.statusCode).toBe(200);
    expect(ActionAnswerSchema.parse(res.json())).toEqual(CLOSED);
    expect(res.headers['idempotent-replayed']).toBeUndefined();
    expect(execution.requests).toHaveLength(1);
    expect(execution.requests[0]).toMatchObject({ method: 'POST', url: '/v1/positions/5001/close', body: { volume: '0.05' } });
    expect(execution.requests[0]?.headers['idempotency-key']).toBe(KEY);
  });

  it('passes a replay on as a replay, with the same key', async () => {
    const { h, execution } = await withExecution();
    await close(h);
    const again = await close(h);
    expect(again.statusCode).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(execution.requests.map((r) => r.headers['idempotency-key'])).toEqual([KEY, KEY]);
  });

  it('refuses a close without an Idempotency-Key and sends nothing', async () => {
    const { h, execution } = await withExecution();
    const res = await close(h, {});
    expect(res.statusCode).toBe(422);
    expect(execution.requests).toHaveLength(0);
  });

  it('passes a 503 EXECUTION_OUTCOME_UNKNOWN on as it is, sent once and never retried', async () => {
    const { h, execution } = await withExecution(() => ({
      status: 503,
      body: envelope('execution_outcome_unknown', 'the terminal did not answer'),
      headers: { 'retry-after': '5' },
    }));
    const res = await close(h);
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({ code: 'EXECUTION_OUTCOME_UNKNOWN' });
    expect(res.headers['retry-after']).toBe('5');
    expect(execution.requests).toHaveLength(1);
  });

  it('passes the execution service’s refusals on with their status', async () => {
    const { h } = await withExecution(() => ({ status: 409, body: envelope('idempotency_conflict', 'another request under this key') }));
    const res = await close(h);
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ code: 'IDEMPOTENCY_CONFLICT' });
  });

  it('answers 502 DOWNSTREAM_ERROR when the execution service fails with a 5xx other than 503', async () => {
    const { h } = await withExecution(() => ({ status: 500, body: envelope('internal_error', 'boom') }));
    const res = await close(h);
    expect(res.statusCode).toBe(502);
    expect(res.json()).toMatchObject({ code: 'DOWNSTREAM_ERROR' });
  });
});

describe('POST /console/positions/close-all', () => {
  it('flattens SIGNAL_SOURCE’s positions under the console’s key and lists each outcome', async () => {
    const { h, execution } = await withExecution();
    const res = await close(h, { 'idempotency-key': KEY }, '/console/positions/close-all');
    expect(res.statusCode).toBe(200);
    expect(ClosePositionsAnswerSchema.parse(res.json()).positions).toMatchObject([{ ticket: '5001', state: 'done' }]);
    expect(execution.requests[0]).toMatchObject({ method: 'POST', url: '/v1/positions/close-all', body: { source: 'fxdesk-strategy' } });
    expect(execution.requests[0]?.headers['idempotency-key']).toBe(KEY);
    const again = await close(h, { 'idempotency-key': KEY }, '/console/positions/close-all');
    expect(again.headers['idempotent-replayed']).toBe('true');
  });

  it('journals what it closed with the reason flatten, read from the execution service’s record of the flatten’s close', async () => {
    const deals = [
      {
        ticket: '5001',
        order: '5001',
        entry: 'in',
        side: 'buy',
        price: '1.10012',
        profit: '0.00',
        comment: 'fxdesk-strategy:3f2c8a4e',
        time: '2026-01-05T12:00:01.000Z',
      },
      {
        ticket: '6002',
        order: '5002',
        entry: 'out',
        side: 'sell',
        price: '1.10100',
        profit: '8.80',
        comment: 'close:3f2c8a4e',
        time: '2026-01-05T12:00:30.000Z',
      },
    ].map((d) => ({
      ...d,
      position: '5001',
      symbol: 'EURUSD',
      volume: '0.10',
      commission: '0.00',
      swap: '0.00',
      magic: 0,
      reason: 'expert',
      source: 'fxdesk-strategy',
    }));
    const answer = book();
    const { h } = await withExecution((request) =>
      request.url.startsWith('/v1/deals')
        ? { status: 200, body: { deals, next_cursor: null } }
        : request.url.startsWith('/v1/actions?ticket=5001&')
          ? { status: 200, body: { actions: [actionRecord('5001', `${KEY}#5001`, { idempotency_key: KEY })], next_cursor: null } }
          : answer(request),
    );
    expect((await close(h, { 'idempotency-key': KEY }, '/console/positions/close-all')).statusCode).toBe(200);
    // The sync the flatten began (a sync asked for while one runs is that one).
    await h.deps.liveJournal?.sync();
    const journal = JournalPageSchema.parse((await h.app.inject({ url: '/console/trades?account=live' })).json());
    expect(journal.trades.map((t) => [t.id, t.exit_reason])).toEqual([['live:5001', 'flatten']]);
  });
});

describe('without EXECUTION_URL', () => {
  it.each([
    ['GET', '/console/positions'],
    ['POST', '/console/positions/5001/close'],
    ['POST', '/console/positions/close-all'],
  ] as const)('%s %s answers 404 NOT_CONFIGURED', async (method, url) => {
    const h = await desk();
    const res = await h.app.inject({ method, url, headers: { 'idempotency-key': KEY }, ...(method === 'POST' ? { payload: {} } : {}) });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ code: 'NOT_CONFIGURED' });
  });
});
