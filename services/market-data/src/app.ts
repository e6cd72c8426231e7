import { buildService, kitOptionsFromConfig, registerHealthRoutes, type App, type Clock } from '@fxdesk/core';
import type { Logger } from 'pino';
import pkg from '../package.json' with { type: 'json' };
import type { MarketDataConfig } from './config.js';

export interface MarketDataDeps {
  clock: Clock;
  logger?: Logger;
}

/** Builds the market-data service; it does not listen (server.ts does). */
export async function buildApp({ config, deps }: { config: MarketDataConfig; deps: MarketDataDeps }): Promise<App> {
  const app = await buildService({
    ...kitOptionsFromConfig(config),
    name: 'market-data',
    title: 'fxdesk market-data streaming service',
    description: 'Live bid/ask quotes over server-sent events, the latest quote, closed candles and the symbol catalog (spec 002 C).',
    version: pkg.version,
    securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' } },
    logger: deps.logger,
    now: () => deps.clock.now(),
  });
  registerHealthRoutes(app, {
    version: pkg.version,
    now: () => deps.clock.now(),
    checks: {},
  });
  return app;
}
