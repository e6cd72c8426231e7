import type { AccountClient, ExecutionClient, NotificationClient } from '@fxdesk/client';
import { buildService, kitOptionsFromConfig, registerHealthRoutes, type App } from '@fxdesk/core';
import type { Clock } from '@fxdesk/primitives';
import type { Logger } from 'pino';
import pkg from '../package.json' with { type: 'json' };
import { AccountView } from './account-view.js';
import type { StrategyConfig } from './config.js';
import { DownstreamHealth } from './downstream.js';
import { StrategyEngine } from './engine.js';
import type { MarketSource } from './market-source.js';
import { PaperAccount } from './paper-account.js';
import { createRateLimitHooks } from './rate-limits.js';
import { registerControlRoutes } from './routes/control.js';
import { registerHealthRoute } from './routes/health.js';
import { registerPairRoutes } from './routes/pairs.js';
import { registerRedocRoutes } from './routes/redoc.js';
import { registerSignalRoutes } from './routes/signals.js';
import { registerStatusRoute } from './routes/status.js';
import { SignalDispatcher } from './signal-dispatch.js';
import type { StrategyStore } from './store.js';

export interface StrategyDeps {
  clock: Clock;
  logger?: Logger;
  store: StrategyStore;
  /** Candles and quotes: the market-data service, or the in-process simulated market. */
  source: MarketSource;
  /** Set with EXECUTION_URL: orders of signals started with dry_run false. */
  execution?: ExecutionClient;
  /** Set with NOTIFICATION_URL: each signal is announced. */
  notification?: NotificationClient;
  /** Set with ACCOUNT_URL: status.account. */
  account?: AccountClient;
}

/** The parts behind an app, for tests: drive the engine, wait for it, read the store. */
export interface StrategyInternals {
  engine: StrategyEngine;
  dispatcher: SignalDispatcher;
  health: DownstreamHealth;
}

const internalsByApp = new WeakMap<App, StrategyInternals>();

export function strategyOf(app: App): StrategyInternals {
  const internals = internalsByApp.get(app);
  if (!internals) throw new Error('not a strategy app');
  return internals;
}

const TITLE = 'fxdesk strategy control service';

/** Builds the strategy service; it does not listen (server.ts does) and does not close its deps. */
export async function buildApp({ config, deps }: { config: StrategyConfig; deps: StrategyDeps }): Promise<App> {
  const { clock, store, source } = deps;
  const startedAt = clock.now();
  const app = await buildService({
    ...kitOptionsFromConfig(config),
    name: 'strategy',
    title: TITLE,
    description:
      'Runs the strategy on FX pairs (Supertrend, Stochastic RSI, fair value gaps, volume profile), reports signals and starts, stops and restarts it (spec 000). ' +
      'GET endpoints share a limit of RATE_LIMIT_GET_PER_MINUTE and POST endpoints one of RATE_LIMIT_POST_PER_MINUTE per client IP. The same reference rendered by Redoc: /redoc.',
    version: pkg.version,
    errorCodeCase: 'upper',
    tags: [
      { name: 'strategy', description: 'Status, start, stop, restart' },
      { name: 'pairs', description: 'Monitored pairs and their indicators' },
      { name: 'signals', description: 'Signals, latest and history' },
      { name: 'health', description: 'Health record, liveness and readiness' },
    ],
    logger: deps.logger,
    now: () => clock.now(),
  });
  const logger = app.log as Logger;
  const health = new DownstreamHealth(
    { market_data: source.name === 'market-data', execution: !!deps.execution, account: !!deps.account, notification: !!deps.notification },
    clock,
    logger,
    app.metrics,
  );
  const paper = new PaperAccount({
    store,
    clock,
    startBalance: config.PAPER_BALANCE,
    leverage: config.PAPER_LEVERAGE,
    volumeLots: Number(config.TRADE_VOLUME),
    rate: (from, to) => source.rate(from, to),
  });
  const dispatcher = new SignalDispatcher({
    store,
    clock,
    logger,
    health,
    execution: deps.execution,
    notification: deps.notification,
    retries: config.DOWNSTREAM_RETRIES,
    volume: config.TRADE_VOLUME,
    source: config.SIGNAL_SOURCE,
    channels: config.NOTIFICATION_CHANNELS,
  });
  const engine = new StrategyEngine({ config, clock, logger, metrics: app.metrics, source, store, dispatcher, paper, health });
  const account = new AccountView({
    client: deps.account,
    health,
    clock,
    refreshMs: config.ACCOUNT_REFRESH_SECONDS * 1000,
    paper: () => paper.snapshot((instrument) => engine.pair(instrument)?.currentPrice ?? null),
  });
  internalsByApp.set(app, { engine, dispatcher, health });

  const limits = createRateLimitHooks(app, { getPerMinute: config.RATE_LIMIT_GET_PER_MINUTE, postPerMinute: config.RATE_LIMIT_POST_PER_MINUTE });
  registerHealthRoutes(app, {
    version: pkg.version,
    now: () => clock.now(),
    startedAt,
    checks: {
      database: () => {
        store.ping();
        return { ok: true, detail: 'signal database answers' };
      },
    },
  });
  registerHealthRoute(app, { store, clock, startedAt, version: pkg.version, limits });
  registerStatusRoute(app, { config, clock, engine, store, account, paper, health, limits });
  registerPairRoutes(app, { engine, timeframe: config.TIMEFRAME, chartCandles: config.CHART_CANDLES, limits });
  registerSignalRoutes(app, { engine, store, limits });
  await registerControlRoutes(app, { engine, clock, limits });
  registerRedocRoutes(app, TITLE);

  app.addHook('onReady', async () => {
    const resumed = dispatcher.resumeUnfinished();
    if (resumed > 0) logger.info({ signals: resumed }, 'sending signals a previous run left unsent');
    startAtBoot(engine, { resume: config.RESUME_ON_START, autoStart: config.AUTO_START }, logger);
  });
  // The run stops first, before the server drains its connections: a shutdown is not a failure of
  // the services upstream, whose streams end as the whole desk stops.
  app.addHook('preClose', async () => {
    await engine.close();
  });
  app.addHook('onClose', async () => {
    await dispatcher.close();
  });
  return app;
}

/**
 * Resumes the run the previous process left running, or auto-starts a fresh desk, in the
 * background: the app answers at once and the pairs warm up as after a POST /start. A failure
 * is logged; POST /start still works.
 */
function startAtBoot(engine: StrategyEngine, options: { resume: boolean; autoStart: boolean }, logger: Logger): void {
  engine.startAtBoot(options).then(
    (how) => {
      if (how === 'resumed') logger.info({ ...engine.state }, 'resumed the strategy that was running before the restart');
      if (how === 'started') logger.info({ ...engine.state }, 'started the strategy by itself (AUTO_START); POST /stop stops it');
    },
    (err: unknown) => logger.error({ err }, 'could not start the strategy at boot; POST /start to start it'),
  );
}
