import { ManualClock } from '@fxdesk/primitives';
import { describe, expect, it } from 'vitest';
import { SimulatedMarket } from '../src/simulated/market.js';
import { openVenue, type VenueEnvironment } from '../src/venue-factory.js';
import { VenueSettingsSchema, type RealVenue } from '../src/venue-settings.js';
import { fakeCTraderSettings, fakeMetaApiSettings, fakeOandaSettings } from '../testing/venue-settings.js';
import { WEDNESDAY_NOON } from './fixtures.js';
import { FakeMetaApiServer } from './metaapi/fake-metaapi-server.js';

const clock = new ManualClock(WEDNESDAY_NOON);
const oanda = fakeOandaSettings({ token: 'oanda-token', account: { id: '101-004-1435156-001' }, baseUrl: 'http://127.0.0.1:1' });
const ctrader = fakeCTraderSettings(1);

async function environmentOf(venue: RealVenue, env: Record<string, string>): Promise<VenueEnvironment> {
  const connection = openVenue(venue, VenueSettingsSchema.parse(env), { clock });
  try {
    return await connection.environment();
  } finally {
    await connection.close();
  }
}

describe('VenueConnection.environment', () => {
  it('takes OANDA practice from OANDA_ENVIRONMENT, its default', async () => {
    expect(await environmentOf('oanda', oanda)).toEqual({ name: 'practice', isLive: false, source: 'OANDA_ENVIRONMENT=practice' });
  });

  it('takes OANDA live from OANDA_ENVIRONMENT=live, whatever the host', async () => {
    expect(await environmentOf('oanda', { ...oanda, OANDA_ENVIRONMENT: 'live' })).toMatchObject({ name: 'live', isLive: true });
  });

  it('takes OANDA live from a base URL override on fxTrade’s live host, whatever OANDA_ENVIRONMENT says', async () => {
    for (const name of ['OANDA_BASE_URL', 'OANDA_STREAM_BASE_URL']) {
      const host = name === 'OANDA_BASE_URL' ? 'https://api-fxtrade.oanda.com' : 'https://stream-fxtrade.oanda.com';
      expect(await environmentOf('oanda', { ...oanda, [name]: host })).toEqual({ name: 'live', isLive: true, source: `${name} is fxTrade's live host` });
    }
  });

  it('takes cTrader demo from CTRADER_ENVIRONMENT, and live from the setting or a live proxy as CTRADER_HOST', async () => {
    expect(await environmentOf('ctrader', ctrader)).toEqual({ name: 'demo', isLive: false, source: 'CTRADER_ENVIRONMENT=demo' });
    expect(await environmentOf('ctrader', { ...ctrader, CTRADER_ENVIRONMENT: 'live' })).toMatchObject({ name: 'live', isLive: true });
    for (const host of ['live.ctraderapi.com', 'wss://live-eu.ctraderapi.com']) {
      expect(await environmentOf('ctrader', { ...ctrader, CTRADER_HOST: host })).toMatchObject({ name: 'live', isLive: true });
    }
  });

  it('takes MetaApi’s from the account’s type: demo and contest are not live, real is, and an unknown one counts as live', async () => {
    const market = new SimulatedMarket({ seed: 'venue-environment', tickIntervalMs: 1000, marketHours: true, clock });
    const cases: [string, Pick<VenueEnvironment, 'name' | 'isLive'>][] = [
      ['ACCOUNT_TRADE_MODE_DEMO', { name: 'demo', isLive: false }],
      ['ACCOUNT_TRADE_MODE_CONTEST', { name: 'contest', isLive: false }],
      ['ACCOUNT_TRADE_MODE_REAL', { name: 'live', isLive: true }],
      ['ACCOUNT_TRADE_MODE_NEW', { name: 'unknown', isLive: true }],
    ];
    for (const [tradeMode, expected] of cases) {
      const fake = await FakeMetaApiServer.start({ market, now: () => clock.now(), tradeMode });
      try {
        expect(await environmentOf('metaapi', fakeMetaApiSettings(fake)), tradeMode).toMatchObject(expected);
      } finally {
        await fake.close();
      }
    }
  });
});
