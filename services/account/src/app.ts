import { buildService, kitOptionsFromConfig, protectRoutes, registerHealthRoutes, type App } from '@fxdesk/core';
import pkg from '../package.json' with { type: 'json' };
import { AccountReads } from './account-reads.js';
import { describeBroker } from './broker.js';
import type { AccountConfig } from './config.js';
import type { AccountDeps } from './deps.js';
import { registerAccountRoutes } from './routes/account.js';
import { registerChangeRoutes } from './routes/changes.js';
import { registerInstrumentRoutes } from './routes/instruments.js';
import { registerSnapshotRoutes } from './routes/snapshots.js';

export interface AccountService {
  app: App;
  /** What the routes call. */
  reads: AccountReads;
}

/** Builds the account service; it does not listen (server.ts does) and does not close deps (whoever made them does). */
export async function buildApp({ config, deps }: { config: AccountConfig; deps: AccountDeps }): Promise<AccountService> {
  const key = { header: 'x-internal-api-key', key: config.INTERNAL_API_KEY };
  const app = await buildService({
    ...kitOptionsFromConfig(config),
    name: 'account',
    title: 'fxdesk account-read service',
    description:
      'Normalized, read-only access to a broker account (OANDA v20 records, from simulated, oanda, metaapi or ctrader): summary, details, instruments, snapshots and changes (spec 001 B).',
    version: pkg.version,
    securitySchemes: { internalApiKey: { type: 'apiKey', in: 'header', name: 'X-Internal-API-Key' } },
    tags: [
      { name: 'account', description: 'Read-only account data' },
      { name: 'health', description: 'Liveness and readiness' },
    ],
    logger: deps.logger,
    now: () => deps.clock.now(),
    // Spec 001 (B): every non-health route needs the key, the API pages and metrics included.
    kitRoutesAuth: key,
  });

  const reads = new AccountReads({
    broker: deps.broker,
    store: deps.store,
    clock: deps.clock,
    instrumentsCacheTtlSeconds: config.INSTRUMENTS_CACHE_TTL_SECONDS,
    brokerDescription: describeBroker(config),
  });
  registerHealthRoutes(app, {
    version: pkg.version,
    now: () => deps.clock.now(),
    checks: reads.readinessChecks(),
    // A check makes one broker call, which has its own timeout; leave it room to report it.
    timeoutMs: config.BROKER_TIMEOUT_MS + 1000,
  });

  await app.register(
    (api, _options, done) => {
      protectRoutes(api, { ...key, schemes: ['internalApiKey'] });
      registerAccountRoutes(api, reads);
      registerInstrumentRoutes(api, reads);
      registerSnapshotRoutes(api, reads);
      registerChangeRoutes(api, reads);
      done();
    },
    { prefix: '/api/v1/account' },
  );

  return { app, reads };
}
