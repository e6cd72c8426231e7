import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '@fxdesk/core';
import { afterEach, describe, expect, it } from 'vitest';
import { NO_TICKETS } from '../src/outcome.js';
import { listQuery, MIGRATIONS, SignalStore, type SignalClaim, type SignalFilter, type SignalOutcome } from '../src/store.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function tempFile(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fxdesk-exec-store-'));
  dirs.push(dir);
  return path.join(dir, 'execution.db');
}

const claim = (signalId: string, payloadHash = 'h1'): SignalClaim => ({
  signalId,
  payloadHash,
  requestJson: '{"volume":"0.10"}',
  requestId: 'req-1',
  orderComment: 'manual:0123456789abcdef0123',
  symbol: 'EURUSD',
  source: 'manual',
  receivedAt: '2026-01-05T12:00:00.000Z',
});

const filled: SignalOutcome = {
  state: 'filled',
  httpStatus: 200,
  responseBody: '{"state":"filled"}',
  tickets: { order: '1', deal: '2', position: '1' },
  result: { retcode: 10009, retcode_name: 'TRADE_RETCODE_DONE', requested_volume: '0.10', filled_volume: '0.10', price: '1.1', broker_comment: 'done' },
  error: null,
  completedAt: '2026-01-05T12:00:01.000Z',
};

describe('signal store', () => {
  it('gives exactly one of many simultaneous claims of an id', async () => {
    const store = SignalStore.open(':memory:');
    const results = await Promise.all(Array.from({ length: 20 }, () => store.claim(claim('a'))));
    expect(results.filter((r) => r.claimed)).toHaveLength(1);
    expect(results.filter((r) => !r.claimed && r.existing.state === 'processing')).toHaveLength(19);
    store.close();
  });

  it('hands a later claim the stored hash, state and exact answer', async () => {
    const store = SignalStore.open(':memory:');
    await store.claim(claim('a'));
    await store.complete('a', filled);
    const again = await store.claim(claim('a', 'h2'));
    expect(again).toEqual({ claimed: false, existing: { payloadHash: 'h1', state: 'filled', httpStatus: 200, responseBody: '{"state":"filled"}' } });
    store.close();
  });

  it('reads back the record with the request as received, tickets, result and timestamps', async () => {
    const store = SignalStore.open(':memory:');
    await store.claim(claim('a'));
    await store.complete('a', filled);
    expect(await store.find('a')).toMatchObject({
      signal_id: 'a',
      state: 'filled',
      request: { volume: '0.10' },
      tickets: filled.tickets,
      result: filled.result,
      error: null,
      http_status: 200,
      received_at: '2026-01-05T12:00:00.000Z',
      completed_at: '2026-01-05T12:00:01.000Z',
    });
    store.close();
  });

  it('releases a claim so the id can be claimed again', async () => {
    const store = SignalStore.open(':memory:');
    await store.claim(claim('a'));
    await store.release('a');
    expect(await store.claim(claim('a'))).toEqual({ claimed: true });
    store.close();
  });

  it('never completes a signal twice', async () => {
    const store = SignalStore.open(':memory:');
    await store.claim(claim('a'));
    await store.complete('a', filled);
    await expect(store.complete('a', { ...filled, state: 'rejected' })).rejects.toThrow(/not processing/);
    store.close();
  });

  it('keeps claims and outcomes across a reopen of the file', async () => {
    const file = tempFile();
    const first = SignalStore.open(file);
    await first.claim(claim('a'));
    await first.complete('a', filled);
    await first.claim(claim('b'));
    first.close();
    const second = SignalStore.open(file);
    expect((await second.find('a'))?.state).toBe('filled');
    expect((await second.find('b'))?.state).toBe('processing');
    second.close();
  });

  it('turns every row left processing into unknown with the answer it is given', async () => {
    const store = SignalStore.open(':memory:');
    await store.claim(claim('a'));
    await store.claim(claim('b'));
    await store.complete('b', filled);
    const error = { code: 'execution_outcome_unknown', message: 'interrupted' };
    const interrupted = store.failInterrupted('2026-01-05T13:00:00.000Z', () => ({ httpStatus: 503, responseBody: '{"x":1}', error }));
    expect(interrupted.map((s) => s.signalId)).toEqual(['a']);
    expect(await store.find('a')).toMatchObject({ state: 'unknown', http_status: 503, error, tickets: NO_TICKETS, completed_at: '2026-01-05T13:00:00.000Z' });
    expect((await store.find('b'))?.state).toBe('filled');
    store.close();
  });

  it('keeps a late result and a reconciliation on an unknown signal without changing its answer', async () => {
    const store = SignalStore.open(':memory:');
    await store.claim(claim('a'));
    await store.complete('a', { ...filled, state: 'unknown', httpStatus: 503, responseBody: '{"unknown":true}', tickets: NO_TICKETS, result: null });
    await store.recordLateResult('a', filled.tickets, filled.result!, '2026-01-05T12:05:00.000Z');
    await store.recordReconciliation('a', { checked_at: '2026-01-05T12:06:00.000Z', found: [] });
    const record = await store.find('a');
    expect(record).toMatchObject({ state: 'unknown', http_status: 503, tickets: filled.tickets, result: filled.result, reconciliation: { found: [] } });
    const again = await store.claim(claim('a'));
    expect(again).toMatchObject({ existing: { responseBody: '{"unknown":true}' } });
    store.close();
  });
});

describe('signal store list', () => {
  const at = (second: number) => `2026-01-05T12:00:${String(second).padStart(2, '0')}.000Z`;
  const row = (id: string, second: number, fields: Partial<SignalClaim> = {}): SignalClaim => ({ ...claim(id), receivedAt: at(second), ...fields });

  it('reads newest received first, then by signal_id, and continues after the last row of a page', async () => {
    const store = SignalStore.open(':memory:');
    for (const [id, second] of [
      ['b', 1],
      ['a', 2],
      ['c', 2],
      ['d', 3],
      ['e', 2],
    ] as const)
      await store.claim(row(id, second));
    const first = await store.list({}, 3);
    expect(first.records.map((r) => r.signal_id)).toEqual(['d', 'e', 'c']);
    expect(first.next).toEqual({ receivedAt: at(2), signalId: 'c' });
    const second = await store.list({ after: first.next }, 3);
    expect(second.records.map((r) => r.signal_id)).toEqual(['a', 'b']);
    expect(second.next).toBeUndefined();
    store.close();
  });

  it('selects by state, symbol, source and received_at from (inclusive) to (exclusive)', async () => {
    const store = SignalStore.open(':memory:');
    await store.claim(row('a', 1, { symbol: 'GBPUSD' }));
    await store.claim(row('b', 2, { source: 'tradingview' }));
    await store.claim(row('c', 3));
    await store.complete('c', filled);
    const idsOf = async (filter: SignalFilter) => (await store.list(filter, 10)).records.map((r) => r.signal_id);
    expect(await idsOf({ state: 'filled' })).toEqual(['c']);
    expect(await idsOf({ symbol: 'EURUSD' })).toEqual(['c', 'b']);
    expect(await idsOf({ source: 'manual', state: 'processing' })).toEqual(['a']);
    expect(await idsOf({ receivedFrom: at(2), receivedBefore: at(3) })).toEqual(['b']);
    store.close();
  });

  it('serves every combination of filters, bounds and cursor from an index, in order, without sorting', () => {
    const file = tempFile();
    SignalStore.open(file).close();
    const db = openDatabase(file, { migrations: MIGRATIONS });
    const options: SignalFilter[] = [
      { state: 'filled' },
      { symbol: 'EURUSD' },
      { source: 'manual' },
      { receivedFrom: at(1) },
      { receivedBefore: at(2) },
      { after: { receivedAt: at(1), signalId: 'a' } },
    ];
    for (let mask = 0; mask < 1 << options.length; mask++) {
      const filter = Object.assign({}, ...options.filter((_, i) => mask & (1 << i))) as SignalFilter;
      const { sql, params } = listQuery(filter, 50);
      const plan = db
        .prepare<Record<string, string | number>, { detail: string }>(`EXPLAIN QUERY PLAN ${sql}`)
        .all(params)
        .map((p) => p.detail);
      expect(plan, JSON.stringify(filter)).toEqual([expect.stringMatching(/^(SCAN|SEARCH) signals USING INDEX signals_(received|state|symbol|source)\b/)]);
    }
    db.close();
  });

  it('lists the signals of a database written before the list, by the symbol and source of their stored request', async () => {
    const file = tempFile();
    openDatabase(file, { migrations: MIGRATIONS.slice(0, 2) })
      .prepare(
        `INSERT INTO signals (signal_id, payload_hash, state, request_json, request_id, order_comment, received_at, updated_at)
         VALUES ('old', 'h', 'processing', '{"symbol":"GBPUSD","source":"webhook"}', 'r', 'c', '2026-01-05T11:00:00.000Z', '2026-01-05T11:00:00.000Z')`,
      )
      .run();
    const store = SignalStore.open(file);
    await store.claim(row('new', 1));
    expect((await store.list({ symbol: 'GBPUSD', source: 'webhook', state: 'processing' }, 10)).records.map((r) => r.signal_id)).toEqual(['old']);
    expect((await store.list({}, 10)).records.map((r) => r.signal_id)).toEqual(['new', 'old']);
    store.close();
  });
});
