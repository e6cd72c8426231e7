import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { App } from '@fxdesk/core';
import { createLogger } from '@fxdesk/core';
import { LogCapture } from '@fxdesk/core/testing';
import { FAKE_CREDENTIALS, FAKE_REFRESH_TOKEN, FakeCTraderServer } from '@fxdesk/broker/testing';
import { ManualClock } from '@fxdesk/primitives';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createQuoteFeed } from '../src/broker.js';
import { buildOn, fakeCTraderSettings, testConfig } from './helpers.js';

/** Wednesday 2026-01-07 12:00 UTC: the fake venue's FX week is open. */
const START = Date.UTC(2026, 0, 7, 12);

let clock: ManualClock;
let fake: FakeCTraderServer;
let dataDir: string;
const apps: App[] = [];

beforeEach(async () => {
  clock = new ManualClock(START);
  fake = await FakeCTraderServer.start({ clock });
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fxdesk-market-data-'));
});

afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
  await fake.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** The service as server.ts builds it from BROKER=ctrader with a refresh token, on the fake venue; started. */
async function startService(logs = new LogCapture()): Promise<App> {
  const config = testConfig({ ...fakeCTraderSettings(fake.port), DATA_DIR: dataDir, CTRADER_REFRESH_TOKEN: FAKE_REFRESH_TOKEN });
  const logger = createLogger({ name: 'market-data', level: 'debug', stream: logs });
  const { app } = await buildOn(config, { clock, logger, ...createQuoteFeed(config, clock) });
  apps.push(app);
  await app.ready();
  return app;
}

async function readiness(app: App) {
  const res = await app.inject({ method: 'GET', url: '/health/ready' });
  return { status: res.statusCode, checks: res.json<{ checks: Record<string, { ok: boolean; detail: string }> }>().checks };
}

/** Steps the clock a second at a time, letting sockets and retries run between steps. */
async function advance(ms: number): Promise<void> {
  for (let left = ms; left > 0; left -= 1000) {
    clock.advance(1000);
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

describe('the market-data service on BROKER=ctrader: access tokens', () => {
  it('renews an expired token, keeps the new pair in DATA_DIR, and starts from it after a restart', async () => {
    fake.isTokenExpired = true;
    const first = await startService();
    const ready = await readiness(first);
    expect(ready.checks.ctrader_token).toEqual({ ok: true, detail: expect.stringMatching(/^access token refreshed 2026-01-07T12:00:00.000Z, expires /) });
    const file = path.join(dataDir, `ctrader-tokens-${FAKE_CREDENTIALS.accountId}.json`);
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toMatchObject({ accessToken: 'fake-access-token-r1', refreshToken: 'fake-refresh-token-r1' });
    await first.close();

    // Same settings, so the same spent pair in the environment: the saved pair wins.
    await startService();
    expect(fake.refreshes).toBe(1);
    expect(fake.messages(2102).at(-1)?.payload.accessToken).toBe('fake-access-token-r1');
  });

  it('fails readiness with a named check when the refresh token is refused, and says so in the log once', async () => {
    const logs = new LogCapture();
    fake.refreshToken = 'spent-by-another-grant';
    fake.isTokenExpired = true;
    const app = await startService(logs);
    await advance(300_000);
    const ready = await readiness(app);
    expect(ready.status).toBe(503);
    expect(ready.checks.ctrader_token).toEqual({
      ok: false,
      detail: expect.stringMatching(/^the cTrader refresh token was refused \(cTrader CH_ACCESS_TOKEN_INVALID/),
    });
    expect(fake.handshakes).toHaveLength(1);
    const warnings = logs.lines.map((line) => JSON.parse(line) as { level: string; msg: string }).filter((l) => l.level === 'warn');
    expect(warnings.map((l) => l.msg)).toEqual(['broker feed connection failed; retrying']);
  });
});
