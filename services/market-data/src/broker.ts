import { CTraderFeed, ctraderUrl, SimulatedFeed, SimulatedMarket, type QuoteFeed } from '@fxdesk/broker';
import type { Clock } from '@fxdesk/primitives';
import type { MarketDataConfig } from './config.js';

export interface BrokerFeed {
  feed: QuoteFeed;
  /** Closes the feed, then stops what it runs on (the simulated market's ticking). */
  close: () => Promise<void>;
}

/** The quote feed BROKER names, built from its settings. */
export function createQuoteFeed(config: MarketDataConfig, clock: Clock): BrokerFeed {
  if (config.BROKER === 'ctrader') {
    const feed = new CTraderFeed({
      clientId: config.CTRADER_CLIENT_ID as string,
      clientSecret: config.CTRADER_CLIENT_SECRET as string,
      accessToken: config.CTRADER_ACCESS_TOKEN as string,
      accountId: config.CTRADER_ACCOUNT_ID as number,
      url: ctraderUrl(config.CTRADER_ENVIRONMENT, { host: config.CTRADER_HOST, port: config.CTRADER_PORT }),
      clock,
      reconnectMaxMs: config.FEED_RECONNECT_MAX_SECONDS * 1000,
    });
    return { feed, close: () => feed.close() };
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

/** What the start-up log line names: never a credential. */
export function describeBroker(config: MarketDataConfig): string {
  if (config.BROKER === 'ctrader') {
    return `the cTrader Open API (${ctraderUrl(config.CTRADER_ENVIRONMENT, { host: config.CTRADER_HOST, port: config.CTRADER_PORT })}, account ${config.CTRADER_ACCOUNT_ID})`;
  }
  return `the simulated market (seed ${config.SIM_SEED})`;
}
