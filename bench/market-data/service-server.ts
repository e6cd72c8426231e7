/**
 * The market-data service as the benchmark runs it: the real app, a feed at R ticks/s. With a
 * Redis URL (`--replicas`), a replica as REDIS_URL makes one: the one that takes the lease
 * connects its feed and appends the ticks to the Redis stream; every replica streams from it.
 */
import { SimulatedFeed, SimulatedMarket } from '@fxdesk/broker';
import { createLogger, loadConfig } from '@fxdesk/core';
import { systemClock } from '@fxdesk/primitives';
import { buildApp } from '../../services/market-data/src/app.js';
import { MarketDataConfigSchema } from '../../services/market-data/src/config.js';
import { createReplication } from '../../services/market-data/src/deps.js';
import { BENCH_SYMBOLS, cpuMicros, parseServerArgs, send, type ToServer } from './protocol.js';
import { RateFeed } from './rate-feed.js';

const { rate, clients, redisUrl } = parseServerArgs(process.argv);
const config = loadConfig(MarketDataConfigSchema, {
  API_KEY: 'bench-market-data-key',
  LOG_LEVEL: 'warn',
  RATE_LIMIT_PER_MINUTE: '0',
  MAX_STREAM_CLIENTS: String(clients + 10),
  SIM_MARKET_HOURS: 'false',
  // The symbols the paced feed quotes: the service serves (and waits for a quote of) these alone.
  SYMBOLS: BENCH_SYMBOLS.join(','),
});
const market = new SimulatedMarket({ seed: 'bench', tickIntervalMs: 1000, marketHours: false, clock: systemClock });
const feed = new RateFeed(new SimulatedFeed({ market }), market, BENCH_SYMBOLS, rate);
const redis = redisUrl
  ? await createReplication({
      url: redisUrl,
      owner: `bench-${process.pid}`,
      retention: config.TICK_STREAM_RETENTION,
      leaseMs: config.INGEST_LEASE_MS,
      logger: createLogger({ name: 'market-data', level: 'warn' }),
    })
  : undefined;
const deps = {
  clock: systemClock,
  feed,
  replication: redis?.replication,
  close: async () => {
    await feed.close();
    await redis?.close();
  },
};
const service = await buildApp({ config, deps });
const { app } = service;
app.addHook('onClose', deps.close);
await app.listen({ host: '127.0.0.1', port: 0 });
const hub = service.market.hub;

process.on('message', (message: ToServer) => {
  if (message.type === 'report') {
    const stats = hub.stats();
    send({
      type: 'report',
      rssBytes: process.memoryUsage.rss(),
      cpuMicros: cpuMicros(),
      ticksPublished: stats.ticksPublished,
      dropped: stats.dropped,
      clients: stats.clients,
    });
  } else {
    void app.close().then(() => {
      market.stop();
      process.exit(0);
    });
  }
});
send({ type: 'ready', port: (app.server.address() as { port: number }).port });
