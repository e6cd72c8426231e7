import { buildService, createLogger, kitOptionsFromConfig, protectRoutes, registerHealthRoutes, type App } from '@fxdesk/core';
import pkg from '../package.json' with { type: 'json' };
import type { MarketDataConfig } from './config.js';
import type { MarketDataDeps } from './deps.js';
import { MarketData } from './market-data.js';
import { StoredCandles } from './store/stored-candles.js';
import { registerCandleImportRoutes } from './routes/imports.js';
import { registerQuoteRoutes } from './routes/quotes.js';
import { registerStoredCandleRoutes } from './routes/stored-candles.js';
import { registerStreamRoutes } from './routes/stream.js';
import { registerSymbolRoutes } from './routes/symbols.js';

/** The built service: the app, and the domain object behind it (tests and the benchmark read its hub). */
export interface MarketDataService {
  app: App;
  market: MarketData;
}

/** Builds the market-data service; it does not listen (server.ts does) and never closes its deps. */
export async function buildApp({ config, deps }: { config: MarketDataConfig; deps: MarketDataDeps }): Promise<MarketDataService> {
  const logger = deps.logger ?? createLogger({ name: 'market-data', level: config.LOG_LEVEL });
  const app = await buildService({
    ...kitOptionsFromConfig(config),
    name: 'market-data',
    title: 'fxdesk market-data streaming service',
    description: 'Live bid/ask quotes over server-sent events, the latest quote, closed candles, stored candle history and the symbol catalog (spec 002 C).',
    version: pkg.version,
    securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' } },
    tags: [
      { name: 'stream', description: 'Server-sent events' },
      { name: 'market data', description: 'Latest quote, closed candles and stored history' },
      { name: 'symbols', description: 'The symbol catalog' },
      { name: 'health', description: 'Liveness and readiness' },
    ],
    logger,
    now: () => deps.clock.now(),
  });

  const market = new MarketData({ config, feed: deps.feed, clock: deps.clock, logger, replication: deps.replication });
  const storedCandles = deps.candleStore && new StoredCandles(deps.candleStore);
  registerHealthRoutes(app, { version: pkg.version, now: () => deps.clock.now(), checks: { ...market.readinessChecks(), ...deps.checks } });
  registerStreamMetrics(app, market);

  await app.register(
    (v1, _options, done) => {
      protectRoutes(v1, { header: 'x-api-key', key: config.API_KEY, schemes: ['apiKey'] });
      registerStreamRoutes(v1, market);
      registerQuoteRoutes(v1, market);
      registerSymbolRoutes(v1, market);
      registerStoredCandleRoutes(v1, storedCandles, config.MAX_CANDLES);
      registerCandleImportRoutes(v1, deps.candleStore, { maxBytes: config.MAX_IMPORT_BYTES, tempDir: config.DATA_DIR });
      done();
    },
    { prefix: '/v1' },
  );

  app.addHook('onReady', () => market.start());
  // preClose runs before the HTTP server stops accepting and waits for open requests: ending
  // the streams here is what lets app.close() finish with clients still connected. It also
  // runs before every onClose hook, so the session lets go of the feed before its owner closes it.
  app.addHook('preClose', () => market.stop());
  return { app, market };
}

function registerStreamMetrics(app: App, market: MarketData): void {
  const m = app.metrics;
  m.gauge('market_data_stream_clients', 'Open SSE streams.', () => market.hub.stats().clients);
  m.gauge('market_data_ticks_published', 'Ticks received from the feed and fanned out.', () => market.hub.stats().ticksPublished);
  m.gauge('market_data_stream_dropped', 'Ticks discarded for slow clients (replaced by a newer tick).', () => market.hub.stats().dropped);
  m.gauge(
    'market_data_stream_stuck_disconnects',
    'Streams closed because the client read nothing for STREAM_STUCK_SECONDS.',
    () => market.hub.stats().stuckDisconnects,
  );
}
