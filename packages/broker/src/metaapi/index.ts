export * from './clients.js';
export * from './hosts.js';
export * from './terminal.js';
