/**
 * OANDA v20 REST hosts, from the Development Guide's "API URLs" table
 * (https://developer.oanda.com/rest-live-v20/development-guide/): fxTrade Practice is
 * https://api-fxpractice.oanda.com, fxTrade (live money) is https://api-fxtrade.oanda.com.
 * Every REST path sits under `/v3` (the v20 OpenAPI document's basePath).
 */
export const OANDA_HOSTS = {
  practice: 'https://api-fxpractice.oanda.com',
  live: 'https://api-fxtrade.oanda.com',
} as const;

export type OandaEnvironment = keyof typeof OANDA_HOSTS;

/** The base URL the adapter talks to: the override when given, else the environment's host. */
export function oandaBaseUrl(environment: OandaEnvironment, override?: string): string {
  return override ?? OANDA_HOSTS[environment];
}

/**
 * The streaming hosts of the same table ("Streaming API"): fxTrade Practice
 * https://stream-fxpractice.oanda.com, fxTrade https://stream-fxtrade.oanda.com.
 */
export const OANDA_STREAM_HOSTS = {
  practice: 'https://stream-fxpractice.oanda.com',
  live: 'https://stream-fxtrade.oanda.com',
} as const;

/** The stream host the feed talks to: the override when given, else the environment's. */
export function oandaStreamUrl(environment: OandaEnvironment, override?: string): string {
  return override ?? OANDA_STREAM_HOSTS[environment];
}
