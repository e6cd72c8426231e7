/**
 * cTrader Open API proxies (help.ctrader.com/open-api/proxies-endpoints): one endpoint per
 * environment, `live.ctraderapi.com` and `demo.ctraderapi.com`; "operating with JSON always
 * requires connecting to port 5036 (and only this port)" (5035 is Protobuf), over TCP or
 * WebSocket alike. Demo and live are separate: a demo account cannot be used on the live host.
 * The proxies sit in several regions behind these two names ("by leveraging the power of the AWS
 * Global Accelerator … your client will be redirected to the closest proxy"), so the current
 * page lists no regional host; the regional names of its older version (demo-eu, live-use, …)
 * and any other proxy go through the `host` override of `ctraderUrl`.
 */
export const CTRADER_HOSTS = {
  demo: 'demo.ctraderapi.com',
  live: 'live.ctraderapi.com',
} as const;

export const CTRADER_JSON_PORT = 5036;

export type CTraderEnvironment = keyof typeof CTRADER_HOSTS;

/**
 * The WebSocket URL the feed connects to: `wss://<environment's host>:5036`, or the overrides.
 * `host` is a host name (TLS, as the proxies require), or a `ws://` / `wss://` origin without a
 * port for a local stand-in.
 */
export function ctraderUrl(environment: CTraderEnvironment, overrides: { host?: string; port?: number } = {}): string {
  const host = overrides.host ?? CTRADER_HOSTS[environment];
  const port = overrides.port ?? CTRADER_JSON_PORT;
  const origin = /^wss?:\/\//.test(host) ? host.replace(/\/+$/, '') : `wss://${host}`;
  return `${origin}:${port}`;
}
