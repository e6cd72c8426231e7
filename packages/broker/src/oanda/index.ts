export * from './account-reader.js';
export * from './hosts.js';
export * from './terminal.js';
