import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ManualClock } from '@fxdesk/primitives';
import { afterEach, describe, expect, it } from 'vitest';
import type { ServiceError } from '../src/errors.js';
import { HttpClient } from '../src/http.js';
import { openEventStream, type SseEvent } from '../src/sse.js';

let server: http.Server | undefined;
const open = new Set<http.ServerResponse>();
afterEach(async () => {
  for (const res of open) res.destroy();
  open.clear();
  server?.closeAllConnections();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = undefined;
});

async function serve(handler: (req: http.IncomingMessage, res: http.ServerResponse) => void): Promise<HttpClient> {
  server = http.createServer((req, res) => {
    open.add(res);
    res.on('close', () => open.delete(res));
    handler(req, res);
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return new HttpClient('stream', { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, apiKey: 'k' }, 'x-api-key');
}

/** Resolves with the next value pushed. */
function queue<T>() {
  const items: T[] = [];
  const waiters: ((v: T) => void)[] = [];
  return {
    push: (v: T) => (waiters.length > 0 ? waiters.shift()!(v) : items.push(v)),
    next: () => new Promise<T>((resolve) => (items.length > 0 ? resolve(items.shift()!) : waiters.push(resolve))),
  };
}

describe('openEventStream', () => {
  it('delivers events, and after the server drops the stream reconnects with Last-Event-ID after the retry hint', async () => {
    const requests: http.IncomingHttpHeaders[] = [];
    const client = await serve((req, res) => {
      requests.push(req.headers);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      if (requests.length === 1) res.end('retry: 2500\n\nevent: tick\nid: 1\ndata: a\n\nevent: tick\nid: 2\ndata: b\n\n');
      else res.write('event: tick\nid: 3\ndata: c\n\n');
    });
    const clock = new ManualClock();
    const events = queue<SseEvent>();
    const drops = queue<[ServiceError, number]>();
    const stream = openEventStream(client, { path: '/stream', onEvent: events.push, onDisconnect: (e, d) => drops.push([e, d]), timers: clock });
    expect((await events.next()).data).toBe('a');
    expect((await events.next()).data).toBe('b');
    const [error, delay] = await drops.next();
    expect(error.code).toBe('stream_ended');
    expect(delay).toBe(2500);
    clock.advance(2500);
    expect(await events.next()).toEqual({ event: 'tick', data: 'c', id: '3' });
    expect(requests[0]?.['x-api-key']).toBe('k');
    expect(requests[0]?.accept).toBe('text/event-stream');
    expect(requests[1]?.['last-event-id']).toBe('2');
    expect(stream.isOpen).toBe(true);
    stream.close();
    expect(stream.isOpen).toBe(false);
    await client.close();
  });

  it('reports an error answer with its envelope and retries with a doubling delay', async () => {
    let calls = 0;
    const client = await serve((_req, res) => {
      calls++;
      res
        .writeHead(503, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: true, code: 'broker_unavailable', message: 'down', timestamp: 'now' }));
    });
    const clock = new ManualClock();
    const drops = queue<[ServiceError, number]>();
    const stream = openEventStream(client, {
      path: '/stream',
      onEvent: () => undefined,
      onDisconnect: (e, d) => drops.push([e, d]),
      timers: clock,
      minDelayMs: 100,
      maxDelayMs: 250,
    });
    const first = await drops.next();
    expect(first[0]).toMatchObject({ status: 503, code: 'broker_unavailable' });
    expect(first[1]).toBe(100);
    clock.advance(100);
    expect((await drops.next())[1]).toBe(200);
    clock.advance(200);
    expect((await drops.next())[1]).toBe(250);
    expect(calls).toBe(3);
    stream.close();
    clock.advance(1000);
    expect(clock.pendingTimers()).toBe(0);
    await client.close();
  });

  it('reconnects a stream that stays silent past idleTimeoutMs', async () => {
    const client = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(': hello\n\n');
    });
    const drops = queue<[ServiceError, number]>();
    const stream = openEventStream(client, {
      path: '/stream',
      onEvent: () => undefined,
      onDisconnect: (e, d) => drops.push([e, d]),
      timers: new ManualClock(),
      idleTimeoutMs: 200,
    });
    expect((await drops.next())[0].kind).toBe('timeout');
    stream.close();
    await client.close();
  });

  it('passes what the event handler throws to onListenerError and goes on', async () => {
    const client = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: 1\n\ndata: 2\n\n');
    });
    const errors = queue<unknown>();
    const events = queue<string>();
    const stream = openEventStream(client, {
      path: '/stream',
      onEvent: (e) => {
        if (e.data === '1') throw new Error('bad handler');
        events.push(e.data);
      },
      onListenerError: errors.push,
      timers: new ManualClock(),
    });
    expect(((await errors.next()) as Error).message).toBe('bad handler');
    expect(await events.next()).toBe('2');
    stream.close();
    await client.close();
  });
});
