import path from 'node:path';
import { CTraderFeed, ctraderUrl, fileTokenStore, SimulatedFeed, SimulatedMarket, type QuoteFeed } from '@fxdesk/broker';
import type { CheckResult } from '@fxdesk/core';
import type { Clock } from '@fxdesk/primitives';
import type { MarketDataConfig } from './config.js';

export interface BrokerFeed {
  feed: QuoteFeed;
  /** Closes the feed, then stops what it runs on (the simulated market's ticking). */
  close: () => Promise<void>;
  /** Readiness checks of the broker's own (cTrader: `ctrader_token`). */
  checks?: Record<string, () => CheckResult>;
}

/** The quote feed BROKER names, built from its settings. */
export function createQuoteFeed(config: MarketDataConfig, clock: Clock): BrokerFeed {
  if (config.BROKER === 'ctrader') {
    const feed = new CTraderFeed({
      clientId: config.CTRADER_CLIENT_ID as string,
      clientSecret: config.CTRADER_CLIENT_SECRET as string,
      accessToken: config.CTRADER_ACCESS_TOKEN as string,
      refreshToken: config.CTRADER_REFRESH_TOKEN,
      tokenStore: ctraderTokenFile(config),
      accountId: config.CTRADER_ACCOUNT_ID as number,
      url: ctraderUrl(config.CTRADER_ENVIRONMENT, { host: config.CTRADER_HOST, port: config.CTRADER_PORT }),
      clock,
      reconnectMaxMs: config.FEED_RECONNECT_MAX_SECONDS * 1000,
    });
    return { feed, close: () => feed.close(), checks: { ctrader_token: () => feed.tokenStatus() } };
  }
  const market = new SimulatedMarket({ seed: config.SIM_SEED, tickIntervalMs: config.SIM_TICK_INTERVAL_MS, marketHours: config.SIM_MARKET_HOURS, clock });
  const feed = new SimulatedFeed({ market });
  return {
    feed,
    close: async () => {
      await feed.close();
      market.stop();
    },
  };
}

/** DATA_DIR/ctrader-tokens-<account>.json, where renewed token pairs are kept (none with DATA_DIR=:memory:). */
function ctraderTokenFile(config: MarketDataConfig) {
  if (config.DATA_DIR === ':memory:') return undefined;
  return fileTokenStore(path.join(config.DATA_DIR, `ctrader-tokens-${config.CTRADER_ACCOUNT_ID}.json`));
}

/** What the start-up log line names: never a credential. */
export function describeBroker(config: MarketDataConfig): string {
  if (config.BROKER === 'ctrader') {
    return `the cTrader Open API (${ctraderUrl(config.CTRADER_ENVIRONMENT, { host: config.CTRADER_HOST, port: config.CTRADER_PORT })}, account ${config.CTRADER_ACCOUNT_ID})`;
  }
  return `the simulated market (seed ${config.SIM_SEED})`;
}
