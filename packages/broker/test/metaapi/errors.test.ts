import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { errorBody, throttled } from './fake-metaapi-server.js';
import { failure, fakeSetup, type FakeSetup } from './harness.js';

describe('MetaApi reads: error mapping', () => {
  let s: FakeSetup;

  beforeEach(async () => {
    s = await fakeSetup();
    await s.terminal.connect();
  });
  afterEach(async () => s.teardown());

  it('sends the token in the auth-token header', async () => {
    await s.terminal.tick('EURUSD');
    expect(s.fake.requests.at(-1)?.headers['auth-token']).toBe(s.fake.token);
  });

  it('maps a 429 to rate_limited with the Retry-After seconds, and does not retry it', async () => {
    s.fake.inject(throttled('current-price', 7, s.clock.now()));
    const err = await failure(s.terminal.tick('EURUSD'));
    expect(err.kind).toBe('rate_limited');
    expect(err.retryAfterSeconds).toBe(7);
    expect(s.fake.count('current-price')).toBe(1);
  });

  it('takes the wait from metadata.recommendedRetryTime when a 429 has no Retry-After header', async () => {
    const fault = throttled('current-price', 12, s.clock.now());
    s.fake.inject({ ...fault, headers: {} } as typeof fault);
    expect((await failure(s.terminal.tick('EURUSD'))).retryAfterSeconds).toBe(12);
  });

  it('tries a GET once more after a 500 InternalError', async () => {
    s.fake.inject({ route: 'current-price', kind: 'status', status: 500, body: errorBody('InternalError', 'unexpected') });
    expect(await s.terminal.tick('EURUSD')).not.toBeNull();
    expect(s.fake.count('current-price')).toBe(2);
  });

  it('tries a GET once more after a dropped connection', async () => {
    s.fake.inject({ route: 'specification', kind: 'reset' });
    expect((await s.terminal.symbolInfo('EURUSD'))?.symbol).toBe('EURUSD');
    expect(s.fake.count('specification')).toBe(2);
  });

  it('gives up a GET after its second failure, as unavailable', async () => {
    for (let i = 0; i < 2; i++) s.fake.inject({ route: 'current-price', kind: 'status', status: 503, body: errorBody('ServiceUnavailableError', 'busy') });
    expect((await failure(s.terminal.tick('EURUSD'))).kind).toBe('unavailable');
    expect(s.fake.count('current-price')).toBe(2);
  });

  it('answers a timeout when a read stays silent past its timeout', async () => {
    s.fake.inject({ route: 'current-price', kind: 'hang', onArrive: () => s.clock.advance(5_000) });
    expect((await failure(s.terminal.tick('EURUSD'))).kind).toBe('timeout');
  });

  it('answers no quote for a symbol MetaApi does not know (404 NotFoundError)', async () => {
    expect(await s.terminal.tick('NOSUCH')).toBeNull();
  });

  it('answers not_found for candles of a symbol MetaApi does not know', async () => {
    expect((await failure(s.terminal.rates('NOSUCH', 'M5', 10))).kind).toBe('not_found');
  });

  it('reads a 504 TimeoutError ("not connected to broker") as a lost terminal and refuses calls until it is back', async () => {
    const changes: boolean[] = [];
    s.terminal.onConnectionChange((c) => changes.push(c));
    s.fake.setBrokerConnected(false);
    expect((await failure(s.terminal.symbolInfo('EURUSD'))).kind).toBe('disconnected');
    expect(s.terminal.isConnected()).toBe(false);
    const before = s.fake.requests.length;
    expect((await failure(s.terminal.tick('EURUSD'))).kind).toBe('disconnected');
    expect(s.fake.requests.length).toBe(before);
    s.fake.setBrokerConnected(true);
    await s.terminal.connect();
    expect(changes).toEqual([false, true]);
  });

  it('refuses history that MetaApi is still synchronizing instead of answering part of it', async () => {
    s.fake.inject({ route: 'history-orders', kind: 'status', status: 200, body: { historyOrders: [], synchronizing: true } });
    expect((await failure(s.terminal.findByComment('x', 1))).kind).toBe('unavailable');
  });

  it('names a malformed body a protocol error', async () => {
    s.fake.inject({ route: 'current-price', kind: 'status', status: 200, body: { symbol: 'EURUSD', bid: 'high' } });
    expect((await failure(s.terminal.tick('EURUSD'))).kind).toBe('protocol');
  });
});

describe('MetaApi connection', () => {
  it('refuses to connect with a wrong token, as unauthorized, without echoing it', async () => {
    const s = await fakeSetup({ token: 'not-the-token-9f8e' });
    const err = await failure(s.terminal.connect());
    expect(err.kind).toBe('unauthorized');
    expect(err.message).not.toContain('not-the-token-9f8e');
    expect(s.terminal.isConnected()).toBe(false);
    await s.teardown();
  });

  it('refuses to connect to an account MetaApi does not know, as not_found', async () => {
    const s = await fakeSetup({ accountId: 'no-such-account' });
    expect((await failure(s.terminal.connect())).kind).toBe('not_found');
    await s.teardown();
  });

  it('answers unavailable when MetaApi cannot be reached', async () => {
    const s = await fakeSetup();
    await s.fake.close();
    expect((await failure(s.terminal.connect())).kind).toBe('unavailable');
    expect(s.terminal.isConnected()).toBe(false);
    await s.terminal.close();
  });

  it('marks the terminal down when its health probe is refused (a revoked token)', async () => {
    const s = await fakeSetup({ healthIntervalMs: 15_000 });
    await s.terminal.connect();
    s.fake.inject({ route: 'account-information', kind: 'status', status: 401, body: errorBody('UnauthorizedError', 'Authorization token invalid') });
    s.clock.advance(15_000);
    await until(() => !s.terminal.isConnected());
    await s.teardown();
  });

  it('finds the terminal lost and back again with its health probe on the clock', async () => {
    const s = await fakeSetup({ healthIntervalMs: 15_000 });
    await s.terminal.connect();
    const changes: boolean[] = [];
    s.terminal.onConnectionChange((c) => changes.push(c));
    s.fake.setBrokerConnected(false);
    s.clock.advance(15_000);
    await until(() => changes.length === 1);
    s.fake.setBrokerConnected(true);
    s.clock.advance(15_000);
    await until(() => changes.length === 2);
    expect(changes).toEqual([false, true]);
    await s.teardown();
  });
});

/** Lets socket I/O run until `check` holds (no wall-clock wait). */
async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 5_000 && !check(); i++) await new Promise((resolve) => setImmediate(resolve));
  expect(check()).toBe(true);
}
