import type { QuoteFeed } from '@fxdesk/broker';
import { systemClock, type Clock } from '@fxdesk/primitives';
import type { Logger } from 'pino';
import { createQuoteFeed, describeBroker } from './broker.js';
import type { MarketDataConfig } from './config.js';

/** What the market-data service runs on. */
export interface MarketDataDeps {
  clock: Clock;
  /** The broker's quote feed. The app connects it when it becomes ready; `close` closes it. */
  feed: QuoteFeed;
  logger?: Logger;
  /** Closes the feed and stops what it runs on; called after the app has closed. */
  close: () => Promise<void>;
}

/** The real dependencies the config asks for: the feed BROKER names, on the system clock. */
export async function createDeps(config: MarketDataConfig, logger: Logger): Promise<MarketDataDeps> {
  logger.info(`quotes from ${describeBroker(config)}`);
  const { feed, close } = createQuoteFeed(config, systemClock);
  return { clock: systemClock, feed, logger, close };
}
