export * from './hosts.js';
export * from './terminal.js';
