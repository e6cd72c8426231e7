/**
 * The baseline: a bare Node `http` SSE broadcaster sending the same ticks, framed the same way
 * (event, id, data), to every client, with none of the service's work (no Fastify, no auth, no
 * per-client queue or backpressure handling, no heartbeat).
 */
import http from 'node:http';
import { SimulatedMarket } from '@fxdesk/broker';
import { systemClock } from '@fxdesk/primitives';
import { eventFrame } from '../../packages/core/src/sse.js';
import { toTick } from '../../services/market-data/src/ticks.js';
import { PacedTicks } from './paced-ticks.js';
import { BENCH_SYMBOLS, cpuMicros, parseServerArgs, send, type ToServer } from './protocol.js';

const { rate } = parseServerArgs(process.argv);
const market = new SimulatedMarket({ seed: 'bench', tickIntervalMs: 1000, marketHours: false, clock: systemClock });
const clients = new Set<http.ServerResponse>();
let nextId = 1;
let published = 0;

const server = http.createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
  clients.add(res);
  res.on('close', () => clients.delete(res));
});

const ticks = new PacedTicks(market, BENCH_SYMBOLS, rate, (quote) => {
  const digits = market.spec(quote.symbol)?.digits ?? 5;
  const frame = eventFrame('tick', nextId++, JSON.stringify(toTick(quote, digits, 'simulated')));
  published++;
  for (const res of clients) res.write(frame);
});

server.listen(0, '127.0.0.1', () => {
  ticks.start();
  send({ type: 'ready', port: (server.address() as { port: number }).port });
});

process.on('message', (message: ToServer) => {
  if (message.type === 'report') {
    send({ type: 'report', rssBytes: process.memoryUsage.rss(), cpuMicros: cpuMicros(), ticksPublished: published, dropped: 0, clients: clients.size });
  } else {
    ticks.stop();
    for (const res of clients) res.destroy();
    server.close(() => process.exit(0));
  }
});
