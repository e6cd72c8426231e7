export * from './account.js';
export * from './errors.js';
export * from './execution.js';
export * from './http.js';
export * from './market-data.js';
export * from './notification.js';
export * from './sse.js';
export * from './strategy.js';
