import { buildService, kitOptionsFromConfig, registerHealthRoutes, type App, type Clock } from '@fxdesk/core';
import type { Logger } from 'pino';
import pkg from '../package.json' with { type: 'json' };
import type { AccountConfig } from './config.js';

export interface AccountDeps {
  clock: Clock;
  logger?: Logger;
}

/** Builds the account service; it does not listen (server.ts does). */
export async function buildApp({ config, deps }: { config: AccountConfig; deps: AccountDeps }): Promise<App> {
  const app = await buildService({
    ...kitOptionsFromConfig(config),
    name: 'account',
    title: 'fxdesk account-read service',
    description: 'Normalized, read-only access to a broker account (OANDA v20): summary, details, instruments, snapshots and changes (spec 001 B).',
    version: pkg.version,
    securitySchemes: { internalApiKey: { type: 'apiKey', in: 'header', name: 'X-Internal-API-Key' } },
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
