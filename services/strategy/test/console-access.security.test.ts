import path from 'node:path';
import { ConfigError } from '@fxdesk/core';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { MAX_SESSIONS } from '../src/console-sessions.js';
import { harness, tempDir, testConfig, type Harness, type HarnessOptions } from './helpers.js';

const temp = tempDir();
afterAll(() => temp.remove());

const PASSWORD = 'correct horse battery staple';

/** The routes the console adds that read data or change state: each needs the session when a login is required. */
const CONSOLE_READS = ['/console/services', '/console/account', '/console/orders', '/console/deliveries', '/events'];
const CONSOLE_WRITES = ['/console/start', '/console/stop', '/console/restart'];

const open: Harness[] = [];
afterEach(async () => {
  for (const h of open.splice(0)) await h.close();
});

async function desk(options?: HarnessOptions): Promise<Harness> {
  const h = await harness(options);
  open.push(h);
  return h;
}

async function login(h: Harness, password = PASSWORD) {
  const res = await h.app.inject({ method: 'POST', url: '/console/login', payload: { password } });
  const cookie = res.cookies.find((c) => c.name === 'fxdesk_console');
  return { res, cookie: cookie && `${cookie.name}=${cookie.value}`, set: cookie, session: res.json<{ csrf_token: string | null }>() };
}

describe('the console without CONSOLE_PASSWORD (development)', () => {
  it('answers a loopback client under a loopback host name, open, with no CSRF token', async () => {
    const h = await desk();
    for (const host of ['localhost:8000', '127.0.0.1:8000', '[::1]:8000']) {
      const res = await h.app.inject({ url: '/console/session', headers: { host } });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ login_required: false, authenticated: true, csrf_token: null, expires_at: null });
    }
    expect((await h.app.inject({ method: 'POST', url: '/console/start', payload: { dry_run: true } })).statusCode).toBe(200);
  });

  it('refuses any other address with 403, on every console route', async () => {
    const h = await desk();
    for (const url of ['/console/session', ...CONSOLE_READS]) {
      const res = await h.app.inject({ url, remoteAddress: '192.168.1.20' });
      expect(res.statusCode, url).toBe(403);
      expect(res.json()).toMatchObject({ code: 'FORBIDDEN', message: expect.stringContaining('CONSOLE_PASSWORD') });
    }
    for (const url of [...CONSOLE_WRITES, '/console/login', '/console/logout']) {
      expect((await h.app.inject({ method: 'POST', url, remoteAddress: '10.0.0.7' })).statusCode, url).toBe(403);
    }
  });

  it('refuses a state-changing request a page of another origin sends, and takes one of its own origin', async () => {
    const h = await desk();
    const foreign = await h.app.inject({ method: 'POST', url: '/console/start', headers: { host: 'localhost:8000', origin: 'https://attacker.example' } });
    expect(foreign.statusCode).toBe(403);
    expect(h.engine.isRunning).toBe(false);
    const own = await h.app.inject({ method: 'POST', url: '/console/start', headers: { host: 'localhost:8000', origin: 'http://localhost:8000' } });
    expect(own.statusCode).toBe(200);
  });

  it('refuses a loopback request under another host name: a page that rebinds its DNS name to 127.0.0.1, or a proxy in front', async () => {
    const h = await desk();
    const res = await h.app.inject({ url: '/console/account', headers: { host: 'attacker.example:8000' } });
    expect(res.statusCode).toBe(403);
  });
});

describe('the console with CONSOLE_PASSWORD', () => {
  it('answers 401 to every console read and write without a session', async () => {
    const h = await desk({ env: { CONSOLE_PASSWORD: PASSWORD } });
    for (const url of CONSOLE_READS) {
      const res = await h.app.inject({ url });
      expect(res.statusCode, url).toBe(401);
      expect(res.json()).toMatchObject({ code: 'UNAUTHORIZED' });
    }
    for (const url of CONSOLE_WRITES) expect(await h.app.inject({ method: 'POST', url }).then((r) => r.statusCode), url).toBe(401);
    expect((await h.app.inject({ url: '/console/session' })).json()).toEqual({
      login_required: true,
      authenticated: false,
      csrf_token: null,
      expires_at: null,
    });
  });

  it('sets a signed HttpOnly SameSite=Strict session cookie at login and answers the session with its CSRF token', async () => {
    const h = await desk({ env: { CONSOLE_PASSWORD: PASSWORD, CONSOLE_SESSION_HOURS: '8' } });
    const { res, set, cookie, session } = await login(h);
    expect(res.statusCode).toBe(200);
    expect(set).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/', maxAge: 8 * 3600 });
    expect(set?.secure).toBeFalsy();
    // Signed: the session id, a dot, its HMAC.
    expect(set?.value).toMatch(/^[\w-]{43}\.[\w+/-]+={0,2}$/);
    expect(session).toEqual({
      login_required: true,
      authenticated: true,
      csrf_token: expect.stringMatching(/^[\w-]{43}$/),
      expires_at: '2026-01-05T20:00:00.000Z',
    });
    expect((await h.app.inject({ url: '/console/session', headers: { cookie } })).json()).toEqual(session);
    expect((await h.app.inject({ url: '/console/services', headers: { cookie } })).statusCode).toBe(200);
    // No other client address restriction once a login is required.
    expect((await h.app.inject({ url: '/console/services', headers: { cookie }, remoteAddress: '203.0.113.9' })).statusCode).toBe(200);
  });

  it('marks the cookie Secure in production', async () => {
    const h = await desk({ env: { CONSOLE_PASSWORD: PASSWORD, NODE_ENV: 'production' } });
    expect((await login(h)).set?.secure).toBe(true);
  });

  it('refuses a wrong password with 401 and no cookie', async () => {
    const h = await desk({ env: { CONSOLE_PASSWORD: PASSWORD } });
    const { res, set } = await login(h, 'wrong password, twelve+');
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ code: 'UNAUTHORIZED', message: 'wrong password' });
    expect(set).toBeUndefined();
  });

  it('counts login attempts per client: past CONSOLE_LOGIN_PER_MINUTE, 429 with Retry-After, even for the right password', async () => {
    const h = await desk({ env: { CONSOLE_PASSWORD: PASSWORD, CONSOLE_LOGIN_PER_MINUTE: '3' } });
    for (let i = 0; i < 3; i++) expect((await login(h, `guess number ${i} of many`)).res.statusCode).toBe(401);
    const limited = (await login(h)).res;
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toMatchObject({ code: 'RATE_LIMITED' });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    // Another client is counted apart.
    const other = await h.app.inject({ method: 'POST', url: '/console/login', payload: { password: PASSWORD }, remoteAddress: '127.0.0.2' });
    expect(other.statusCode).toBe(200);
  });

  it('refuses a state-changing console request without the session’s X-CSRF-Token with 403, and takes it with the token', async () => {
    const h = await desk({ env: { CONSOLE_PASSWORD: PASSWORD } });
    const { cookie, session } = await login(h);
    for (const token of [undefined, '', 'not-the-token', `${session.csrf_token}x`]) {
      const headers: Record<string, string> = { cookie: cookie! };
      if (token !== undefined) headers['x-csrf-token'] = token;
      const res = await h.app.inject({ method: 'POST', url: '/console/start', headers, payload: { dry_run: true } });
      expect(res.statusCode, String(token)).toBe(403);
      expect(res.json()).toMatchObject({ code: 'FORBIDDEN', message: expect.stringContaining('X-CSRF-Token') });
    }
    expect(h.engine.isRunning).toBe(false);
    const headers = { cookie: cookie!, 'x-csrf-token': session.csrf_token! };
    expect((await h.app.inject({ method: 'POST', url: '/console/start', headers, payload: { dry_run: true } })).json()).toMatchObject({
      success: true,
      dry_run: true,
    });
    expect((await h.app.inject({ method: 'POST', url: '/console/restart', headers })).json()).toMatchObject({ success: true });
    expect((await h.app.inject({ method: 'POST', url: '/console/stop', headers })).json()).toMatchObject({ success: true });
    expect((await h.app.inject({ method: 'POST', url: '/console/stop', headers })).json()).toMatchObject({ code: 'STRATEGY_NOT_RUNNING' });
    expect((await h.app.inject({ method: 'POST', url: '/console/logout', headers: { cookie: cookie! } })).statusCode).toBe(403);
  });

  it('ends the session at logout and when it expires', async () => {
    const h = await desk({ env: { CONSOLE_PASSWORD: PASSWORD, CONSOLE_SESSION_HOURS: '1' } });
    const first = await login(h);
    const out = await h.app.inject({ method: 'POST', url: '/console/logout', headers: { cookie: first.cookie!, 'x-csrf-token': first.session.csrf_token! } });
    expect(out.json()).toMatchObject({ authenticated: false });
    expect(out.cookies.find((c) => c.name === 'fxdesk_console')?.value).toBe('');
    expect((await h.app.inject({ url: '/console/services', headers: { cookie: first.cookie! } })).statusCode).toBe(401);

    const second = await login(h);
    h.clock.advance(3_600_000 - 1);
    expect((await h.app.inject({ url: '/console/services', headers: { cookie: second.cookie! } })).statusCode).toBe(200);
    h.clock.advance(1);
    expect((await h.app.inject({ url: '/console/services', headers: { cookie: second.cookie! } })).statusCode).toBe(401);
  });

  it('keeps a login across a restart: the session and the secret that signs its cookie are in strategy.db', async () => {
    const dbFile = path.join(temp.dir, 'restart.db');
    const before = await harness({ dbFile, env: { CONSOLE_PASSWORD: PASSWORD } });
    const { cookie, session } = await login(before);
    await before.close();
    const after = await desk({ dbFile, env: { CONSOLE_PASSWORD: PASSWORD } });
    expect((await after.app.inject({ url: '/console/session', headers: { cookie: cookie! } })).json()).toMatchObject({
      authenticated: true,
      csrf_token: session.csrf_token,
    });
  });

  it(`keeps at most ${MAX_SESSIONS} sessions: one more login ends the oldest`, async () => {
    const h = await desk({ env: { CONSOLE_PASSWORD: PASSWORD, CONSOLE_LOGIN_PER_MINUTE: '1000' } });
    const first = await login(h);
    const second = await login(h);
    for (let i = 2; i < MAX_SESSIONS; i++) await login(h);
    expect((await h.app.inject({ url: '/console/services', headers: { cookie: first.cookie! } })).statusCode).toBe(200);
    await login(h);
    expect((await h.app.inject({ url: '/console/services', headers: { cookie: first.cookie! } })).statusCode).toBe(401);
    expect((await h.app.inject({ url: '/console/services', headers: { cookie: second.cookie! } })).statusCode).toBe(200);
  });

  it('refuses a cookie whose signature does not match', async () => {
    const h = await desk({ env: { CONSOLE_PASSWORD: PASSWORD } });
    const { cookie } = await login(h);
    const forged = cookie!.replace(/\.[^.]+$/, '.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
    expect((await h.app.inject({ url: '/console/services', headers: { cookie: forged } })).statusCode).toBe(401);
    const unsigned = cookie!.replace(/\.[^.]+$/, '');
    expect((await h.app.inject({ url: '/console/services', headers: { cookie: unsigned } })).statusCode).toBe(401);
  });

  it("leaves spec 000's routes as they are: no session, no CSRF token, any client", async () => {
    const h = await desk({ env: { CONSOLE_PASSWORD: PASSWORD } });
    const remoteAddress = '198.51.100.4';
    for (const url of ['/health', '/status', '/pairs', '/signals', '/signals/EUR_USD']) {
      expect((await h.app.inject({ url, remoteAddress })).statusCode, url).toBe(200);
    }
    expect((await h.app.inject({ method: 'POST', url: '/start', payload: { dry_run: true }, remoteAddress })).json()).toMatchObject({ success: true });
    expect((await h.app.inject({ method: 'POST', url: '/stop', remoteAddress })).json()).toMatchObject({ success: true });
  });
});

describe('CONSOLE_PASSWORD', () => {
  it('is required when NODE_ENV=production', () => {
    expect(() => testConfig({ NODE_ENV: 'production' })).toThrow(ConfigError);
    expect(() => testConfig({ NODE_ENV: 'production' })).toThrow(/CONSOLE_PASSWORD: is required when NODE_ENV=production/);
    expect(testConfig({ NODE_ENV: 'production', CONSOLE_PASSWORD: PASSWORD }).CONSOLE_PASSWORD).toBe(PASSWORD);
  });

  it('has at least 12 characters, and is never echoed in the error', () => {
    expect(() => testConfig({ CONSOLE_PASSWORD: 'short-pass1' })).toThrow(/CONSOLE_PASSWORD: must be at least 12 characters$/);
  });
});
