export * from './error.js';
export * from './market.js';
export * from './primitives.js';
export * from './signal.js';
export * from './strategy.js';
