/**
 * MetaApi hosts. The client API (terminal state, trading, history) is served per region at
 * `https://mt-client-api-v1.<region>.agiliumtrade.ai` and the historical market data API at
 * `https://mt-market-data-client-api-v1.<region>.agiliumtrade.ai` (MetaApi docs, "Trade": "this
 * URL is valid for new-york region only. You can find URLs for other regions on API access
 * page"; the SDK's HistoricalMarketDataClient builds `mt-market-data-client-api-v1.${domain}`).
 * new-york and london are open to everyone ("Regions support"); an account is served only in
 * the region it is deployed in.
 */
export const METAAPI_DEFAULT_REGION = 'new-york';

/** A region is a DNS label (`new-york`, `london`, `singapore`…). */
export const METAAPI_REGION_PATTERN = /^[a-z0-9]+(-[a-z0-9]+)*$/;

/** The client API base URL: the override when given, else the region's host. */
export function metaApiClientUrl(region: string, override?: string): string {
  return override ?? `https://mt-client-api-v1.${region}.agiliumtrade.ai`;
}

/** The market data API base URL (historical candles): the override when given, else the region's host. */
export function metaApiMarketDataUrl(region: string, override?: string): string {
  return override ?? `https://mt-market-data-client-api-v1.${region}.agiliumtrade.ai`;
}

/**
 * The provisioning API, which keeps the account's deployment `state` and `connectionStatus`; one
 * host for every region (the SDK's MetatraderAccountClient: `mt-provisioning-api-v1` on
 * `agiliumtrade.agiliumtrade.ai`). The override when given.
 */
export function metaApiProvisioningUrl(override?: string): string {
  return override ?? 'https://mt-provisioning-api-v1.agiliumtrade.agiliumtrade.ai';
}
