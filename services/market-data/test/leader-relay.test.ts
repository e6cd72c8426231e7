import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger } from '@fxdesk/core';
import { freePort } from '@fxdesk/core/testing';
import { ManualClock } from '@fxdesk/primitives';
import { afterEach, describe, expect, it } from 'vitest';
import { FORWARDED_BY_HEADER, LeaderRelay } from '../src/leader-relay.js';
import type { LeaseHolder } from '../src/redis-lease.js';

const TIMEOUT_MS = 15_000;
const CANDLES = '/v1/market-data/candles?symbol=EURUSD&timeframe=M5&from=2026-01-05T00:00:00Z&count=2';

/** What the leader received, and how it answers. */
interface FakeLeader {
  address: string;
  received: { method: string; url: string; headers: IncomingHttpHeaders }[];
  answer: (res: ServerResponse) => void;
}

const servers: Server[] = [];

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A replica holding the venue, as far as HTTP goes: a real listen on port 0. */
async function fakeLeader(answer: (res: ServerResponse) => void): Promise<FakeLeader> {
  const leader: FakeLeader = { address: '', received: [], answer };
  const server = createServer((req, res) => {
    leader.received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    leader.answer(res);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  leader.address = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return leader;
}

function json(status: number, body: unknown, headers: Record<string, string> = {}) {
  return (res: ServerResponse) => res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers }).end(JSON.stringify(body));
}

function relayTo(holder: LeaseHolder | null | (() => Promise<LeaseHolder | null>), clock = new ManualClock()) {
  return new LeaderRelay({
    leader: typeof holder === 'function' ? holder : async () => holder,
    self: 'replica-b',
    apiKey: 'relay-test-key',
    clock,
    timeoutMs: TIMEOUT_MS,
    retryAfterSeconds: 4,
    logger: createLogger({ name: 'test', level: 'silent' }),
  });
}

const request = { method: 'GET' as const, url: CANDLES, requestId: 'req-1' };

/** The relay's refusal: 503 broker_unavailable with Retry-After, and its message. */
async function refusal(promise: Promise<unknown>) {
  const err = (await promise.then(
    () => expect.fail('expected the relay to refuse'),
    (e: unknown) => e,
  )) as { statusCode: number; code: string; message: string; headers: Record<string, string> };
  expect(err).toMatchObject({ statusCode: 503, code: 'broker_unavailable', headers: { 'retry-after': '4' } });
  return err.message;
}

describe('LeaderRelay', () => {
  it("sends the request to the leader's REPLICA_URL unchanged, with the service's key, the request id and who forwarded it", async () => {
    const leader = await fakeLeader(json(200, { symbol: 'EURUSD', timeframe: 'M5', candles: [], next_from: null }));
    await relayTo({ owner: 'replica-a', address: leader.address }).relay(request);
    expect(leader.received).toEqual([
      {
        method: 'GET',
        url: CANDLES,
        headers: expect.objectContaining({ 'x-api-key': 'relay-test-key', 'x-request-id': 'req-1', [FORWARDED_BY_HEADER]: 'replica-b' }),
      },
    ]);
  });

  it("gives back the leader's answer as it came: status, content type and the body byte for byte", async () => {
    const body = '{"symbol":"EURUSD","timeframe":"M5","candles":[],"next_from":null}';
    const leader = await fakeLeader((res) => res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'x-other': 'no' }).end(body));
    const answer = await relayTo({ owner: 'replica-a', address: leader.address }).relay(request);
    expect(answer).toEqual({ status: 200, headers: { 'content-type': 'application/json; charset=utf-8' }, body });
  });

  it("gives back the leader's error envelope unchanged, with its Retry-After", async () => {
    const envelope = {
      error: true,
      code: 'broker_unavailable',
      message: 'the broker session is not connected',
      timestamp: '2026-01-05T12:00:00.000Z',
      requestId: 'req-1',
    };
    const leader = await fakeLeader(json(503, envelope, { 'retry-after': '4' }));
    const answer = await relayTo({ owner: 'replica-a', address: leader.address }).relay(request);
    expect(answer.status).toBe(503);
    expect(answer.headers['retry-after']).toBe('4');
    expect(JSON.parse(answer.body)).toEqual(envelope);
  });

  it('refuses when no replica holds the venue', async () => {
    expect(await refusal(relayTo(null).relay(request))).toMatch(/^no replica holds the venue connection at the moment/);
  });

  it('refuses when the lease still names this replica (it is letting go of the venue): there is nobody else to ask', async () => {
    expect(await refusal(relayTo({ owner: 'replica-b', address: 'http://127.0.0.1:1' }).relay(request))).toMatch(/^no replica holds the venue connection/);
  });

  it('refuses, naming the leader, when the leader publishes no REPLICA_URL', async () => {
    expect(await refusal(relayTo({ owner: 'replica-a', address: undefined }).relay(request))).toBe(
      'the replica holding the venue connection (replica-a) publishes no REPLICA_URL, so this replica cannot forward the request to it',
    );
  });

  it('refuses when Redis cannot say who leads', async () => {
    const message = await refusal(relayTo(() => Promise.reject(new Error('Connection is closed.'))).relay(request));
    expect(message).toBe('Redis did not say which replica holds the venue connection (Connection is closed.)');
  });

  it('refuses when nothing listens at the leader’s address (a leader just killed)', async () => {
    const address = `http://127.0.0.1:${await freePort()}`;
    expect(await refusal(relayTo({ owner: 'replica-a', address }).relay(request))).toBe(
      `the replica holding the venue connection (replica-a at ${address}) did not answer: ECONNREFUSED`,
    );
  });

  it('waits for a silent leader until the timeout on the injected clock, then refuses', async () => {
    const clock = new ManualClock();
    let arrived!: () => void;
    const hasArrived = new Promise<void>((resolve) => (arrived = resolve));
    const leader = await fakeLeader(() => arrived());
    let settled = false;
    const relayed = relayTo({ owner: 'replica-a', address: leader.address }, clock)
      .relay(request)
      .finally(() => (settled = true));
    await hasArrived;
    clock.advance(TIMEOUT_MS - 1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    clock.advance(1);
    expect(await refusal(relayed)).toBe(`the replica holding the venue connection (replica-a at ${leader.address}) did not answer: no answer within 15000 ms`);
  });

  it('refuses when the leader refuses the key: the replicas do not share API_KEY', async () => {
    const leader = await fakeLeader(
      json(401, { error: true, code: 'unauthorized', message: 'missing or invalid API key', timestamp: '2026-01-05T12:00:00.000Z' }),
    );
    expect(await refusal(relayTo({ owner: 'replica-a', address: leader.address }).relay(request))).toMatch(/every replica must have the same API_KEY$/);
  });

  it('refuses an answer that is not JSON: REPLICA_URL names something other than the service', async () => {
    const leader = await fakeLeader((res) => res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not Found</h1>'));
    expect(await refusal(relayTo({ owner: 'replica-a', address: leader.address }).relay(request))).toBe(
      `${leader.address} (REPLICA_URL of replica-a) answered 404 text/html, not the service`,
    );
  });
});
