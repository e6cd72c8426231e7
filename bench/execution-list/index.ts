/**
 * GET /v1/signals on a large execution.db, and what its indexes cost the money path.
 *
 *   npm run bench -- execution-list [rows]        (default 120,000)
 *
 * Reads: a file store filled with `rows` signals (one every 100 ms; 8 symbols, 4 sources; 90 %
 * filled, 5 % rejected, 4 % placed, 1 % unknown) is read page by page. Each row is the median of
 * repeated reads after a warm-up. The baseline, in the same run, is the same page read with
 * OFFSET instead of the cursor: keyset paging costs the same at any depth, OFFSET grows with it.
 * Two rows go through the HTTP route (app.inject: validation, serialization of the records).
 *
 * Writes: the list adds four indexes (received_at, and state, symbol, source each followed by
 * received_at) in place of the partial index of `processing` rows. Claims and outcomes of fresh
 * signals (64 at a time, group-committed) run on a store as shipped and on the same store without
 * the list's indexes, alternated, durable (synchronous=FULL, as shipped) and with commits not
 * waiting for the disk (NORMAL: the indexes' CPU cost alone); best pass of each and the ratio.
 *
 * On a busy shared 2-core box, 120,000 signals: a page of 50 in about 220 µs whatever the filter
 * or the depth; at depth 108,000 the cursor's SELECT 173 µs against OFFSET's 1,868 µs (ratio
 * 0.09); through HTTP 650 µs (limit 50) and 4.9 ms (limit 500); a combination of filters that
 * matches nothing 18–22 ms (one index read through); claims + outcomes with the indexes against
 * without, ratio 0.63 durable, 0.61 with NORMAL.
 * Not a test: nothing here fails on a slow machine.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createLogger, loadConfig, openDatabase, SQLITE_DIALECT, SqliteStoreDatabase } from '@fxdesk/core';
import { SignalListQuerySchema } from '@fxdesk/schemas';
import { buildApp } from '../../services/execution/src/app.js';
import { ExecutionConfigSchema } from '../../services/execution/src/config.js';
import { createDeps } from '../../services/execution/src/deps.js';
import { listSignals } from '../../services/execution/src/signal-list.js';
import { EXECUTION_SCHEMA, openExecutionFile } from '../../services/execution/src/schema.js';
import { DatabaseSignalStore, listQuery } from '../../services/execution/src/signal-store.js';
import type { SignalClaim, SignalOutcome, SignalStore } from '../../services/execution/src/store.js';

const ROWS = Number(process.argv[2] ?? 120_000);
const WRITES = 8_000;
const WRITE_PASSES = 3;
const SYMBOLS = ['EURUSD', 'EURUSD', 'EURUSD', 'GBPUSD', 'GBPUSD', 'USDJPY', 'AUDUSD', 'XAUUSD'];
const SOURCES = ['fxdesk-strategy', 'fxdesk-strategy', 'tradingview', 'manual', 'webhook'];
const START_MS = Date.UTC(2026, 0, 5, 0, 0, 0);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fxdesk-bench-list-'));
/** execution.db's steps as SQLite runs them, for the bench's own connections. */
const MIGRATIONS = EXECUTION_SCHEMA.migrations.map((step) => (typeof step === 'string' ? step : step(SQLITE_DIALECT)));

function stateOf(i: number): string {
  const n = i % 100;
  return n < 90 ? 'filled' : n < 95 ? 'rejected' : n < 99 ? 'placed' : 'unknown';
}

/** A store file with `rows` signals, written directly in one transaction. */
function fill(file: string, rows: number): void {
  const db = openDatabase(file, { synchronous: 'NORMAL', migrations: MIGRATIONS });
  const insert = db.prepare(
    `INSERT INTO signals (signal_id, payload_hash, state, request_json, request_id, order_comment, symbol, source, http_status, response_body,
       order_ticket, deal_ticket, position_ticket, result_json, received_at, completed_at, updated_at)
     VALUES (@id, 'h', @state, @request, 'req', 'c', @symbol, @source, 200, '{}', '1', '2', '1', @result, @at, @at, @at)`,
  );
  db.transaction(() => {
    for (let i = 0; i < rows; i++) {
      const symbol = SYMBOLS[i % SYMBOLS.length] as string;
      const source = SOURCES[i % SOURCES.length] as string;
      const at = new Date(START_MS + i * 100).toISOString();
      const request = JSON.stringify({ signal_id: 'x', occurred_at: at, execution_type: 'market', symbol, direction: 'buy', volume: '0.10', source });
      const result = JSON.stringify({
        retcode: 10009,
        retcode_name: 'TRADE_RETCODE_DONE',
        requested_volume: '0.10',
        filled_volume: '0.10',
        price: '1.08512',
        broker_comment: 'done',
      });
      insert.run({ id: randomUUID(), state: stateOf(i), request, symbol, source, result, at });
    }
  })();
  db.close();
}

/** How many stored signals pass the filters of `q` (every page of 500, counted). */
async function countOf(store: SignalStore, q: Record<string, string>): Promise<number> {
  let count = 0;
  let cursor: string | null | undefined;
  do {
    const page = await listSignals(store, SignalListQuerySchema.parse({ ...q, limit: '500', ...(cursor ? { cursor } : {}) }));
    count += page.signals.length;
    cursor = page.next_cursor;
  } while (cursor);
  return count;
}

/** Median µs of `run` over `times` calls, after `times / 4` unmeasured ones. */
async function medianMicros(times: number, run: () => unknown): Promise<number> {
  for (let i = 0; i < Math.ceil(times / 4); i++) await run();
  const samples: number[] = [];
  for (let i = 0; i < times; i++) {
    const t0 = performance.now();
    await run();
    samples.push((performance.now() - t0) * 1000);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)] as number;
}

const fmt = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: n < 10 ? 2 : 0 });
const line = (label: string, value: string) => console.info(`  ${label.padEnd(64)} ${value}`);

async function reads(): Promise<void> {
  const file = path.join(dir, 'execution.db');
  const t0 = performance.now();
  fill(file, ROWS);
  console.info(`${fmt(ROWS)} signals written in ${fmt((performance.now() - t0) / 1000)} s; reads, median of repeated calls:`);

  const store = new DatabaseSignalStore(openExecutionFile(file), 'bench');
  const query = (q: Record<string, string>) => SignalListQuerySchema.parse(q);
  const page = (q: Record<string, string>) => listSignals(store, query(q));

  line('first page, limit 50', `${fmt(await medianMicros(400, () => page({})))} µs`);
  // The same raw SELECT twice at 90 % depth: once from the cursor, once with OFFSET.
  const depth = Math.floor(ROWS * 0.9);
  const db = openDatabase(file, { migrations: MIGRATIONS });
  const deep = db
    .prepare<[number], { received_at: string; signal_id: string }>(
      'SELECT received_at, signal_id FROM signals ORDER BY received_at DESC, signal_id DESC LIMIT 1 OFFSET ?',
    )
    .get(depth - 1);
  if (!deep) throw new Error('no row at that depth');
  const keyset = listQuery({ after: { receivedAt: deep.received_at, signalId: deep.signal_id } }, 50);
  const keysetSelect = db.prepare(keyset.sql);
  const offsetSelect = db.prepare(`${listQuery({}, 50).sql} OFFSET @offset`);
  const keysetMicros = await medianMicros(400, () => keysetSelect.all(keyset.params));
  const offsetMicros = await medianMicros(40, () => offsetSelect.all({ limit: 51, offset: depth }));
  const same = JSON.stringify(keysetSelect.all(keyset.params)) === JSON.stringify(offsetSelect.all({ limit: 51, offset: depth }));
  if (!same) throw new Error('the cursor and OFFSET read different pages');
  line(`page at depth ${fmt(depth)}, limit 50: cursor (SQL alone)`, `${fmt(keysetMicros)} µs`);
  line(`the same page with OFFSET (baseline)`, `${fmt(offsetMicros)} µs   ratio cursor/OFFSET ${(keysetMicros / offsetMicros).toFixed(4)}`);
  db.close();

  const hour = { from: new Date(START_MS + ROWS * 50).toISOString(), to: new Date(START_MS + ROWS * 50 + 3_600_000).toISOString() };
  const filters: [string, Record<string, string>][] = [
    ['state=unknown', { state: 'unknown' }],
    ['symbol=XAUUSD', { symbol: 'XAUUSD' }],
    ['source=webhook', { source: 'webhook' }],
    ['one hour (from, to)', hour],
    ['state=unknown, symbol=XAUUSD', { state: 'unknown', symbol: 'XAUUSD' }],
    ['state=rejected, symbol=USDJPY, source=webhook', { state: 'rejected', symbol: 'USDJPY', source: 'webhook' }],
    ['state=unknown, symbol=EURUSD, source=manual', { state: 'unknown', symbol: 'EURUSD', source: 'manual' }],
  ];
  for (const [label, q] of filters) {
    const share = (100 * (await countOf(store, q))) / ROWS;
    line(`${label} (${fmt(share)} % of rows), limit 50`, `${fmt(await medianMicros(100, () => page(q)))} µs`);
  }

  let pages = 0;
  const walk0 = performance.now();
  for (let cursor: string | null | undefined; pages === 0 || cursor; pages++) {
    cursor = (await page(cursor ? { limit: '500', cursor } : { limit: '500' })).next_cursor;
  }
  const walkSeconds = (performance.now() - walk0) / 1000;
  line(`every page, limit 500 (${fmt(pages)} pages)`, `${fmt(walkSeconds)} s, ${fmt(ROWS / walkSeconds)} records/s`);
  await store.close();

  const config = loadConfig(ExecutionConfigSchema, { API_KEY: 'bench-execution-key', DATA_DIR: dir, LOG_LEVEL: 'silent', RATE_LIMIT_PER_MINUTE: '0' });
  const deps = await createDeps(config, createLogger({ name: 'execution', level: 'silent' }));
  const { app } = await buildApp({ config, deps });
  await app.ready();
  for (const limit of [50, 500]) {
    const get = () => app.inject({ url: `/v1/signals?limit=${limit}`, headers: { 'x-api-key': 'bench-execution-key' } });
    if ((await get()).statusCode !== 200) throw new Error('the route did not answer 200');
    line(`HTTP GET /v1/signals?limit=${limit} (app.inject)`, `${fmt(await medianMicros(limit === 50 ? 400 : 100, get))} µs`);
  }
  await app.close();
  await deps.close();
}

const FILLED: SignalOutcome = {
  state: 'filled',
  httpStatus: 200,
  responseBody: '{"state":"filled"}',
  tickets: { order: '1', deal: '2', position: '1' },
  result: { retcode: 10009, retcode_name: 'TRADE_RETCODE_DONE', requested_volume: '0.10', filled_volume: '0.10', price: '1.1', broker_comment: 'done' },
  error: null,
  completedAt: '2026-01-05T12:00:01.000Z',
};

/** A new store file, as shipped or with the list's indexes taken back out. */
function writeStore(name: string, withListIndexes: boolean, synchronous: 'FULL' | 'NORMAL'): SignalStore {
  const db = openDatabase(path.join(dir, `${name}.db`), { synchronous, migrations: MIGRATIONS });
  if (!withListIndexes) {
    db.exec(`DROP INDEX signals_received; DROP INDEX signals_state; DROP INDEX signals_symbol; DROP INDEX signals_source;
             CREATE INDEX signals_processing ON signals (state) WHERE state = 'processing';`);
  }
  return new DatabaseSignalStore(new SqliteStoreDatabase(db), 'bench');
}

/** Signals per second: claims and outcomes of WRITES fresh signals, 64 in flight. */
async function writePass(store: SignalStore, offset: number): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < WRITES; i += 64) {
    await Promise.all(
      Array.from({ length: 64 }, async (_, j) => {
        const n = offset + i + j;
        const signalId = randomUUID();
        const claim: SignalClaim = {
          signalId,
          payloadHash: 'h',
          requestJson: '{"symbol":"EURUSD","source":"manual","volume":"0.10"}',
          requestId: 'r',
          orderComment: 'c',
          symbol: SYMBOLS[n % SYMBOLS.length] as string,
          source: SOURCES[n % SOURCES.length] as string,
          receivedAt: new Date(START_MS + n).toISOString(),
          leaseExpiresAt: new Date(START_MS + n + 65_000).toISOString(),
        };
        await store.claim(claim);
        await store.complete(signalId, FILLED);
      }),
    );
  }
  return WRITES / ((performance.now() - t0) / 1000);
}

async function writes(synchronous: 'FULL' | 'NORMAL'): Promise<void> {
  const shipped = writeStore(`shipped-${synchronous}`, true, synchronous);
  const bare = writeStore(`bare-${synchronous}`, false, synchronous);
  const best = { shipped: 0, bare: 0 };
  for (let pass = 0; pass < WRITE_PASSES; pass++) {
    best.bare = Math.max(best.bare, await writePass(bare, pass * WRITES));
    best.shipped = Math.max(best.shipped, await writePass(shipped, pass * WRITES));
  }
  await shipped.close();
  await bare.close();
  console.info(`claims + outcomes, synchronous=${synchronous}, best of ${WRITE_PASSES} alternated passes of ${fmt(WRITES)}:`);
  line('without the list indexes (baseline)', `${fmt(best.bare)} signals/s`);
  line('as shipped, with them', `${fmt(best.shipped)} signals/s   ratio ${(best.shipped / best.bare).toFixed(3)}`);
}

try {
  await reads();
  await writes('FULL');
  await writes('NORMAL');
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
