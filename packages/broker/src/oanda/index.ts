export * from './account-reader.js';
export * from './feed.js';
export * from './hosts.js';
export * from './terminal.js';
