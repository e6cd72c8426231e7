export * from './clock.js';
export * from './decimal.js';
