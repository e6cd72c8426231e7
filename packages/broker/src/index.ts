export * from './account.js';
export * from './errors.js';
export * from './feed.js';
export * from './mt5-retcodes.js';
export * from './terminal.js';
export * from './types.js';
export * from './oanda/index.js';
export * from './simulated/index.js';
