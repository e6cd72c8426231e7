import type { ServerResponse } from 'node:http';
import { createLogger } from '@fxdesk/core';
import { ManualClock } from '@fxdesk/primitives';
import type { Tick } from '@fxdesk/schemas';
import { afterEach, describe, expect, it } from 'vitest';
import { StreamHub } from '../src/stream-hub.js';
import { FakeResponse } from '@fxdesk/core/testing';

const tick = (symbol: string, n: number): Tick => ({ symbol, bid: n, ask: n + 1, spread: 1, ts: '2026-01-05T12:00:00.000Z', provider: 'simulated' });
const id = (n: number) => `1000-${n}`;

let hub: StreamHub;

function replicaHub(): StreamHub {
  hub = new StreamHub({
    clock: new ManualClock(),
    logger: createLogger({ name: 'test', level: 'silent' }),
    heartbeatMs: 15_000,
    retryMs: 3000,
    stuckMs: 30_000,
    queueMax: 100,
    currentStatus: () => ({ state: 'connected', ts: '2026-01-05T12:00:00.000Z' }),
    idsFromStream: true,
  });
  return hub;
}

/** Publishes stream entries from..to (ids 1000-<n>), EURUSD on even n, USDJPY on odd. */
function publish(from: number, to: number): void {
  for (let n = from; n <= to; n++) hub.publishTick(tick(n % 2 ? 'USDJPY' : 'EURUSD', n), id(n));
}

/** What Redis's XRANGE would answer after `after`, up to `to`. */
const range = (after: number, to: number) =>
  Array.from({ length: to - after }, (_, i) => ({ id: id(after + 1 + i), tick: tick((after + 1 + i) % 2 ? 'USDJPY' : 'EURUSD', after + 1 + i) }));

const tickIds = (res: FakeResponse) => [...res.written.join('').matchAll(/event: tick\nid: (\S+)/g)].map((m) => m[1]);
const ids = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => id(from + i));

afterEach(() => hub.closeAll());

describe('StreamHub: a client resuming from a Last-Event-ID', () => {
  it('gets every missed tick once when the stream was read ahead of what this hub has published', () => {
    replicaHub();
    publish(1, 5);
    const res = new FakeResponse();
    const client = hub.openResuming(res as unknown as ServerResponse, null);
    hub.join(client, { ticks: range(2, 8), lastId: id(8) });
    publish(6, 10);
    expect(tickIds(res)).toEqual(ids(3, 10));
  });

  it('gets the live ticks that arrived while its missed ones were read, after them and once', () => {
    replicaHub();
    publish(1, 5);
    const res = new FakeResponse();
    const client = hub.openResuming(res as unknown as ServerResponse, null);
    publish(6, 7);
    hub.join(client, { ticks: range(2, 6), lastId: id(6) });
    publish(8, 9);
    expect(tickIds(res)).toEqual(ids(3, 9));
  });

  it('gets only the symbols it asked for', () => {
    replicaHub();
    publish(1, 5);
    const res = new FakeResponse();
    const client = hub.openResuming(res as unknown as ServerResponse, new Set(['EURUSD']));
    hub.join(client, { ticks: range(2, 5), lastId: id(5) });
    publish(6, 8);
    expect(tickIds(res)).toEqual([id(4), id(6), id(8)]);
  });

  it('gets every missed tick even when its socket pushes back, none coalesced', () => {
    replicaHub();
    const res = new FakeResponse();
    res.accepting = false;
    const client = hub.openResuming(res as unknown as ServerResponse, null);
    hub.join(client, { ticks: range(0, 50), lastId: id(50) });
    expect(tickIds(res)).toEqual(ids(1, 50));
    expect(client.dropped).toBe(0);
  });

  it('gets the last tick of each symbol and a status without an id saying ticks were missed, when they are gone', () => {
    replicaHub();
    publish(1, 5);
    const res = new FakeResponse();
    const client = hub.openResuming(res as unknown as ServerResponse, null);
    hub.join(client, { missedReason: 'Last-Event-ID 1-0 is older than the ticks kept' });
    publish(6, 6);
    expect(tickIds(res)).toEqual([id(4), id(5), id(6)]);
    const status = res.written.join('').match(/event: status\n(id: .*\n)?data: (.*)\n/);
    expect(status?.[1]).toBeUndefined();
    expect(JSON.parse(status?.[2] as string)).toMatchObject({
      state: 'connected',
      reason: 'ticks were missed: Last-Event-ID 1-0 is older than the ticks kept; the last tick of each symbol was replayed',
      dropped: 0,
    });
  });
});
