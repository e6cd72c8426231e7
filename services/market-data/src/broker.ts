import { describeVenue, isRealVenue, openVenue, SimulatedFeed, SimulatedMarket, type QuoteFeed } from '@fxdesk/broker';
import type { CheckResult } from '@fxdesk/core';
import type { Clock } from '@fxdesk/primitives';
import type { MarketDataConfig } from './config.js';

export interface BrokerFeed {
  feed: QuoteFeed;
  /** Closes the feed, then stops what it runs on (the simulated market's ticking, a venue session). */
  close: () => Promise<void>;
  /** Readiness checks of the broker's own (cTrader: `ctrader_token`). */
  checks?: Record<string, () => CheckResult>;
}

/**
 * The quote feed BROKER names: a real venue's (cTrader, OANDA v20, MetaApi) built from its
 * settings by the broker's `openVenue`, reconnecting within FEED_RECONNECT_MAX_SECONDS, its
 * catalog SYMBOLS where the venue charges per symbol; else the simulated market's.
 */
export function createQuoteFeed(config: MarketDataConfig, clock: Clock): BrokerFeed {
  if (isRealVenue(config.BROKER)) {
    const venue = openVenue(config.BROKER, config, {
      clock,
      dataDir: config.DATA_DIR,
      reconnectMaxMs: config.FEED_RECONNECT_MAX_SECONDS * 1000,
      catalog: config.SYMBOLS,
    });
    return { feed: venue.feed(), close: () => venue.close(), checks: venue.checks() };
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
  if (isRealVenue(config.BROKER)) return describeVenue(config.BROKER, config);
  return `the simulated market (seed ${config.SIM_SEED})`;
}
