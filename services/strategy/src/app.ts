import { buildService, kitOptionsFromConfig, registerHealthRoutes, type App, type Clock } from '@fxdesk/core';
import type { Logger } from 'pino';
import pkg from '../package.json' with { type: 'json' };
import type { StrategyConfig } from './config.js';

export interface StrategyDeps {
  clock: Clock;
  logger?: Logger;
}

/** Builds the strategy service; it does not listen (server.ts does). */
export async function buildApp({ config, deps }: { config: StrategyConfig; deps: StrategyDeps }): Promise<App> {
  const app = await buildService({
    ...kitOptionsFromConfig(config),
    name: 'strategy',
    title: 'fxdesk strategy control service',
    description: 'Runs the strategy on FX pairs (Supertrend, Stochastic RSI, fair value gaps, volume profile), reports signals and starts, stops and restarts it (spec 000).',
    version: pkg.version,
    errorCodeCase: 'upper',
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
