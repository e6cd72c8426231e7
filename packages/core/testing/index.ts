export * from './error-paths.js';
export * from './log-capture.js';
export * from './debian.js';
export * from './browser.js';
export * from './openapi-contract.js';
export * from './client-contract.js';
export * from './processes.js';
export * from './engines.js';
