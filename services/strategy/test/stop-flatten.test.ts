import { ExecutionClient } from '@fxdesk/client';
import { JournalPageSchema, StopResponseSchema } from '@fxdesk/schemas';
import { afterEach, describe, expect, it } from 'vitest';
import { envelope, fakeService, filled, type FakeAnswer, type FakeService, type RecordedRequest } from './fake-service.js';
import { harness, type Harness } from './helpers.js';

let cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

async function desk(execution?: FakeService): Promise<Harness> {
  const client = execution && new ExecutionClient({ baseUrl: execution.url, apiKey: 'exec-key-123', timeoutMs: 2000 });
  const h = await harness({ env: { MIN_CONFLUENCE: '1' }, deps: { execution: client } });
  cleanups.push(async () => {
    await h.close();
    await client?.close();
  });
  return h;
}

/** Advances candle by candle until the paper account holds an entered trade. */
async function untilPaperTradeOpen(h: Harness): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if ((await h.stores.paperTrades.positions()).some((p) => p.entryTime !== null)) return;
    await h.advance(60_000);
  }
  throw new Error('no paper trade entered in 400 candles');
}

/** The execution service's close-all as documented: each position of the source closed under the key. */
function closeAll(request: RecordedRequest): FakeAnswer {
  if (request.url !== '/v1/positions/close-all') return filled(request);
  return {
    status: 200,
    body: {
      idempotency_key: request.headers['idempotency-key'],
      positions: [
        { ticket: '501', state: 'done', http_status: 200, answer: {} },
        { ticket: '502', state: 'unknown', http_status: 503, answer: envelope('execution_outcome_unknown', 'the terminal did not answer') },
      ],
    },
  };
}

describe('POST /stop with close_positions', () => {
  it('keeps the positions without a body, as spec 000 has it', async () => {
    const h = await desk();
    await h.app.inject({ method: 'POST', url: '/start', payload: { dry_run: true } });
    await untilPaperTradeOpen(h);
    const res = await h.app.inject({ method: 'POST', url: '/stop' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).not.toHaveProperty('closed');
    expect((await h.stores.paperTrades.positions()).some((p) => p.entryTime !== null)).toBe(true);
  });

  it('closes every paper trade at the market, journaled as flatten, and says what it closed', async () => {
    const h = await desk();
    await h.app.inject({ method: 'POST', url: '/start', payload: { dry_run: true } });
    await untilPaperTradeOpen(h);
    const open = (await h.stores.paperTrades.positions()).filter((p) => p.entryTime !== null);
    const res = await h.app.inject({ method: 'POST', url: '/stop', payload: { close_positions: true } });
    expect(res.statusCode).toBe(200);
    const body = StopResponseSchema.parse(res.json());
    expect(body.closed).toEqual({ account: 'paper', positions: open.map((p) => ({ ticket: p.signalId, state: 'done', message: null })), error: null });
    expect(await h.stores.paperTrades.positions()).toEqual([]);
    const journal = JournalPageSchema.parse((await h.app.inject({ url: '/trades?account=paper&exit_reason=flatten' })).json());
    expect(journal.trades.map((t) => t.signal_id).sort()).toEqual(open.map((p) => p.signalId).sort());
    expect((await h.app.inject({ method: 'GET', url: '/status' })).json()).toMatchObject({ running: false });
  });

  it('flattens a live run through the execution service’s close-all, for its own source, under a key of the stop', async () => {
    const execution = await fakeService(closeAll);
    cleanups.push(execution.close);
    const h = await desk(execution);
    await h.app.inject({ method: 'POST', url: '/start', payload: { dry_run: false } });
    await h.advance(60_000);
    const res = await h.app.inject({ method: 'POST', url: '/stop', payload: { close_positions: true } });
    expect(res.statusCode).toBe(200);
    const sent = execution.requests.filter((r) => r.url === '/v1/positions/close-all');
    expect(sent).toHaveLength(1);
    expect(sent[0]!.method).toBe('POST');
    expect(sent[0]!.body).toEqual({ source: h.config.SIGNAL_SOURCE });
    expect(sent[0]!.headers['idempotency-key']).toMatch(/^strategy-stop-\d+$/);
    expect(StopResponseSchema.parse(res.json()).closed).toEqual({
      account: 'live',
      positions: [
        { ticket: '501', state: 'done', message: null },
        { ticket: '502', state: 'unknown', message: 'the terminal did not answer' },
      ],
      error: null,
    });
  });

  it('still stops when the execution service cannot close, and says so', async () => {
    const execution = await fakeService((r) =>
      r.url === '/v1/positions/close-all' ? { status: 503, body: envelope('not_ready', 'terminal disconnected') } : filled(r),
    );
    cleanups.push(execution.close);
    const h = await desk(execution);
    await h.app.inject({ method: 'POST', url: '/start', payload: { dry_run: false } });
    const res = await h.app.inject({ method: 'POST', url: '/stop', payload: { close_positions: true } });
    expect(res.statusCode).toBe(200);
    const closed = StopResponseSchema.parse(res.json()).closed!;
    expect(closed.positions).toEqual([]);
    expect(closed.error).toContain('not_ready');
    expect((await h.app.inject({ method: 'GET', url: '/status' })).json()).toMatchObject({ running: false });
  });

  it('refuses a body it does not know in the envelope, and stops nothing', async () => {
    const h = await desk();
    await h.app.inject({ method: 'POST', url: '/start', payload: { dry_run: true } });
    for (const payload of [{ close_positions: 'yes' }, { flatten: true }]) {
      const res = await h.app.inject({ method: 'POST', url: '/stop', payload });
      expect(res.statusCode).toBe(422);
      expect(res.json()).toMatchObject({ error: true, code: 'VALIDATION_ERROR' });
    }
    expect((await h.app.inject({ method: 'GET', url: '/status' })).json()).toMatchObject({ running: true });
  });
});
