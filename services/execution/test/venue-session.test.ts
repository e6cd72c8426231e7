import { openVenue, VenueSettingsSchema } from '@fxdesk/broker';
import { fakeCTraderSettings, fakeOandaSettings, FakeCTraderServer, FakeV20Server } from '@fxdesk/broker/testing';
import { ManualClock } from '@fxdesk/primitives';
import { describe, expect, it } from 'vitest';

/** Wednesday 2026-01-07 12:00 UTC: the fake venues' FX week is open. */
const START = Date.UTC(2026, 0, 7, 12);
/** ProtoOAAccountAuthReq: the account's authorisation on a cTrader session. */
const ACCOUNT_AUTH_REQ = 2102;

describe('openVenue, outside a service', () => {
  it('gives the cTrader terminal and account reader of one account one authorised session', async () => {
    const clock = new ManualClock(START);
    const fake = await FakeCTraderServer.start({ clock });
    const venue = openVenue('ctrader', VenueSettingsSchema.parse(fakeCTraderSettings(fake.port)), { clock });
    try {
      await venue.terminal().connect();
      expect((await venue.accountReader().summary()).currency).toBeTruthy();
      expect(venue.feed()).toBe(venue.feed());
      expect(fake.handshakes).toHaveLength(1);
      expect(fake.messages(ACCOUNT_AUTH_REQ)).toHaveLength(1);
    } finally {
      await venue.close();
      await fake.close();
    }
  });

  it('builds an OANDA terminal that connects to the fake v20 server from the settings alone', async () => {
    const clock = new ManualClock(START);
    const fake = await FakeV20Server.start({ now: () => new Date(clock.now()) });
    const settings = VenueSettingsSchema.parse({ ...fakeOandaSettings(fake), OANDA_REQUESTS_PER_SECOND: '1000000' });
    const venue = openVenue('oanda', settings, { clock });
    try {
      await venue.terminal().connect();
      expect(venue.terminal().isConnected()).toBe(true);
      expect((await venue.accountReader().summary()).id).toBe(fake.account.id);
    } finally {
      await venue.close();
      await fake.close();
    }
  });
});
