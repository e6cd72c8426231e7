import { createLogger, loadConfig, SqliteStoreDatabase, type App, type Env } from '@fxdesk/core';
import { LogCapture } from '@fxdesk/core/testing';
import { ManualClock } from '@fxdesk/primitives';
import type { Response as InjectResponse } from 'light-my-request';
import { FakeV20Server } from '@fxdesk/broker/testing';
import type { AccountSummary } from '@fxdesk/schemas';
import { buildApp } from '../src/app.js';
import { AccountConfigSchema, type AccountConfig } from '../src/config.js';
import { openDeps, type AccountDeps } from '../src/deps.js';
import { SNAPSHOT_SCHEMA, SnapshotStore } from '../src/store.js';

export const TEST_KEY = 'test-account-key-5b1e9d';
export const KEY_HEADER = { 'x-internal-api-key': TEST_KEY };

/** An account summary to stand for a broker's answer where its values do not matter. */
export const SUMMARY: AccountSummary = {
  id: 'SIM-1',
  alias: null,
  currency: 'USD',
  balance: '1',
  nav: '1',
  unrealizedPL: '0',
  realizedPL: '0',
  marginUsed: '0',
  marginAvailable: '1',
  marginRate: '0.02',
  openTradeCount: 0,
  openPositionCount: 0,
  pendingOrderCount: 0,
  lastTransactionId: '1',
  asOf: '2026-01-05T12:00:00.000Z',
};

/** A snapshot store on SQLite, as server.ts opens it without DATABASE_URL: `file` defaults to a private in-memory database. */
export function sqliteStore(file = ':memory:', retention = 0): SnapshotStore {
  return new SnapshotStore(SqliteStoreDatabase.open(file, SNAPSHOT_SCHEMA), retention);
}

export function testConfig(env: Env = {}): AccountConfig {
  return loadConfig(AccountConfigSchema, { INTERNAL_API_KEY: TEST_KEY, LOG_LEVEL: 'silent', RATE_LIMIT_PER_MINUTE: '0', ...env });
}

export interface Harness {
  app: App;
  clock: ManualClock;
  config: AccountConfig;
  logs: LogCapture;
  get(url: string, headers?: Record<string, string>): Promise<InjectResponse>;
  close(): Promise<void>;
}

export interface OandaHarness extends Harness {
  fake: FakeV20Server;
}

interface StartOptions {
  env?: Env;
  dbFile?: string;
  /** The snapshot store, instead of SQLite in `dbFile`. */
  store?: SnapshotStore;
  logLevel?: string;
  /** Where the manual clock starts (default Monday 2026-01-05 12:00 UTC, market open). */
  at?: string;
}

/** The app as server.ts starts it: closing it closes its deps. By default the deps server.ts makes, on a manual clock and a private in-memory database. */
export async function buildTestApp(
  config: AccountConfig,
  deps: AccountDeps = openDeps(config, { clock: new ManualClock(), store: sqliteStore(':memory:', config.SNAPSHOT_RETENTION) }),
): Promise<App> {
  const { app } = await buildApp({ config, deps });
  app.addHook('onClose', deps.close);
  return app;
}

/** The service as server.ts builds it (the broker BROKER names, a SQLite snapshot store unless given one), on a manual clock. */
async function startService(config: AccountConfig, clock: ManualClock, options: StartOptions): Promise<Harness> {
  const logs = new LogCapture();
  const logger = createLogger({ name: 'account', level: options.logLevel ?? 'silent', stream: logs });
  const store = options.store ?? sqliteStore(options.dbFile, config.SNAPSHOT_RETENTION);
  const app = await buildTestApp(config, openDeps(config, { clock, logger, store }));
  return {
    app,
    clock,
    config,
    logs,
    get: (url, headers = KEY_HEADER) => app.inject({ method: 'GET', url, headers }),
    close: () => app.close(),
  };
}

/** BROKER=oanda pointed at a local fake v20 server. `dbFile` defaults to a private in-memory database. */
export async function startOanda(options: StartOptions = {}): Promise<OandaHarness> {
  const clock = new ManualClock(options.at ?? '2026-01-05T12:00:00Z');
  const fake = await FakeV20Server.start({ now: () => new Date(clock.now()) });
  const config = testConfig({
    BROKER: 'oanda',
    OANDA_API_TOKEN: fake.token,
    OANDA_ACCOUNT_ID: fake.account.id,
    OANDA_BASE_URL: fake.baseUrl,
    BROKER_TIMEOUT_MS: '5000',
    // The manual clock stands still while the tests make hundreds of reads in one instant; the
    // adapter's own tests prove the pacing at OANDA's 100 per second.
    OANDA_REQUESTS_PER_SECOND: '1000000',
    ...options.env,
  });
  const service = await startService(config, clock, options);
  return {
    ...service,
    fake,
    close: async () => {
      await service.close();
      await fake.close();
    },
  };
}

/** The default BROKER=simulated: the simulated account over the simulated market. */
export async function startSimulated(options: StartOptions = {}): Promise<Harness> {
  const clock = new ManualClock(options.at ?? '2026-01-05T12:00:00Z');
  return startService(testConfig({ SIM_SEED: 'account-tests', ...options.env }), clock, options);
}

/** BROKER=simulated reading the account the execution service at `executionUrl` trades, on the execution service's clock. */
export async function startOnExecution(executionUrl: string, apiKey: string, clock: ManualClock, options: StartOptions = {}): Promise<Harness> {
  return startService(testConfig({ SIM_SEED: 'account-tests', EXECUTION_URL: executionUrl, EXECUTION_API_KEY: apiKey, ...options.env }), clock, options);
}

/** Parses an error answer and checks it is the envelope, with no stack trace. */
export function envelopeOf(res: { body: string; statusCode: number }): { code: string; message: string } {
  const body = JSON.parse(res.body) as { error: boolean; code: string; message: string; timestamp: string };
  if (body.error !== true || typeof body.code !== 'string' || typeof body.timestamp !== 'string') {
    throw new Error(`not the error envelope: ${res.body}`);
  }
  if (/"stack"|at \w+ \(/.test(res.body)) throw new Error(`stack trace in ${res.body}`);
  return body;
}
