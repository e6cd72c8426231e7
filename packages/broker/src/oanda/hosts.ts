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
