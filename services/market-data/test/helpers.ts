import { SimulatedFeed, SimulatedMarket } from '@fxdesk/broker';
import { fakeCTraderSettings as brokerFakeCTraderSettings } from '@fxdesk/broker/testing';
import { loadConfig, type App } from '@fxdesk/core';
import { ManualClock } from '@fxdesk/primitives';
import { buildApp, type MarketDataService } from '../src/app.js';
import { MarketDataConfigSchema, type MarketDataConfig } from '../src/config.js';
import type { MarketDataDeps } from '../src/deps.js';
import type { MarketData } from '../src/market-data.js';
import { FakeFeed } from './fake-feed.js';

export const API_KEY = 'test-market-data-key';

export function testConfig(overrides: Record<string, string> = {}): MarketDataConfig {
  return loadConfig(MarketDataConfigSchema, { API_KEY, LOG_LEVEL: 'silent', RATE_LIMIT_PER_MINUTE: '0', ...overrides });
}

/** The settings of BROKER=ctrader on the local fake cTrader server listening on `port`, with its credentials. */
export function fakeCTraderSettings(port: number): Record<string, string> {
  return { BROKER: 'ctrader', ...brokerFakeCTraderSettings(port) };
}

export interface TestService {
  app: App;
  market: MarketData;
  feed: FakeFeed;
  clock: ManualClock;
}

/** Builds the app on `deps` and closes them after it, as server.ts does; not ready yet. */
export async function buildOn(config: MarketDataConfig, deps: MarketDataDeps): Promise<MarketDataService> {
  const service = await buildApp({ config, deps });
  service.app.addHook('onClose', deps.close);
  return service;
}

/** The deps of an app on a fake feed: closing them closes the feed. */
export function fakeDeps(clock: ManualClock, feed: FakeFeed = new FakeFeed(clock)): MarketDataDeps & { feed: FakeFeed } {
  return { clock, feed, close: () => feed.close() };
}

/** The app on a fake feed and a manual clock (Monday 2026-01-05 12:00 UTC unless told). */
export async function buildTestService(
  options: { config?: Record<string, string>; start?: number | string; prepare?: (feed: FakeFeed) => void } = {},
): Promise<TestService> {
  const clock = new ManualClock(options.start);
  const deps = fakeDeps(clock);
  options.prepare?.(deps.feed);
  const { app, market } = await buildOn(testConfig(options.config), deps);
  await app.ready();
  return { app, market, feed: deps.feed, clock };
}

export const auth = { 'x-api-key': API_KEY };

/** GET /health/ready: its status and body. */
export async function ready(service: Pick<TestService, 'app'>) {
  const res = await service.app.inject({ method: 'GET', url: '/health/ready' });
  return { status: res.statusCode, body: res.json<{ status: string; checks: Record<string, { ok: boolean; detail: string }> }>() };
}

/** A quote of every symbol the service serves on the fake feed (the enabled ones of its catalog). */
export function quoteEverySymbol(feed: FakeFeed): void {
  feed.quote('EURUSD', 1.085, 1.0851);
  feed.quote('GBPUSD', 1.27, 1.2702);
  feed.quote('USDJPY', 150.1, 150.112);
}

/** The app on the real simulated market and feed, driven by a manual clock. */
export async function buildSimulatedService(options: {
  start: number | string;
  tickIntervalMs?: number;
  config?: Record<string, string>;
}): Promise<{ app: App; clock: ManualClock; feed: SimulatedFeed; market: SimulatedMarket }> {
  const clock = new ManualClock(options.start);
  const market = new SimulatedMarket({ seed: 'market-data-test', tickIntervalMs: options.tickIntervalMs ?? 1000, marketHours: true, clock });
  const feed = new SimulatedFeed({ market });
  const close = async () => {
    await feed.close();
    market.stop();
  };
  const { app } = await buildOn(testConfig(options.config), { clock, feed, close });
  await app.ready();
  return { app, clock, feed, market };
}
