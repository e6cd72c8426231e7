import { ExecutionClient } from '@fxdesk/client';
import { JournalPageSchema } from '@fxdesk/schemas';
import { afterEach, describe, expect, it } from 'vitest';
import { fakeService, filled, type FakeAnswer, type FakeService, type RecordedRequest } from './fake-service.js';
import { harness, type Harness } from './helpers.js';

let cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

/** The desk with HALT_FLATTEN on and a daily loss limit of 1 %. */
async function desk(execution?: FakeService): Promise<Harness> {
  const client = execution && new ExecutionClient({ baseUrl: execution.url, apiKey: 'exec-key-123', timeoutMs: 2000 });
  const h = await harness({ env: { MIN_CONFLUENCE: '1', DAILY_LOSS_LIMIT: '1', HALT_FLATTEN: 'true' }, deps: { execution: client } });
  cleanups.push(async () => {
    await h.close();
    await client?.close();
  });
  return h;
}

/** Marks `account` 2 % down on its day: it halts. */
async function halt(h: Harness, account: 'live' | 'paper'): Promise<number> {
  const at = h.clock.now();
  await h.deps.risk.markEquity(account, at - 1000, 100_000);
  expect(await h.deps.risk.markEquity(account, at, 98_000)).toMatchObject({ reason: 'daily_loss_limit' });
  await h.deps.risk.whenIdle();
  return at;
}

function closeAll(request: RecordedRequest): FakeAnswer {
  if (request.url !== '/v1/positions/close-all') return filled(request);
  return {
    status: 200,
    body: { idempotency_key: request.headers['idempotency-key'], positions: [{ ticket: '501', state: 'done', http_status: 200, answer: {} }] },
  };
}

describe('a halt with HALT_FLATTEN', () => {
  it('closes every paper trade at the market, journaled as flatten, and the run goes on', async () => {
    const h = await desk();
    await h.app.inject({ method: 'POST', url: '/start', payload: { dry_run: true } });
    for (let i = 0; i < 400 && !(await h.stores.paperTrades.positions()).some((p) => p.entryTime !== null); i++) await h.advance(60_000);
    const open = (await h.stores.paperTrades.positions()).filter((p) => p.entryTime !== null);
    expect(open.length).toBeGreaterThan(0);
    await halt(h, 'paper');
    expect((await h.stores.paperTrades.positions()).filter((p) => p.entryTime !== null)).toEqual([]);
    const journal = JournalPageSchema.parse((await h.app.inject({ url: '/trades?account=paper&exit_reason=flatten' })).json());
    expect(journal.trades.map((t) => t.signal_id)).toEqual(expect.arrayContaining(open.map((p) => p.signalId)));
    expect((await h.app.inject({ url: '/status' })).json()).toMatchObject({ running: true });
  });

  it('closes the live positions through the execution service’s close-all under risk-halt-live-<at>, and the run goes on', async () => {
    const execution = await fakeService(closeAll);
    cleanups.push(execution.close);
    const h = await desk(execution);
    await h.app.inject({ method: 'POST', url: '/start', payload: { dry_run: false } });
    const at = await halt(h, 'live');
    const sent = execution.requests.filter((r) => r.url === '/v1/positions/close-all');
    expect(sent).toHaveLength(1);
    expect(sent[0]?.headers['idempotency-key']).toBe(`risk-halt-live-${at}`);
    expect(sent[0]?.body).toEqual({ source: h.config.SIGNAL_SOURCE });
    expect((await h.app.inject({ url: '/status' })).json()).toMatchObject({ running: true });
  });
});
