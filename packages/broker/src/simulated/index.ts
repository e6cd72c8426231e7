export * from './account.js';
export * from './faults.js';
export * from './feed.js';
export * from './market.js';
export { isWeeklyOpen, nextWeeklyOpen, previousWeeklyClose } from './market-hours.js';
export * from './symbols.js';
export * from './terminal.js';
export * from './terminal-store.js';
export { LIQUIDITY_LOTS, simulatedSymbolInfo } from './terminal-rules.js';
