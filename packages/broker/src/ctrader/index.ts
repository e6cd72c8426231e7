export { CTraderFeed, type CTraderFeedOptions } from './feed.js';
export { CTRADER_HOSTS, CTRADER_JSON_PORT, ctraderUrl, type CTraderEnvironment } from './hosts.js';
