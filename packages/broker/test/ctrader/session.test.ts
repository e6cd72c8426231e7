import { describe, expect, it } from 'vitest';
import { BrokerError } from '../../src/errors.js';
import { drive, driveUntil, reach } from './drive.js';
import { FX_WEEK } from './fake-symbols.js';
import { FAKE_CREDENTIALS } from './fake-ctrader-server.js';
import { startRig, type FeedRig } from './setup.js';

const flush = () => new Promise((resolve) => setImmediate(resolve));

/** Moves time in 1 s steps without a round trip (for a server that answers nothing). */
async function advanceQuietly(rig: FeedRig, ms: number, until: () => boolean = () => false): Promise<void> {
  for (let left = ms; left > 0 && !until(); left -= 1000) {
    rig.clock.advance(1000);
    await flush();
  }
}

describe('cTrader session: authorization', () => {
  it('authorizes the application, then the account, then loads the catalog', async () => {
    const { feed, fake } = await startRig();
    await feed.connect();
    expect(fake.received.map((m) => m.payloadType)).toEqual([2100, 2102, 2114, 2116]);
    expect(fake.received[0]?.payload).toEqual({ clientId: FAKE_CREDENTIALS.clientId, clientSecret: FAKE_CREDENTIALS.clientSecret });
    expect(fake.received[1]?.payload).toEqual({ ctidTraderAccountId: FAKE_CREDENTIALS.accountId, accessToken: FAKE_CREDENTIALS.accessToken });
    const ids = fake.received.map((m) => m.clientMsgId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('builds the catalog from the symbol list and the full symbols', async () => {
    const { feed } = await startRig();
    await feed.connect();
    const catalog = await feed.symbols();
    expect(catalog.find((s) => s.name === 'USDJPY')).toEqual({
      symbolId: 4,
      name: 'USDJPY',
      digits: 3,
      pipPosition: 2,
      enabled: true,
      description: 'US Dollar vs Japanese Yen',
      schedule: { intervals: FX_WEEK, timeZone: 'UTC', holidays: [] },
    });
    expect(catalog.find((s) => s.name === 'USDTRY')?.enabled).toBe(false);
  });

  it('reports wrong application credentials as unauthorized and does not retry a first connection', async () => {
    const rig = await startRig();
    rig.fake.clientSecret = 'another-secret';
    const err = await rig.feed.connect().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BrokerError);
    expect(err).toMatchObject({ kind: 'unauthorized', venueCode: 'CH_CLIENT_AUTH_FAILURE' });
    expect(rig.states.map((s) => s.state)).toEqual(['connecting', 'disconnected']);
    expect(rig.states[1]?.reason).toContain('CH_CLIENT_AUTH_FAILURE');
    await drive(rig.clock, rig.feed, 60_000);
    expect(rig.fake.handshakes).toHaveLength(1);
  });

  it('reports an expired access token as unauthorized', async () => {
    const rig = await startRig();
    rig.fake.isTokenExpired = true;
    await expect(rig.feed.connect()).rejects.toMatchObject({ kind: 'unauthorized', venueCode: 'OA_AUTH_TOKEN_EXPIRED' });
  });
});

describe('cTrader session: heartbeats and dead links', () => {
  it('sends a heartbeat every 10 seconds', async () => {
    const rig = await startRig();
    await rig.feed.connect();
    const start = rig.clock.now();
    await drive(rig.clock, rig.feed, 35_000);
    expect(rig.fake.messages(51).map((m) => m.at - start)).toEqual([10_000, 20_000, 30_000]);
  });

  it('cuts a link silent for 30 seconds, then reconnects and resubscribes', async () => {
    const rig = await startRig();
    await rig.feed.connect();
    await rig.feed.subscribe(['EURUSD']);
    const silentFrom = rig.clock.now();
    rig.fake.stopAnswering();
    await advanceQuietly(rig, 60_000, () => rig.feed.state() !== 'connected');
    const drop = rig.states.at(-1);
    expect(drop).toMatchObject({ state: 'disconnected', reason: expect.stringMatching(/^heartbeat timeout: nothing from the server for 3\d s$/) });
    expect((drop?.at as number) - silentFrom).toBeGreaterThanOrEqual(30_000);
    expect((drop?.at as number) - silentFrom).toBeLessThanOrEqual(40_000);
    rig.fake.resumeAnswering();
    await driveUntil(rig.clock, rig.feed, () => rig.feed.state() === 'connected');
    rig.quotes.length = 0;
    await drive(rig.clock, rig.feed, 5000);
    expect(rig.fake.messages(2127).at(-1)).toMatchObject({ connection: 2, payload: { symbolId: [1] } });
    expect(rig.quotes.length).toBeGreaterThan(0);
  });
});

describe('cTrader session: reconnection', () => {
  it('authorizes again and resubscribes after a drop, reporting each transition', async () => {
    const rig = await startRig();
    await rig.feed.connect();
    await rig.feed.subscribe(['EURUSD', 'USDJPY']);
    rig.fake.dropConnections();
    await reach(rig.feed, 'disconnected');
    await driveUntil(rig.clock, rig.feed, () => rig.feed.state() === 'connected');
    expect(rig.states.map((s) => [s.state, s.reason])).toEqual([
      ['connecting', 'connect requested'],
      ['connected', 'session ready'],
      ['disconnected', expect.stringMatching(/^connection closed by the server \(code 1006/)],
      ['connecting', 'reconnecting'],
      ['connected', 'reconnected'],
    ]);
    const second = rig.fake.received.filter((m) => m.connection === 2 && m.payloadType !== 2104);
    expect(second.map((m) => m.payloadType)).toEqual([2100, 2102, 2114, 2116, 2127]);
    expect((second[4]?.payload.symbolId as number[]).sort()).toEqual([1, 4]);
    rig.quotes.length = 0;
    await drive(rig.clock, rig.feed, 5000);
    expect(new Set(rig.quotes.map((q) => q.symbol))).toEqual(new Set(['EURUSD', 'USDJPY']));
  });

  it('waits 1 s, then twice as long after each failed attempt, up to the cap', async () => {
    const rig = await startRig({ feed: { reconnectMaxMs: 8000 } });
    await rig.feed.connect();
    rig.fake.goDown();
    await reach(rig.feed, 'disconnected');
    const droppedAt = rig.clock.now();
    await drive(rig.clock, rig.feed, 40_000);
    const attempts = rig.fake.handshakes.slice(1).map((at) => at - droppedAt);
    expect(attempts).toEqual([1000, 3000, 7000, 15_000, 23_000, 31_000, 39_000]);
    expect(rig.states.at(-1)?.reason).toMatch(/Unexpected server response: 503/);
  });

  it('starts a new session when the server ends the account session', async () => {
    const rig = await startRig();
    await rig.feed.connect();
    rig.fake.pushEvent(2164, { ctidTraderAccountId: FAKE_CREDENTIALS.accountId });
    await reach(rig.feed, 'disconnected');
    expect(rig.states.at(-1)?.reason).toContain('ProtoOAAccountDisconnectEvent');
    await driveUntil(rig.clock, rig.feed, () => rig.feed.state() === 'connected');
    expect(rig.fake.messages(2102)).toHaveLength(2);
  });

  it('reports an invalidated token, and with no refresh token tries no session after the one it refuses', async () => {
    const rig = await startRig();
    await rig.feed.connect();
    rig.fake.accessToken = 'a-token-granted-later';
    rig.fake.pushEvent(2147, { ctidTraderAccountIds: [FAKE_CREDENTIALS.accountId], reason: 'Access Token is expired or recalled' });
    await reach(rig.feed, 'disconnected');
    expect(rig.states.at(-1)?.reason).toBe('access token invalidated: Access Token is expired or recalled (ProtoOAAccountsTokenInvalidatedEvent)');
    await drive(rig.clock, rig.feed, 10_000);
    expect(rig.states.at(-1)).toMatchObject({
      state: 'disconnected',
      reason: expect.stringMatching(/^cTrader CH_ACCESS_TOKEN_INVALID: .*; set CTRADER_REFRESH_TOKEN/),
    });
    await drive(rig.clock, rig.feed, 120_000, 5000);
    expect(rig.fake.handshakes).toHaveLength(2);
  });

  it('stops reconnecting once closed', async () => {
    const rig = await startRig();
    await rig.feed.connect();
    rig.fake.goDown();
    await reach(rig.feed, 'disconnected');
    await rig.feed.close();
    await advanceQuietly(rig, 60_000);
    expect(rig.fake.handshakes).toHaveLength(1);
    expect(rig.feed.state()).toBe('disconnected');
  });
});

describe('cTrader session: requests', () => {
  it('times out a request the server never answers', async () => {
    const rig = await startRig();
    await rig.feed.connect();
    rig.fake.ignore(2137);
    let outcome: unknown;
    const call = rig.feed.trendbars('EURUSD', 'M1', 10).catch((e: unknown) => (outcome = e));
    await flush();
    rig.clock.advance(9_999);
    await flush();
    expect(outcome).toBeUndefined();
    rig.clock.advance(1);
    await call;
    expect(outcome).toMatchObject({ kind: 'timeout', message: expect.stringContaining('GET_TRENDBARS_REQ (2137)') });
  });

  it('refuses calls while no session is up', async () => {
    const rig = await startRig();
    await expect(rig.feed.symbols()).rejects.toMatchObject({ kind: 'disconnected' });
    await expect(rig.feed.trendbars('EURUSD', 'M1', 10)).rejects.toMatchObject({ kind: 'disconnected' });
    await expect(rig.feed.subscribe(['EURUSD'])).rejects.toMatchObject({ kind: 'disconnected' });
  });
});
