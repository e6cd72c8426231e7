import type { ServerResponse } from 'node:http';
import { ManualClock } from '@fxdesk/primitives';
import { describe, expect, it } from 'vitest';
import { StreamClient } from '../src/stream-client.js';
import { FakeResponse } from '@fxdesk/core/testing';

function clientOn(res: FakeResponse, queueMax = 100) {
  const clock = new ManualClock();
  const stuck: StreamClient[] = [];
  const client = new StreamClient({
    res: res as unknown as ServerResponse,
    symbols: null,
    clock,
    stuckMs: 30_000,
    queueMax,
    statusFrame: (dropped) => `status ${dropped}\n`,
    onStuck: (c) => stuck.push(c),
  });
  return { client, clock, stuck };
}

describe('StreamClient', () => {
  it('writes straight through while the socket accepts', () => {
    const res = new FakeResponse();
    const { client } = clientOn(res);
    client.sendTick('EURUSD', 'a1\n');
    client.sendTick('EURUSD', 'a2\n');
    expect(res.written).toEqual(['a1\n', 'a2\n']);
    expect(client.dropped).toBe(0);
  });

  it('stops writing once the socket pushes back and keeps only the newest tick per symbol', () => {
    const res = new FakeResponse();
    const { client } = clientOn(res);
    res.accepting = false;
    client.sendTick('EURUSD', 'a1\n');
    client.sendTick('EURUSD', 'a2\n');
    client.sendTick('GBPUSD', 'b1\n');
    client.sendTick('EURUSD', 'a3\n');
    expect(res.written).toEqual(['a1\n']);
    expect(client.queuedEvents).toBe(2);
    expect(client.dropped).toBe(1);
  });

  it('writes the queue in one piece on drain, then a status event with dropped', () => {
    const res = new FakeResponse();
    const { client } = clientOn(res);
    res.accepting = false;
    client.sendTick('EURUSD', 'a1\n');
    client.sendTick('GBPUSD', 'b1\n');
    client.sendTick('GBPUSD', 'b2\n');
    client.sendTick('EURUSD', 'a2\n');
    res.drain();
    // a1 went out before the push-back; b1 was replaced by b2.
    expect(res.written).toEqual(['a1\n', 'b2\na2\nstatus 1\n']);
    expect(client.queuedEvents).toBe(0);
  });

  it('discards the oldest queued tick beyond queueMax, counting it in dropped', () => {
    const res = new FakeResponse();
    const { client } = clientOn(res, 2);
    res.accepting = false;
    client.sendTick('X0', 'x0\n');
    client.sendTick('X1', 'x1\n');
    client.sendTick('X2', 'x2\n');
    client.sendTick('X3', 'x3\n');
    expect(client.queuedEvents).toBe(2);
    expect(client.dropped).toBe(1);
    res.drain();
    expect(res.written.at(-1)).toBe('x2\nx3\nstatus 1\n');
  });

  it('holds a status change made while stuck and builds it with the counter at write time', () => {
    const res = new FakeResponse();
    const { client } = clientOn(res);
    res.accepting = false;
    client.sendTick('EURUSD', 'a1\n');
    client.sendTick('EURUSD', 'a2\n');
    client.sendStatus();
    client.sendTick('EURUSD', 'a3\n');
    res.drain();
    expect(res.written.at(-1)).toBe('status 1\na3\n');
  });

  it('reports itself stuck after stuckMs of continuous backpressure, not when the socket drains in time', () => {
    const res = new FakeResponse();
    const { client, clock, stuck } = clientOn(res);
    res.accepting = false;
    client.sendTick('EURUSD', 'a1\n');
    clock.advance(29_000);
    res.drain();
    clock.advance(10_000);
    expect(stuck).toHaveLength(0);
    res.accepting = false;
    client.sendTick('EURUSD', 'a2\n');
    clock.advance(30_000);
    expect(stuck).toEqual([client]);
  });

  it('skips heartbeats while the socket pushes back', () => {
    const res = new FakeResponse();
    const { client } = clientOn(res);
    res.accepting = false;
    client.sendTick('EURUSD', 'a1\n');
    client.sendRaw(': heartbeat\n\n');
    expect(res.written).toEqual(['a1\n']);
  });
});
