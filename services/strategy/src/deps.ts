import { AccountClient, ExecutionClient, MarketDataClient, NotificationClient } from '@fxdesk/client';
import { SimulatedMarket } from '@fxdesk/broker';
import { databasePath } from '@fxdesk/core';
import type { Clock } from '@fxdesk/primitives';
import type { StrategyDeps } from './app.js';
import type { StrategyConfig } from './config.js';
import { MarketDataSource } from './market-data-source.js';
import type { MarketSource } from './market-source.js';
import { SimulatedSource } from './simulated-source.js';
import { StrategyStore } from './store.js';

/** The real dependencies the config asks for, and how to close them after the app. */
export function createDeps(config: StrategyConfig, clock: Clock): StrategyDeps & { close: () => Promise<void> } {
  const timeoutMs = config.DOWNSTREAM_TIMEOUT_MS;
  const client = <T>(url: string | undefined, key: string | undefined, make: (o: { baseUrl: string; apiKey?: string; timeoutMs: number }) => T) =>
    url === undefined ? undefined : make({ baseUrl: url, apiKey: key, timeoutMs });
  const store = new StrategyStore(databasePath(config.DATA_DIR, 'strategy'));
  const marketData = client(config.MARKET_DATA_URL, config.MARKET_DATA_API_KEY, (o) => new MarketDataClient(o));
  const source: MarketSource = marketData
    ? new MarketDataSource(marketData, clock)
    : new SimulatedSource(new SimulatedMarket({ seed: config.SIM_SEED, tickIntervalMs: config.SIM_TICK_INTERVAL_MS, marketHours: config.SIM_MARKET_HOURS, clock }));
  const execution = client(config.EXECUTION_URL, config.EXECUTION_API_KEY, (o) => new ExecutionClient(o));
  const notification = client(config.NOTIFICATION_URL, config.NOTIFICATION_API_KEY, (o) => new NotificationClient(o));
  const account = client(config.ACCOUNT_URL, config.ACCOUNT_API_KEY, (o) => new AccountClient(o));
  return {
    clock,
    store,
    source,
    execution,
    notification,
    account,
    close: async () => {
      await Promise.allSettled([source.close(), execution?.close(), notification?.close(), account?.close()]);
      store.close();
    },
  };
}
