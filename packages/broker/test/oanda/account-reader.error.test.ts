import { ManualClock } from '@fxdesk/primitives';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BrokerError } from '../../src/errors.js';
import { OandaAccountReader } from '../../src/oanda/index.js';
import { FakeV20Server } from './fake-v20-server.js';

async function brokerErrorOf(promise: Promise<unknown>): Promise<BrokerError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(BrokerError);
  return err as BrokerError;
}

describe('OandaAccountReader failures', () => {
  let fake: FakeV20Server;
  let clock: ManualClock;
  let reader: OandaAccountReader;
  const build = (overrides: Partial<ConstructorParameters<typeof OandaAccountReader>[0]> = {}) =>
    new OandaAccountReader({
      token: fake.token,
      accountId: fake.account.id,
      timeoutMs: 30_000,
      clock,
      ...overrides,
      baseUrl: overrides.baseUrl ?? fake.baseUrl,
    });

  beforeEach(async () => {
    clock = new ManualClock('2026-01-05T12:00:00Z');
    fake = await FakeV20Server.start();
    reader = build();
  });

  afterEach(async () => {
    await reader.close();
    await fake.close();
  });

  it('maps a 401 for a wrong token to unauthorized with OANDA’s message', async () => {
    const wrong = build({ token: 'not-the-token-123' });
    const err = await brokerErrorOf(wrong.summary());
    await wrong.close();
    expect(err.kind).toBe('unauthorized');
    expect(err.venueCode).toBe('401');
    expect(err.message).toContain('Insufficient authorization to perform request.');
  });

  it('never puts the token in an error message', async () => {
    const wrong = build({ token: 'secret-token-value-42' });
    const err = await brokerErrorOf(wrong.details());
    await wrong.close();
    expect(err.message).not.toContain('secret-token-value-42');
  });

  it('maps a 403 for another account id to unauthorized', async () => {
    const other = build({ accountId: '101-004-9999999-001' });
    const err = await brokerErrorOf(other.summary());
    await other.close();
    expect(err.kind).toBe('unauthorized');
    expect(err.message).toContain('The provided request was forbidden.');
  });

  it('maps a 429 to rate_limited with the seconds of Retry-After', async () => {
    fake.inject({ kind: 'status', status: 429, errorMessage: 'Too many requests', headers: { 'retry-after': '3' } });
    const err = await brokerErrorOf(reader.summary());
    expect(err.kind).toBe('rate_limited');
    expect(err.retryAfterSeconds).toBe(3);
  });

  it('reads a Retry-After HTTP-date against the injected clock', async () => {
    fake.inject({ kind: 'status', status: 429, errorMessage: 'Too many requests', headers: { 'retry-after': 'Mon, 05 Jan 2026 12:00:07 GMT' } });
    const err = await brokerErrorOf(reader.instruments());
    expect(err.retryAfterSeconds).toBe(7);
  });

  it('keeps OANDA’s errorCode as the venue code', async () => {
    fake.inject({ kind: 'status', status: 400, errorCode: 'INVALID_PARAMETER', errorMessage: "Invalid value specified for 'instruments'" });
    const err = await brokerErrorOf(reader.instruments(['EUR_USD']));
    expect(err.kind).toBe('protocol');
    expect(err.venueCode).toBe('INVALID_PARAMETER');
  });

  it('maps a 503 to unavailable', async () => {
    fake.inject({ kind: 'status', status: 503, errorMessage: 'Service unavailable' });
    expect((await brokerErrorOf(reader.summary())).kind).toBe('unavailable');
  });

  it('times out a call that gets no answer, on the injected clock', async () => {
    fake.inject({ kind: 'hang' });
    const pending = brokerErrorOf(reader.summary());
    await fake.waitForRequests(1);
    clock.advance(30_000);
    const err = await pending;
    expect(err.kind).toBe('timeout');
    expect(err.message).toContain('30000 ms');
  });

  it('does not time out before the timeout has passed', async () => {
    fake.inject({ kind: 'hang' });
    let settled = false;
    const pending = reader.summary().finally(() => (settled = true));
    await fake.waitForRequests(1);
    clock.advance(29_999);
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    clock.advance(1);
    await expect(pending).rejects.toMatchObject({ kind: 'timeout' });
  });

  it('maps a malformed JSON body to a protocol error', async () => {
    fake.inject({ kind: 'malformed' });
    const err = await brokerErrorOf(reader.summary());
    expect(err.kind).toBe('protocol');
    expect(err.message).toContain('not JSON');
  });

  it('maps a body that breaks the documented shape to a protocol error', async () => {
    fake.inject({ kind: 'json', status: 200, body: { account: { id: 'x', balance: 100000 }, lastTransactionID: '1' } });
    const err = await brokerErrorOf(reader.summary());
    expect(err.kind).toBe('protocol');
    expect(err.message).toContain('unexpected body');
  });

  it('maps a transaction id past the last one (416) to not_found', async () => {
    const err = await brokerErrorOf(reader.changesSince('999999'));
    expect(err.kind).toBe('not_found');
    expect(err.venueCode).toBe('INVALID_RANGE');
  });

  it('retries a GET once when the connection is reset', async () => {
    fake.inject({ kind: 'reset' });
    await expect(reader.summary()).resolves.toMatchObject({ id: fake.account.id });
    expect(fake.requests).toHaveLength(2);
  });

  it('gives up as unavailable when the retry is reset too', async () => {
    fake.inject({ kind: 'reset' });
    fake.inject({ kind: 'reset' });
    expect((await brokerErrorOf(reader.summary())).kind).toBe('unavailable');
  });

  it('maps an unreachable host to unavailable', async () => {
    const port = new URL(fake.baseUrl).port;
    await fake.close();
    const gone = build({ baseUrl: `http://127.0.0.1:${port}` });
    const err = await brokerErrorOf(gone.summary());
    await gone.close();
    expect(err.kind).toBe('unavailable');
    fake = await FakeV20Server.start();
  });
});
