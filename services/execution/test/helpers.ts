import { randomUUID } from 'node:crypto';
import { SimulatedMarket, SimulatedTerminal, type TradingTerminal } from '@fxdesk/broker';
import { loadConfig, type App } from '@fxdesk/core';
import { ManualClock } from '@fxdesk/primitives';
import type { LightMyRequestResponse } from 'fastify';
import type { Logger } from 'pino';
import { buildApp } from '../src/app.js';
import { ExecutionConfigSchema, type ExecutionConfig } from '../src/config.js';
import type { ExecutionDeps } from '../src/deps.js';
import { openExecutionFile } from '../src/schema.js';
import { DatabaseSignalStore } from '../src/signal-store.js';
import type { SignalStore } from '../src/store.js';

export const API_KEY = 'test-execution-key';
/** Monday 2026-01-05 12:00 UTC: the simulated market is open. */
export const NOW = Date.UTC(2026, 0, 5, 12, 0, 0);

export function testConfig(env: Record<string, string> = {}): ExecutionConfig {
  return loadConfig(ExecutionConfigSchema, {
    API_KEY,
    LOG_LEVEL: 'silent',
    TRADING_ENABLED: 'true',
    RATE_LIMIT_PER_MINUTE: '0',
    ...env,
  });
}

/** The app on a test's deps, closed as server.ts closes it: closing the app closes the store (the test owns the terminal). */
export async function appOn(config: ExecutionConfig, deps: Omit<ExecutionDeps, 'close'>): Promise<App> {
  const close = () => deps.store.close();
  const { app } = await buildApp({ config, deps: { ...deps, close } });
  app.addHook('onClose', close);
  return app;
}

/** REPLICA_ID's default, the replica the tests' stores claim as. */
export const REPLICA_ID = 'replica-1';

/** The default store, SQLite, in a file or in memory. */
export function sqliteStore(file = ':memory:'): DatabaseSignalStore {
  return new DatabaseSignalStore(openExecutionFile(file), REPLICA_ID);
}

export interface TestApp {
  app: App;
  store: SignalStore;
  clock: ManualClock;
  config: ExecutionConfig;
}

export async function buildTestApp(options: {
  terminal: TradingTerminal;
  env?: Record<string, string>;
  clock?: ManualClock;
  store?: SignalStore;
  terminalCalls?: () => Record<string, number>;
  logger?: Logger;
}): Promise<TestApp> {
  const config = testConfig(options.env);
  const clock = options.clock ?? new ManualClock(NOW);
  const store = options.store ?? sqliteStore();
  const app = await appOn(config, { clock, terminal: options.terminal, store, terminalCalls: options.terminalCalls, logger: options.logger });
  await app.ready();
  return { app, store, clock, config };
}

/** A valid market buy of 0.10 EURUSD from `tradingview`, with a fresh signal_id. */
export function signal(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    signal_id: randomUUID(),
    occurred_at: new Date(NOW).toISOString(),
    execution_type: 'market',
    symbol: 'EURUSD',
    direction: 'buy',
    volume: '0.10',
    source: 'tradingview',
    ...extra,
  };
}

export function postSignal(app: App, body: unknown, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  return app.inject({
    method: 'POST',
    url: '/v1/signals',
    headers: { 'x-api-key': API_KEY, ...headers },
    payload: body as Record<string, unknown>,
  });
}

export function getSignal(app: App, signalId: string): Promise<LightMyRequestResponse> {
  return app.inject({ method: 'GET', url: `/v1/signals/${signalId}`, headers: { 'x-api-key': API_KEY } });
}

/** The envelope fields every error answer carries. */
export function expectEnvelope(res: LightMyRequestResponse, status: number, code: string): Record<string, unknown> {
  const body = JSON.parse(res.body) as Record<string, unknown>;
  if (res.statusCode !== status || body.code !== code) {
    throw new Error(`expected ${status} ${code}, got ${res.statusCode} ${res.body}`);
  }
  if (body.error !== true || typeof body.message !== 'string' || typeof body.timestamp !== 'string') {
    throw new Error(`not the error envelope: ${res.body}`);
  }
  return body;
}

export interface SimulatedHarness extends TestApp {
  terminal: SimulatedTerminal;
}

/** The app on a connected simulated terminal, sharing one manual clock with its market. */
export async function simulatedApp(
  options: { env?: Record<string, string>; balance?: string; clock?: ManualClock; logger?: Logger; store?: SignalStore } = {},
): Promise<SimulatedHarness> {
  const clock = options.clock ?? new ManualClock(NOW);
  const market = new SimulatedMarket({ seed: 'execution-tests', tickIntervalMs: 1000, marketHours: true, clock });
  const terminal = new SimulatedTerminal({ market, balance: options.balance ?? '100000' });
  await terminal.connect();
  const harness = await buildTestApp({
    terminal,
    clock,
    env: options.env,
    logger: options.logger,
    store: options.store,
    terminalCalls: () => ({ orderSend: terminal.stats.orderSendCalls, orderCheck: terminal.stats.orderCheckCalls }),
  });
  return { ...harness, terminal };
}

/** Lets queued I/O callbacks and commits run until `check` holds (no wall-clock wait). */
export async function settle(check: () => boolean, turns = 1000): Promise<void> {
  for (let i = 0; i < turns && !check(); i++) await new Promise((resolve) => setImmediate(resolve));
  if (!check()) throw new Error('condition not reached');
}
