import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { untilReady } from '../scripts/launcher.js';

const servers: http.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** A service whose readiness probe answers 503 with a failing check `notReadyFor` times, then 200. */
async function service(notReadyFor: number): Promise<{ url: string; probes: () => number }> {
  let probes = 0;
  const server = http.createServer((_req, res) => {
    probes += 1;
    const ready = probes > notReadyFor;
    res.writeHead(ready ? 200 : 503, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ status: ready ? 'ready' : 'not_ready', checks: { broker: { ok: ready, detail: ready ? 'connected' : 'connecting' } } }));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/health/ready`, probes: () => probes };
}

describe('the launcher waiting for the desk', () => {
  it('waits for every service to answer ready, telling the ones still starting and why', async () => {
    const [quick, slow] = [await service(0), await service(3)];
    const told: [string, string][][] = [];
    const isReady = await untilReady(
      { quick: quick.url, slow: slow.url },
      { slowEveryMs: 0, onSlow: (pending) => told.push(pending), isStopping: () => false },
    );
    expect(isReady).toBe(true);
    expect(slow.probes()).toBe(4);
    // The quick one is asked once: ready is ready.
    expect(quick.probes()).toBe(1);
    expect(told).toHaveLength(3);
    for (const pending of told) expect(pending).toEqual([['slow', 'not ready: broker: connecting']]);
  }, 30_000);

  it('tells a service that is not listening as not answering yet, and gives up when the desk stops', async () => {
    const gone = await service(0);
    const url = gone.url;
    await new Promise((resolve) => servers.pop()?.close(resolve));
    const told: [string, string][][] = [];
    const isReady = await untilReady({ gone: url }, { slowEveryMs: 0, onSlow: (pending) => told.push(pending), isStopping: () => told.length >= 2 });
    expect(isReady).toBe(false);
    expect(told[0]).toEqual([['gone', 'not answering yet']]);
  }, 30_000);
});
