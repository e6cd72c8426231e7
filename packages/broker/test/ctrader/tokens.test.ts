import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fileTokenStore, type CTraderTokenStore } from '../../src/ctrader/token-store.js';
import { drive, driveUntil, reach } from './drive.js';
import { FAKE_REFRESH_TOKEN } from './fake-ctrader-server.js';
import { anotherFeed, startRig, type FeedRig } from './setup.js';
import { tokenFile } from './token-files.js';

/** A rig whose feed holds the configured refresh token and keeps refreshed pairs in `file`. */
function refreshingRig(file = tokenFile(), fake = {}): Promise<FeedRig & { file: string }> {
  return startRig({ fake, feed: { refreshToken: FAKE_REFRESH_TOKEN, tokenStore: fileTokenStore(file) } }).then((rig) => ({ ...rig, file }));
}

const sessionOf = (rig: FeedRig, connection: number) =>
  rig.fake.received.filter((m) => m.connection === connection && m.payloadType !== 2104 && m.payloadType !== 51).map((m) => m.payloadType);

describe('cTrader access tokens: refresh', () => {
  it('renews a token that expires during a session and resumes quotes with the new one', async () => {
    const rig = await refreshingRig();
    await rig.feed.connect();
    await rig.feed.subscribe(['EURUSD']);
    rig.fake.expireAccessToken({ atMs: rig.clock.now() + 5000 });
    await drive(rig.clock, rig.feed, 5000);
    await driveUntil(rig.clock, rig.feed, () => rig.feed.state() === 'connected');
    expect(rig.states.map((s) => s.reason)).toContain('access token invalidated: Access Token is expired or recalled (ProtoOAAccountsTokenInvalidatedEvent)');
    // Renewed right after the application's authorization, before the account's: no rejected attempt.
    expect(sessionOf(rig, 2)).toEqual([2100, 2173, 2102, 2114, 2116, 2127]);
    expect(rig.fake.messages(2173)[0]?.payload).toEqual({ refreshToken: FAKE_REFRESH_TOKEN });
    expect(rig.fake.messages(2102).at(-1)?.payload.accessToken).toBe('fake-access-token-r1');
    rig.quotes.length = 0;
    await drive(rig.clock, rig.feed, 3000);
    expect(rig.quotes.length).toBeGreaterThan(0);
    expect(rig.feed.tokenStatus()).toEqual({ ok: true, detail: expect.stringMatching(/^access token refreshed 2026-.*, expires 2026-/) });
  });

  it('renews a token that expires after a number of requests', async () => {
    const rig = await refreshingRig();
    await rig.feed.connect();
    rig.fake.expireAccessToken({ requests: 3 });
    for (let i = 0; i < 3; i++) await rig.feed.trendbars('EURUSD', 'M5', 2);
    // The venue ends the account session (ProtoOAAccountsTokenInvalidatedEvent) before answering.
    await expect(rig.feed.trendbars('EURUSD', 'M5', 2)).rejects.toMatchObject({ kind: 'disconnected' });
    await driveUntil(rig.clock, rig.feed, () => rig.feed.state() === 'connected' && rig.fake.refreshes === 1);
    await expect(rig.feed.trendbars('EURUSD', 'M5', 2)).resolves.toHaveLength(2);
  });

  it('renews a token refused at account authorization, then authorizes with the new one', async () => {
    const rig = await refreshingRig();
    rig.fake.isTokenExpired = true;
    await rig.feed.connect();
    expect(sessionOf(rig, 1)).toEqual([2100, 2102, 2173, 2102, 2114, 2116]);
    expect(rig.fake.errorsSent).toEqual(['OA_AUTH_TOKEN_EXPIRED']);
    expect(rig.states.map((s) => s.state)).toEqual(['connecting', 'connected']);
  });

  it('saves the new pair atomically in a file only its owner reads', async () => {
    const rig = await refreshingRig();
    rig.fake.isTokenExpired = true;
    await rig.feed.connect();
    const saved = JSON.parse(fs.readFileSync(rig.file, 'utf8')) as Record<string, unknown>;
    expect(saved).toMatchObject({
      accessToken: 'fake-access-token-r1',
      refreshToken: 'fake-refresh-token-r1',
      refreshedAtMs: rig.clock.now(),
      expiresAtMs: rig.clock.now() + 2_628_000_000,
    });
    expect(fs.statSync(rig.file).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(path.dirname(rig.file))).toEqual([path.basename(rig.file)]);
  });

  it('starts a restarted feed from the saved pair while the configuration names the pair it came from', async () => {
    const first = await refreshingRig();
    first.fake.isTokenExpired = true;
    await first.feed.connect();
    await first.feed.close();
    // The same configuration (the spent pair) on a new process: the saved pair wins.
    const restarted = anotherFeed(first, { refreshToken: FAKE_REFRESH_TOKEN, tokenStore: fileTokenStore(first.file) });
    await restarted.connect();
    expect(first.fake.messages(2102).at(-1)?.payload.accessToken).toBe('fake-access-token-r1');
    expect(first.fake.refreshes).toBe(1);
    expect(restarted.tokenStatus().ok).toBe(true);
  });

  it('starts from the configured pair when it is not the one the saved pair came from', async () => {
    const first = await refreshingRig();
    first.fake.isTokenExpired = true;
    await first.feed.connect();
    await first.feed.close();
    // The owner granted access again: a new pair in the configuration.
    first.fake.accessToken = 'granted-again-access';
    first.fake.refreshToken = 'granted-again-refresh';
    const regranted = anotherFeed(first, {
      accessToken: 'granted-again-access',
      refreshToken: 'granted-again-refresh',
      tokenStore: fileTokenStore(first.file),
    });
    await regranted.connect();
    expect(first.fake.messages(2102).at(-1)?.payload.accessToken).toBe('granted-again-access');
    expect(first.fake.refreshes).toBe(1);
  });

  it('takes the pair another process of the account saved instead of spending a refresh token', async () => {
    const file = tokenFile();
    const rig = await refreshingRig(file);
    const other = anotherFeed(rig, { refreshToken: FAKE_REFRESH_TOKEN, tokenStore: fileTokenStore(file) });
    rig.fake.isTokenExpired = true;
    await rig.feed.connect();
    // `other` was built with the configured pair, which the refresh above spent.
    await other.connect();
    expect(rig.fake.refreshes).toBe(1);
    expect(rig.fake.messages(2102).at(-1)).toMatchObject({ connection: 2, payload: { accessToken: 'fake-access-token-r1' } });
  });
});

describe('cTrader access tokens: renewing ahead of the expiry', () => {
  it('renews before authorizing a new session when the renewed pair expires within a day', async () => {
    const rig = await refreshingRig(tokenFile(), { accessTokenLifetimeSeconds: 20 * 3600 });
    rig.fake.isTokenExpired = true;
    await rig.feed.connect();
    rig.fake.dropConnections();
    await reach(rig.feed, 'disconnected');
    await driveUntil(rig.clock, rig.feed, () => rig.feed.state() === 'connected');
    expect(sessionOf(rig, 2)).toEqual([2100, 2173, 2102, 2114, 2116]);
    expect(rig.fake.refreshes).toBe(2);
  });

  it('keeps a renewed pair that has more than a day left across a reconnection', async () => {
    const rig = await refreshingRig();
    rig.fake.isTokenExpired = true;
    await rig.feed.connect();
    rig.fake.dropConnections();
    await reach(rig.feed, 'disconnected');
    await driveUntil(rig.clock, rig.feed, () => rig.feed.state() === 'connected');
    expect(sessionOf(rig, 2)).toEqual([2100, 2102, 2114, 2116]);
    expect(rig.fake.refreshes).toBe(1);
  });

  it('refuses to start on a token file it cannot read, naming it', async () => {
    const file = tokenFile();
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, '{"accessToken": 1}');
    const rig = await startRig();
    expect(() => anotherFeed(rig, { refreshToken: FAKE_REFRESH_TOKEN, tokenStore: fileTokenStore(file) })).toThrow(
      `${file} is not a cTrader token record: delete it to start from the configured tokens`,
    );
  });
});

describe('cTrader access tokens: a refresh that fails', () => {
  it('holds every later session back once the refresh token is refused, and says why', async () => {
    const rig = await refreshingRig();
    await rig.feed.connect();
    rig.fake.refreshToken = 'spent-elsewhere';
    rig.fake.expireAccessToken({ atMs: rig.clock.now() + 1000 });
    await drive(rig.clock, rig.feed, 1000);
    await driveUntil(rig.clock, rig.feed, () => rig.fake.messages(2173).length === 1);
    await reach(rig.feed, 'disconnected');
    const status = rig.feed.tokenStatus();
    expect(status.ok).toBe(false);
    expect(status.detail).toMatch(
      /^the cTrader refresh token was refused \(cTrader CH_ACCESS_TOKEN_INVALID: Refresh token is invalid\); grant the application access again/,
    );
    const handshakes = rig.fake.handshakes.length;
    const transitions = rig.states.length;
    await drive(rig.clock, rig.feed, 300_000, 5000);
    await expect(rig.feed.connect()).rejects.toMatchObject({ kind: 'unauthorized', venueCode: 'CH_ACCESS_TOKEN_INVALID' });
    expect(rig.fake.handshakes).toHaveLength(handshakes);
    expect(rig.states).toHaveLength(transitions);
  });

  it('holds sessions back when the token is refused and no refresh token is set', async () => {
    const rig = await startRig();
    rig.fake.isTokenExpired = true;
    await expect(rig.feed.connect()).rejects.toMatchObject({ kind: 'unauthorized', venueCode: 'OA_AUTH_TOKEN_EXPIRED' });
    await expect(rig.feed.connect()).rejects.toMatchObject({ kind: 'unauthorized' });
    expect(rig.fake.handshakes).toHaveLength(1);
    expect(rig.fake.messages(2173)).toEqual([]);
    expect(rig.feed.tokenStatus()).toEqual({
      ok: false,
      detail: expect.stringContaining('set CTRADER_REFRESH_TOKEN, or a new CTRADER_ACCESS_TOKEN, and restart'),
    });
  });

  it('tries the refresh again at the next session after a refresh that timed out', async () => {
    const rig = await refreshingRig();
    await rig.feed.connect();
    rig.fake.ignore(2173);
    rig.fake.expireAccessToken({ atMs: rig.clock.now() + 1000 });
    // The attempt waits on the clock for an answer that never comes: step it without a round trip.
    for (let waited = 0; rig.feed.tokenStatus().ok && waited < 60_000; waited += 1000) {
      rig.clock.advance(1000);
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(rig.fake.messages(2173)).toHaveLength(1);
    expect(rig.feed.tokenStatus().detail).toMatch(/^access token refresh failed, retried at the next session: cTrader did not answer REFRESH_TOKEN_REQ/);
    rig.fake.answerAgain(2173);
    await driveUntil(rig.clock, rig.feed, () => rig.feed.state() === 'connected');
    expect(rig.feed.tokenStatus().ok).toBe(true);
  });

  it('says so when the new pair cannot be saved', async () => {
    const failing: CTraderTokenStore = {
      location: '/nowhere/ctrader-tokens.json',
      load: () => undefined,
      save: () => {
        throw new Error('EROFS: read-only file system');
      },
    };
    const rig = await startRig({ feed: { refreshToken: FAKE_REFRESH_TOKEN, tokenStore: failing } });
    rig.fake.isTokenExpired = true;
    await rig.feed.connect();
    expect(rig.feed.state()).toBe('connected');
    expect(rig.feed.tokenStatus()).toEqual({
      ok: false,
      detail:
        'the refreshed tokens could not be saved to /nowhere/ctrader-tokens.json: EROFS: read-only file system; a restart would start from a spent refresh token',
    });
  });
});
