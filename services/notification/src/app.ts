import { buildService, kitOptionsFromConfig, registerHealthRoutes, type App, type Clock } from '@fxdesk/core';
import type { Logger } from 'pino';
import pkg from '../package.json' with { type: 'json' };
import type { NotificationConfig } from './config.js';

export interface NotificationDeps {
  clock: Clock;
  logger?: Logger;
}

/** Builds the notification service; it does not listen (server.ts does). */
export async function buildApp({ config, deps }: { config: NotificationConfig; deps: NotificationDeps }): Promise<App> {
  const app = await buildService({
    ...kitOptionsFromConfig(config),
    name: 'notification',
    title: 'fxdesk notification service',
    description: 'Sends one message to the configured chat-bot, email, SMS and messenger recipients, with delivery records, retries and status webhooks (spec 002 D).',
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
