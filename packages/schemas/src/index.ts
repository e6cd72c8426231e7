export * from './account.js';
export * from './error.js';
export * from './execution.js';
export * from './lab.js';
export * from './market-data.js';
export * from './notification.js';
export * from './primitives.js';
export * from './strategy.js';
