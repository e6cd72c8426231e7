export { CTraderAccount, type CTraderAccountOptions } from './account-reader.js';
export { CTraderFeed, type CTraderFeedOptions } from './feed.js';
export { CTRADER_HOSTS, CTRADER_JSON_PORT, ctraderUrl, type CTraderEnvironment } from './hosts.js';
export { CTraderTerminal, type CTraderTerminalOptions } from './terminal.js';
export { TRADE_LIMITS, type TradeKind, type TradeLimit } from './trade-budget.js';
export { fileTokenStore, tokenFingerprint, type CTraderTokenPair, type CTraderTokenStore, type StoredCTraderTokens } from './token-store.js';
export type { TokenStatus } from './tokens.js';
