/**
 * The store that cannot write (issue 21): a claim that cannot be stored sends nothing, readiness
 * answers 503 from then on, and new signals are refused before their claim. A full disk is
 * SQLite's real refusal under `PRAGMA max_page_count`; damage is pages of the real file overwritten
 * after the start-up check.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { openDatabase, SQLITE_DIALECT, SqliteStoreDatabase, type SqliteDatabase } from '@fxdesk/core';
import { ManualClock } from '@fxdesk/primitives';
import { afterEach, describe, expect, it } from 'vitest';
import { EXECUTION_SCHEMA, openExecutionFile } from '../src/schema.js';
import { DatabaseSignalStore } from '../src/signal-store.js';
import { expectEnvelope, NOW, postSignal, REPLICA_ID, signal, simulatedApp, type SimulatedHarness } from './helpers.js';

const open: SimulatedHarness[] = [];
afterEach(async () => {
  for (const harness of open.splice(0)) await harness.app.close();
});

/** The schema's steps as SQLite runs them, for a connection of the test's own. */
const MIGRATIONS = EXECUTION_SCHEMA.migrations.map((step) => (typeof step === 'string' ? step : step(SQLITE_DIALECT)));

function tempFile(): string {
  return path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'fxdesk-exec-storage-')), 'execution.db');
}

async function harnessOn(db: SqliteDatabase, clock: ManualClock): Promise<SimulatedHarness> {
  const store = new DatabaseSignalStore(new SqliteStoreDatabase(db, { now: () => clock.now() }), REPLICA_ID);
  const harness = await simulatedApp({ clock, store });
  open.push(harness);
  return harness;
}

/**
 * Caps the file at the pages it has (a full disk) and fills them with rows shaped like claims,
 * so that the next claim finds no room.
 */
function fillToTheLastPage(db: SqliteDatabase): void {
  db.pragma(`max_page_count = ${db.pragma('page_count', { simple: true }) as number}`);
  const insert = db.prepare(
    `INSERT INTO signals (signal_id, payload_hash, state, request_json, request_id, order_comment, symbol, source, received_at, updated_at)
     VALUES (?, 'h', 'rejected', '{}', 'r', 'c', 'EURUSD', 'tradingview', ?, ?)`,
  );
  const at = new Date(NOW).toISOString();
  for (;;) {
    try {
      insert.run(randomUUID(), at, at);
    } catch (err) {
      if ((err as { code?: string }).code === 'SQLITE_FULL') return;
      throw err;
    }
  }
}

async function readiness(harness: SimulatedHarness) {
  const res = await harness.app.inject({ method: 'GET', url: '/health/ready' });
  return { status: res.statusCode, body: JSON.parse(res.body) as { checks: Record<string, { ok: boolean; detail: string }> } };
}

describe('execution store that cannot write', { timeout: 30_000 }, () => {
  it('on a full disk, a claim that cannot be stored is 503 storage_unavailable and nothing reaches the terminal', async () => {
    const clock = new ManualClock(NOW);
    const db = openDatabase(tempFile(), { synchronous: 'FULL', migrations: MIGRATIONS });
    const harness = await harnessOn(db, clock);
    fillToTheLastPage(db);

    expectEnvelope(await postSignal(harness.app, signal()), 503, 'storage_unavailable');
    expect(harness.terminal.stats.orderSendCalls).toBe(0);
    expect(harness.terminal.stats.orderCheckCalls).toBe(0);
  });

  it('after a write failed for a full disk, readiness answers 503 naming the store, and a new signal is refused before its claim', async () => {
    const clock = new ManualClock(NOW);
    const db = openDatabase(tempFile(), { synchronous: 'FULL', migrations: MIGRATIONS });
    const harness = await harnessOn(db, clock);
    expect((await readiness(harness)).status).toBe(200);
    fillToTheLastPage(db);
    await postSignal(harness.app, signal());

    const ready = await readiness(harness);
    expect(ready.status).toBe(503);
    expect(ready.body.checks.store).toMatchObject({ ok: false, detail: expect.stringMatching(/execution\.db cannot write \(SQLITE_FULL/) as string });
    const next = expectEnvelope(await postSignal(harness.app, signal()), 503, 'not_ready');
    expect(next.message).toMatch(/SQLITE_FULL/);
    expect(harness.terminal.stats.orderSendCalls).toBe(0);
  });

  it('once the disk has room again, the next probe write makes it ready and signals trade again', async () => {
    const clock = new ManualClock(NOW);
    const db = openDatabase(tempFile(), { synchronous: 'FULL', migrations: MIGRATIONS });
    const harness = await harnessOn(db, clock);
    fillToTheLastPage(db);
    await postSignal(harness.app, signal());
    db.pragma('max_page_count = 1000000');

    expect((await readiness(harness)).status).toBe(503);
    clock.set(NOW + 5_000);
    expect((await readiness(harness)).status).toBe(200);
    const res = await postSignal(harness.app, signal({ occurred_at: new Date(clock.now()).toISOString() }));
    expect(res.statusCode).toBe(200);
    expect(harness.terminal.stats.orderSendCalls).toBe(1);
  });

  it('a signal whose outcome could not be stored after order_send makes readiness 503, and the next signal is refused before its claim', async () => {
    const clock = new ManualClock(NOW);
    const db = openDatabase(tempFile(), { synchronous: 'FULL', migrations: MIGRATIONS });
    const harness = await harnessOn(db, clock);
    // The disk fills up while the order is at the terminal: the claim was stored, the outcome cannot be.
    const send = harness.terminal.orderSend.bind(harness.terminal);
    harness.terminal.orderSend = async (request) => {
      const result = await send(request);
      fillToTheLastPage(db);
      return result;
    };

    expect((await postSignal(harness.app, signal())).statusCode).toBe(200);
    expect(harness.terminal.stats.orderSendCalls).toBe(1);
    const ready = await readiness(harness);
    expect(ready.status).toBe(503);
    expect(ready.body.checks.store).toMatchObject({ ok: false, detail: expect.stringMatching(/SQLITE_FULL/) as string });
    expectEnvelope(await postSignal(harness.app, signal()), 503, 'not_ready');
    expect(harness.terminal.stats.orderSendCalls).toBe(1);
  });

  it('on a file damaged after start, the claim fails with nothing sent, and readiness stays 503 whatever the time', async () => {
    const file = tempFile();
    await openExecutionFile(file).close();
    // Page 2 is the root of the signals table (the first one made): every claim reads it.
    const fd = fs.openSync(file, 'r+');
    fs.writeSync(fd, Buffer.alloc(4096, 0xab), 0, 4096, 4096);
    fs.closeSync(fd);
    const clock = new ManualClock(NOW);
    const harness = await harnessOn(new Database(file), clock);

    expectEnvelope(await postSignal(harness.app, signal()), 503, 'storage_unavailable');
    expect(harness.terminal.stats.orderSendCalls).toBe(0);
    clock.set(NOW + 60_000);
    const ready = await readiness(harness);
    expect(ready.status).toBe(503);
    expect(ready.body.checks.store).toMatchObject({ ok: false, detail: expect.stringMatching(/SQLITE_CORRUPT.*damaged/) as string });
    expectEnvelope(await postSignal(harness.app, signal({ occurred_at: new Date(clock.now()).toISOString() })), 503, 'not_ready');
    expect(harness.terminal.stats.orderSendCalls).toBe(0);
  });
});
