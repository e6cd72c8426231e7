import type { QuoteFeed } from '@fxdesk/broker';
import type { CheckResult } from '@fxdesk/core';
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
  /** Readiness checks the broker adds to the service's own (cTrader: `ctrader_token`). */
  checks?: Record<string, () => CheckResult>;
}

/** The real dependencies the config asks for: the feed BROKER names, on the system clock. */
export async function createDeps(config: MarketDataConfig, logger: Logger): Promise<MarketDataDeps> {
  logger.info(`quotes from ${describeBroker(config)}`);
  const { feed, close, checks } = createQuoteFeed(config, systemClock);
  return { clock: systemClock, feed, logger, close, checks };
}
