export * from './account-reader.js';
export type { MetaApiTradeMode } from './account-records.js';
export { METAAPI_PACING, type MetaApiConnectionOptions, type MetaApiPacing } from './clients.js';
export { MetaApiFeed, type MetaApiFeedOptions } from './feed.js';
export * from './hosts.js';
export * from './terminal.js';
