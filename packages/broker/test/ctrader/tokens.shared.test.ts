import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { withFileLock } from '../../src/ctrader/token-file-lock.js';
import { fileTokenStore, tokenFingerprint, type CTraderTokenStore } from '../../src/ctrader/token-store.js';
import { FAKE_CREDENTIALS, FAKE_REFRESH_TOKEN, type FakeCTraderServer } from './fake-ctrader-server.js';
import { anotherFeed, startRig } from './setup.js';
import { tokenFile } from './token-files.js';

afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
});

/** Each connection's last account authorization: the access token it holds. */
const heldTokens = (fake: FakeCTraderServer) => new Map(fake.messages(2102).map((m) => [m.connection, m.payload.accessToken]));

/** A pair another process renewed from the configured one: the fake's new tokens, and the file it saved. */
function renewElsewhere(fake: FakeCTraderServer, file: string, nowMs: number): void {
  fake.accessToken = 'renewed-elsewhere-access';
  fake.refreshToken = 'renewed-elsewhere-refresh';
  fake.isTokenExpired = false;
  fileTokenStore(file).save({
    accessToken: fake.accessToken,
    refreshToken: fake.refreshToken,
    expiresAtMs: nowMs + 2_628_000_000,
    refreshedAtMs: nowMs,
    origin: tokenFingerprint({ accessToken: FAKE_CREDENTIALS.accessToken, refreshToken: FAKE_REFRESH_TOKEN }),
  });
}

/** `<file>.lock` as another process left it `ageMs` ago: a record, or nothing written. */
function placeLock(file: string, record: { pid: number; host: string } | undefined, ageMs = 0): void {
  const lockFile = `${file}.lock`;
  const at = new Date(Date.now() - ageMs);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(lockFile, record ? JSON.stringify({ ...record, atMs: at.getTime(), id: 'held-elsewhere' }) : '');
  fs.utimesSync(lockFile, at, at);
}

describe('cTrader access tokens shared by processes: one renewal at a time', () => {
  it('spends the refresh token once when two holders of one file renew at the same moment, and both take the new pair', async () => {
    const file = tokenFile();
    const rig = await startRig({ feed: { refreshToken: FAKE_REFRESH_TOKEN, tokenStore: fileTokenStore(file) } });
    const other = anotherFeed(rig, { refreshToken: FAKE_REFRESH_TOKEN, tokenStore: fileTokenStore(file) });
    rig.fake.isTokenExpired = true;
    await Promise.all([rig.feed.connect(), other.connect()]);
    expect(rig.fake.messages(2173)).toHaveLength(1);
    expect([...heldTokens(rig.fake).values()]).toEqual(['fake-access-token-r1', 'fake-access-token-r1']);
    expect([rig.feed.tokenStatus().ok, other.tokenStatus().ok]).toEqual([true, true]);
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toMatchObject({ accessToken: 'fake-access-token-r1', refreshToken: 'fake-refresh-token-r1' });
    expect(fs.readdirSync(path.dirname(file))).toEqual([path.basename(file)]);
  });

  it('waits for a lock another process holds, then takes the pair it saved instead of renewing', async () => {
    const file = tokenFile();
    placeLock(file, { pid: process.pid, host: 'another-container' });
    const rig = await startRig({ feed: { refreshToken: FAKE_REFRESH_TOKEN, tokenStore: fileTokenStore(file) } });
    rig.fake.isTokenExpired = true;
    const connected = rig.feed.connect();
    await vi.waitFor(() => expect(rig.fake.errorsSent).toEqual(['OA_AUTH_TOKEN_EXPIRED']));
    renewElsewhere(rig.fake, file, rig.clock.now());
    fs.rmSync(`${file}.lock`);
    await connected;
    expect(rig.fake.messages(2173)).toEqual([]);
    expect(rig.fake.messages(2102).at(-1)?.payload.accessToken).toBe('renewed-elsewhere-access');
  });

  it('touches its lock while it renews, so that a long renewal is not taken for a dead one', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const file = tokenFile();
    const lockFile = `${file}.lock`;
    const minuteAgo = new Date(Date.now() - 60_000);
    await withFileLock(file, async () => {
      fs.utimesSync(lockFile, minuteAgo, minuteAgo);
      vi.advanceTimersByTime(5_000);
      expect(fs.statSync(lockFile).mtimeMs).toBeGreaterThan(minuteAgo.getTime());
    });
    expect(fs.existsSync(lockFile)).toBe(false);
  });

  it('breaks a lock whose holder on this host is gone', async () => {
    const file = tokenFile();
    // Past any pid_max (at most 2^22 on Linux): no process has it.
    placeLock(file, { pid: 2_147_483_646, host: os.hostname() });
    const rig = await startRig({ feed: { refreshToken: FAKE_REFRESH_TOKEN, tokenStore: fileTokenStore(file) } });
    rig.fake.isTokenExpired = true;
    await rig.feed.connect();
    expect(rig.fake.refreshes).toBe(1);
    expect(fs.readdirSync(path.dirname(file))).toEqual([path.basename(file)]);
  });

  it('breaks a lock its holder has not touched for longer than the stale age, whichever host holds it', async () => {
    const file = tokenFile();
    placeLock(file, { pid: process.pid, host: 'another-container' }, 10 * 60_000);
    const rig = await startRig({ feed: { refreshToken: FAKE_REFRESH_TOKEN, tokenStore: fileTokenStore(file) } });
    rig.fake.isTokenExpired = true;
    await rig.feed.connect();
    expect(rig.fake.refreshes).toBe(1);
  });

  it('breaks a lock left unwritten once it is older than the stale age', async () => {
    const file = tokenFile();
    placeLock(file, undefined, 10 * 60_000);
    const rig = await startRig({ feed: { refreshToken: FAKE_REFRESH_TOKEN, tokenStore: fileTokenStore(file) } });
    rig.fake.isTokenExpired = true;
    await rig.feed.connect();
    expect(rig.fake.refreshes).toBe(1);
  });
});

describe('cTrader access tokens shared by processes: a folder that holds no lock', () => {
  it('renews without the lock where none can be made (a read-only folder), as a lone process would', async () => {
    const file = tokenFile();
    const openSync = fs.openSync;
    vi.spyOn(fs, 'openSync').mockImplementation((target, ...rest) => {
      if (String(target).endsWith('.lock')) throw Object.assign(new Error('EROFS: read-only file system'), { code: 'EROFS' });
      return openSync(target, ...rest);
    });
    const rig = await startRig({ feed: { refreshToken: FAKE_REFRESH_TOKEN, tokenStore: fileTokenStore(file) } });
    rig.fake.isTokenExpired = true;
    await rig.feed.connect();
    expect(rig.fake.refreshes).toBe(1);
    expect(rig.feed.tokenStatus().ok).toBe(true);
  });
});

describe('cTrader access tokens shared by processes: a refused refresh', () => {
  it('reads the file again when the venue refuses the refresh token, and takes the pair another process renewed with it', async () => {
    const file = tokenFile();
    const inner = fileTokenStore(file);
    const rig = await startRig();
    // Another process renews without the lock (its lock was broken as stale) after this one read the file.
    const racing: CTraderTokenStore = {
      ...inner,
      lockForRenewal: (renew) =>
        inner.lockForRenewal!(() => {
          const renewing = renew();
          renewElsewhere(rig.fake, file, rig.clock.now());
          return renewing;
        }),
    };
    const feed = anotherFeed(rig, { refreshToken: FAKE_REFRESH_TOKEN, tokenStore: racing });
    rig.fake.isTokenExpired = true;
    await feed.connect();
    expect(rig.fake.errorsSent).toEqual(['OA_AUTH_TOKEN_EXPIRED', 'CH_ACCESS_TOKEN_INVALID']);
    expect(rig.fake.messages(2102).at(-1)?.payload.accessToken).toBe('renewed-elsewhere-access');
    expect(feed.tokenStatus().ok).toBe(true);
  });

  it('reports the refusal when the file holds no other pair', async () => {
    const file = tokenFile();
    const rig = await startRig({ feed: { refreshToken: FAKE_REFRESH_TOKEN, tokenStore: fileTokenStore(file) } });
    rig.fake.refreshToken = 'spent-elsewhere';
    rig.fake.isTokenExpired = true;
    await expect(rig.feed.connect()).rejects.toMatchObject({ kind: 'unauthorized', venueCode: 'CH_ACCESS_TOKEN_INVALID' });
    expect(rig.feed.tokenStatus().detail).toMatch(/^the cTrader refresh token was refused/);
    expect(fs.existsSync(`${file}.lock`)).toBe(false);
  });
});
