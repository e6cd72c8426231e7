/**
 * Two notification replicas (server.ts processes) on one PostgreSQL database, 500 deliveries to a
 * Bot API that fails, hangs, then succeeds, and one replica SIGKILLed while it sends: every
 * delivery ends `sent`, and the messages the provider posted twice are no more than the deliveries
 * the dead replica had in flight.
 */
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, postgresUnavailable, run, startPostgres, until, type RunningPostgres } from '@fxdesk/core/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outageTelegram } from './fakes.js';

const TOKEN = '999:replicas-test';
const KEY = 'replicas-test-key';
const CHATS = Array.from({ length: 50 }, (_, i) => String(1001 + i));
const NOTIFICATIONS = 10;
const DELIVERIES = CHATS.length * NOTIFICATIONS;
const PROVIDER_TIMEOUT_MS = 2000;
/** The outbox's lease: 3 × PROVIDER_TIMEOUT_MS + 5 s. */
const LEASE_MS = 3 * PROVIDER_TIMEOUT_MS + 5000;

const unavailable = postgresUnavailable();

interface Replica {
  id: string;
  port: number;
  child: ChildProcess;
}

describe.skipIf(unavailable !== undefined)(`two replicas on PostgreSQL${unavailable ? ` (skipped: ${unavailable})` : ''}`, () => {
  let server: RunningPostgres;
  let url: string;
  let dataDir: string;
  const telegram = outageTelegram(TOKEN, 300);
  const replicas: Replica[] = [];

  beforeAll(async () => {
    server = await startPostgres();
    url = await server.createDatabase();
    await telegram.start();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fxdesk-notif-replicas-'));
  }, 300_000);
  afterAll(async () => {
    for (const r of replicas) r.child.kill('SIGKILL');
    await telegram.stop();
    await server?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  async function start(id: string): Promise<Replica> {
    const port = await freePort();
    const child = run('services/notification/src/server.ts', {
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'error',
      DATA_DIR: dataDir,
      DATABASE_URL: url,
      REPLICA_ID: id,
      NOTIFICATION_API_KEY: KEY,
      CHAT_APP_BOT_TOKEN: TOKEN,
      CHAT_APP_BASE_URL: telegram.url,
      CHAT_APP_CHAT_IDS: CHATS.join(','),
      PROVIDER_TIMEOUT_MS: String(PROVIDER_TIMEOUT_MS),
      RETRY_BASE_MS: '200',
      RETRY_MAX_MS: '2000',
      MAX_DELIVERY_ATTEMPTS: '100',
      OUTBOX_POLL_INTERVAL_MS: '200',
    }).child;
    const replica = { id, port, child };
    replicas.push(replica);
    return replica;
  }

  async function sql<R extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<R[]> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return (await client.query<R>(text, values)).rows;
    } finally {
      await client.end();
    }
  }

  const byStatus = async () =>
    Object.fromEntries(
      (await sql<{ status: string; n: number }>('SELECT status, COUNT(*)::int AS n FROM notification_deliveries GROUP BY status')).map((r) => [r.status, r.n]),
    );

  it('ends every delivery sent after one replica dies mid-delivery, with no more duplicates than it had in flight', async () => {
    const [a, b] = await Promise.all([start('replica-a'), start('replica-b')]);
    for (const r of [a, b]) await until(async () => (await fetch(`http://127.0.0.1:${r.port}/health/ready`)).ok, 60_000);

    const started = Date.now();
    for (let i = 0; i < NOTIFICATIONS; i++) {
      const r = i % 2 === 0 ? a : b;
      const res = await fetch(`http://127.0.0.1:${r.port}/notifications`, {
        method: 'POST',
        headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
        body: JSON.stringify({ message: `alert ${i}`, channels: ['CHAT_APP'], source: 'replicas-test' }),
      });
      expect(res.status).toBe(201);
    }

    // The provider fails, then hangs (the replicas' calls time out), then takes messages.
    await until(() => telegram.counts.failed >= 100, 60_000);
    telegram.setPhase('hang');
    await until(() => telegram.counts.hung >= 40, 60_000);
    telegram.setPhase('succeed');
    await until(() => telegram.counts.posted >= 150, 120_000);

    a.child.kill('SIGKILL');
    await new Promise((resolve) => a.child.once('exit', resolve));
    const killedAt = Date.now();
    const [{ n: inFlight }] = (await sql<{ n: number }>("SELECT COUNT(*)::int AS n FROM notification_deliveries WHERE status = 'sending' AND owner = $1", [
      a.id,
    ])) as [{ n: number }];

    await until(async () => (await byStatus()).sent === DELIVERIES, 180_000);
    const seconds = (Date.now() - started) / 1000;
    const duplicates = telegram.duplicates();
    const claimedBy = await sql<{ owner: string; n: number }>('SELECT owner, COUNT(*)::int AS n FROM notification_deliveries GROUP BY owner ORDER BY owner');
    process.stdout.write(
      `${DELIVERIES} deliveries, replica-a SIGKILLed with ${inFlight} in flight: all sent after ${seconds.toFixed(1)} s ` +
        `(${((Date.now() - killedAt) / 1000).toFixed(1)} s after the kill, lease ${LEASE_MS / 1000} s); ${duplicates} duplicate(s) at the provider; ` +
        `provider saw ${telegram.counts.failed} 500s, ${telegram.counts.hung} hung calls, ${telegram.counts.tooMany} 429s, ${telegram.counts.posted} posts; ` +
        `last claims by ${claimedBy.map((r) => `${r.owner}: ${r.n}`).join(', ')}\n`,
    );

    expect(await byStatus()).toEqual({ sent: DELIVERIES });
    expect(telegram.posted.size).toBe(DELIVERIES);
    expect(duplicates).toBeLessThanOrEqual(inFlight);
    expect(claimedBy.find((r) => r.owner === a.id)?.n ?? 0).toBeGreaterThan(0);
  }, 400_000);
});
