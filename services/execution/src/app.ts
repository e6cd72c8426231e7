import { buildService, kitOptionsFromConfig, registerHealthRoutes, type App, type Clock } from '@fxdesk/core';
import type { Logger } from 'pino';
import pkg from '../package.json' with { type: 'json' };
import type { ExecutionConfig } from './config.js';

export interface ExecutionDeps {
  clock: Clock;
  logger?: Logger;
}

/** Builds the execution service; it does not listen (server.ts does). */
export async function buildApp({ config, deps }: { config: ExecutionConfig; deps: ExecutionDeps }): Promise<App> {
  const app = await buildService({
    ...kitOptionsFromConfig(config),
    name: 'execution',
    title: 'fxdesk order-execution service',
    description: 'Validates trading signals, runs the broker pre-check and places orders on a MetaTrader 5 terminal, idempotently by signal_id; serves historical candles (spec 001 A).',
    version: pkg.version,
    securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' } },
    logger: deps.logger,
    now: () => deps.clock.now(),
  });
  registerHealthRoutes(app, {
    version: pkg.version,
    now: () => deps.clock.now(),
    checks: {
      trading_enabled: () => ({ ok: config.TRADING_ENABLED, detail: config.TRADING_ENABLED ? 'TRADING_ENABLED=true' : 'TRADING_ENABLED=false' }),
    },
  });
  return app;
}
