export * from './backoff.js';
export * from './clock.js';
export * from './decimal.js';
export * from './retry-after.js';
export * from './ring-buffer.js';
export * from './pacer.js';
