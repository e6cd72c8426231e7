import { FAKE_CREDENTIALS } from '../test/ctrader/fake-ctrader-server.js';

/** The env of BROKER=oanda against a fake v20 server at `baseUrl` (REST and stream on it). */
export function fakeOandaSettings(fake: { token: string; account: { id: string }; baseUrl: string }): Record<string, string> {
  return { OANDA_API_TOKEN: fake.token, OANDA_ACCOUNT_ID: fake.account.id, OANDA_BASE_URL: fake.baseUrl, OANDA_STREAM_BASE_URL: fake.baseUrl };
}

/** The env of BROKER=metaapi against a fake MetaApi server (client and market data APIs on it), its health probe off. */
export function fakeMetaApiSettings(fake: { token: string; accountId: string; baseUrl: string }): Record<string, string> {
  return {
    METAAPI_TOKEN: fake.token,
    METAAPI_ACCOUNT_ID: fake.accountId,
    METAAPI_BASE_URL: fake.baseUrl,
    METAAPI_MARKET_DATA_BASE_URL: fake.baseUrl,
    METAAPI_HEALTH_INTERVAL_MS: '0',
  };
}

/** The env of BROKER=ctrader against a fake cTrader server on `port` of this host, with its credentials. */
export function fakeCTraderSettings(port: number): Record<string, string> {
  return {
    CTRADER_CLIENT_ID: FAKE_CREDENTIALS.clientId,
    CTRADER_CLIENT_SECRET: FAKE_CREDENTIALS.clientSecret,
    CTRADER_ACCESS_TOKEN: FAKE_CREDENTIALS.accessToken,
    CTRADER_ACCOUNT_ID: String(FAKE_CREDENTIALS.accountId),
    CTRADER_HOST: 'ws://127.0.0.1',
    CTRADER_PORT: String(port),
  };
}

/**
 * Each real venue's settings, pointing at a port nothing listens on (1): what a service test
 * builds an adapter from, or refuses without one of them, with no venue to reach.
 */
export const UNREACHABLE_VENUE_SETTINGS = {
  oanda: fakeOandaSettings({ token: 'oanda-token', account: { id: '101-004-1435156-001' }, baseUrl: 'http://127.0.0.1:1' }),
  metaapi: fakeMetaApiSettings({ token: 'metaapi-token', accountId: 'account-1', baseUrl: 'http://127.0.0.1:1' }),
  ctrader: fakeCTraderSettings(1),
};
