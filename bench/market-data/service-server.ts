/** The market-data service as the benchmark runs it: the real app, a feed at R ticks/s. */
import { SimulatedFeed, SimulatedMarket } from '@fxdesk/broker';
import { loadConfig } from '@fxdesk/core';
import { systemClock } from '@fxdesk/primitives';
import { buildApp } from '../../services/market-data/src/app.js';
import { MarketDataConfigSchema } from '../../services/market-data/src/config.js';
import { BENCH_SYMBOLS, cpuMicros, parseServerArgs, send, type ToServer } from './protocol.js';
import { RateFeed } from './rate-feed.js';

const { rate, clients } = parseServerArgs(process.argv);
const config = loadConfig(MarketDataConfigSchema, {
  API_KEY: 'bench-market-data-key',
  LOG_LEVEL: 'warn',
  RATE_LIMIT_PER_MINUTE: '0',
  MAX_STREAM_CLIENTS: String(clients + 10),
  SIM_MARKET_HOURS: 'false',
});
const market = new SimulatedMarket({ seed: 'bench', tickIntervalMs: 1000, marketHours: false, clock: systemClock });
const feed = new RateFeed(new SimulatedFeed({ market }), market, BENCH_SYMBOLS, rate);
const deps = { clock: systemClock, feed, close: () => feed.close() };
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
