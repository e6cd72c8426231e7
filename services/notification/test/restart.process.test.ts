import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, run, until } from '@fxdesk/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeTelegram, telegramError, type FakeProvider, type Received } from './fakes.js';

const TOKEN = '999:process-test';
const KEY = 'process-test-key';
const WAIT_MS = 15_000;

describe('the server process killed while deliveries are pending', () => {
  let telegram: FakeProvider;
  let dataDir: string;
  let port: number;
  let child: ChildProcess | undefined;
  let outage = false;

  beforeAll(async () => {
    telegram = await fakeTelegram(TOKEN).start();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fxdesk-notif-proc-'));
    port = await freePort();
  });
  afterAll(async () => {
    child?.kill('SIGKILL');
    await telegram.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  function start(): ChildProcess {
    return run('services/notification/src/server.ts', {
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      DATA_DIR: dataDir,
      NOTIFICATION_API_KEY: KEY,
      CHAT_APP_BOT_TOKEN: TOKEN,
      CHAT_APP_BASE_URL: telegram.url,
      CHAT_APP_CHAT_IDS: '111,222',
      OUTBOX_POLL_INTERVAL_MS: '100',
    }).child;
  }

  const api = async (method: string, url: string, body?: unknown) => {
    const res = await fetch(`http://127.0.0.1:${port}${url}`, {
      method,
      headers: { 'x-api-key': KEY, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return (await res.json()) as Record<string, unknown>;
  };
  const statuses = async (ids: string[]) =>
    Promise.all(ids.map(async (id) => (await api('GET', `/notifications/${id}`)) as { status: string; attempts: number; error: { code: string } | null }));
  /** Successful sendMessage calls per text, as the fake answered them. */
  const accepted = (text: string) => telegram.received.filter((r) => r.json?.text === text && r.json?.accepted === true).length;

  it('sends the pending ones after a restart and never sends the sent ones again', async () => {
    // The fake marks each request it accepted, so duplicates can be counted exactly.
    telegram.next(
      ...Array.from({ length: 100 }, () => (req: Received) => {
        if (outage) return telegramError(429, 'Too Many Requests: retry after 2', { retry_after: 2 });
        (req.json as Record<string, unknown>).accepted = true;
        return undefined;
      }),
    );

    child = start();
    await until(async () => (await fetch(`http://127.0.0.1:${port}/health/live`)).ok, WAIT_MS);

    const first = await api('POST', '/notifications', { message: 'first', channels: ['CHAT_APP'], source: 'proc' });
    const firstIds = first.deliveryIds as string[];
    await until(async () => (await statuses(firstIds)).every((d) => d.status === 'sent'), WAIT_MS);

    outage = true;
    const second = await api('POST', '/notifications', { message: 'second', channels: ['CHAT_APP'], source: 'proc' });
    const secondIds = second.deliveryIds as string[];
    // Held by the flood wait: pending, and the attempt given back (a 429 is not a failure).
    await until(async () => (await statuses(secondIds)).every((d) => d.status === 'pending' && d.error?.code === '429' && d.attempts === 0), WAIT_MS);

    child.kill('SIGKILL');
    await new Promise((resolve) => child?.once('exit', resolve));
    outage = false;

    child = start();
    await until(async () => (await statuses(secondIds)).every((d) => d.status === 'sent'), WAIT_MS);
    // Give a wrongly resent "first" every chance to show up before counting.
    await new Promise((r) => setTimeout(r, 300));

    expect(accepted('first')).toBe(2);
    expect(accepted('second')).toBe(2);
    expect((await statuses(firstIds)).map((d) => [d.status, d.attempts])).toEqual([
      ['sent', 1],
      ['sent', 1],
    ]);
    expect((await statuses(secondIds)).map((d) => [d.status, d.attempts])).toEqual([
      ['sent', 1],
      ['sent', 1],
    ]);
  }, 40_000);
});
