import { buildService, kitOptionsFromConfig, registerHealthRoutes, type App } from '@fxdesk/core';
import pkg from '../package.json' with { type: 'json' };
import type { StrategyConfig } from './config.js';
import { registerConsoleAccess, SESSION_COOKIE } from './console-access.js';
import { ConsolePositions } from './console-positions.js';
import type { StrategyDeps } from './deps.js';
import type { StrategyEngine } from './engine.js';
import type { EventHub } from './event-hub.js';
import type { LabJobs } from './lab/jobs.js';
import { labDefaults } from './lab/defaults.js';
import { clientLimit, consoleReadLimit, specRateLimit } from './rate-limits.js';
import { registerConsolePositionRoutes } from './routes/console-positions.js';
import { registerConsoleReadRoutes } from './routes/console-reads.js';
import { registerSessionRoutes } from './routes/console-session.js';
import { registerControlRoutes } from './routes/control.js';
import { registerEventRoutes } from './routes/events.js';
import { registerHealthRecordRoutes } from './routes/health.js';
import { registerLabRoutes } from './routes/lab.js';
import { registerPairRoutes } from './routes/pairs.js';
import { registerRedocRoutes } from './routes/redoc.js';
import { registerRiskRoutes } from './routes/risk.js';
import { registerSignalRoutes } from './routes/signals.js';
import { registerStatusRoutes } from './routes/status.js';
import { registerTradeRoutes } from './routes/trades.js';
import { registerUiRoutes } from './routes/ui.js';

export interface StrategyService {
  app: App;
  /** Drives the pairs; tests wait for it (`whenIdle`) and read its pairs. */
  engine: StrategyEngine;
  /** The console's live events (GET /events). */
  events: EventHub;
  /** The strategy lab's jobs; tests wait for them (`whenIdle`). */
  lab: LabJobs;
}

const TITLE = 'fxdesk strategy control service';

/** Wires the strategy service's routes to its objects (deps.ts builds them); it does not listen (server.ts does) and does not close its deps. */
export async function buildApp({ config, deps }: { config: StrategyConfig; deps: StrategyDeps }): Promise<StrategyService> {
  const app = await buildService({
    ...kitOptionsFromConfig(config),
    name: 'strategy',
    title: TITLE,
    description:
      'Runs the strategy on FX pairs (Supertrend, Stochastic RSI, fair value gaps, volume profile), reports signals and starts, stops and restarts it (spec 000). ' +
      'GET endpoints share a limit of RATE_LIMIT_GET_PER_MINUTE and POST (and DELETE) endpoints one of RATE_LIMIT_POST_PER_MINUTE per client IP. The same reference rendered by Redoc: /redoc. ' +
      "The strategy lab (/backtests, /sweeps) backtests the live strategy's own code on history, under the same limits. " +
      'The console (/ui) reads /console/* and /events: with CONSOLE_PASSWORD they need a login (POST /console/login), without it they answer loopback clients only.',
    version: pkg.version,
    errorCodeCase: 'upper',
    tags: [
      { name: 'strategy', description: 'Status, start, stop, restart' },
      { name: 'pairs', description: 'Monitored pairs and their indicators' },
      { name: 'signals', description: 'Signals, latest and history' },
      { name: 'journal', description: 'The trade journal (closed trades, live and paper) and its performance (not spec 000)' },
      { name: 'risk', description: 'The desk’s risk limits, their use and the halt, and the resume of a halted account (not spec 000)' },
      { name: 'lab', description: "The strategy lab: backtests and parameter sweeps of the live strategy's code (not spec 000, under its limits)" },
      { name: 'console', description: "The console's session, live events and reads of the other services (not spec 000)" },
      { name: 'health', description: 'Health record, liveness and readiness' },
    ],
    logger: deps.logger,
    metrics: deps.metrics,
    now: () => deps.clock.now(),
  });

  const { strategy, sessions, reads, labJobs: lab, journal, risk } = deps;
  registerHealthRoutes(app, { version: pkg.version, now: () => deps.clock.now(), startedAt: strategy.startedAt, checks: strategy.readinessChecks() });

  // Spec 000's endpoints, and the lab's under the same limits: GETs on one counter per client,
  // POSTs and DELETEs on another (the probes, /metrics and the API pages are outside).
  await app.register(async (api) => {
    api.addHook('onRequest', specRateLimit(api, config));
    registerHealthRecordRoutes(api, strategy);
    registerStatusRoutes(api, strategy);
    registerPairRoutes(api, strategy);
    registerSignalRoutes(api, strategy);
    registerTradeRoutes(api, journal);
    registerRiskRoutes(api, risk);
    await registerControlRoutes(api, strategy);
    registerLabRoutes(api, lab, labDefaults(config));
  });
  registerRedocRoutes(app, TITLE);

  // The console's data: a session with CONSOLE_PASSWORD, loopback without it. Its pages (/ui) carry no data and load for anyone.
  const secureCookie = config.NODE_ENV === 'production';
  await app.register(async (api) => {
    await registerConsoleAccess(api, { sessions, secureCookie });
    api.addHook('onRequest', consoleReadLimit(api, config, SESSION_COOKIE));
    const loginLimit = clientLimit(api, { group: 'console-login', max: config.CONSOLE_LOGIN_PER_MINUTE, what: 'console login attempts' });
    registerSessionRoutes(api, { sessions, secureCookie, lifetimeMs: config.CONSOLE_SESSION_HOURS * 3_600_000, loginLimit });
    registerConsoleReadRoutes(api, reads);
    registerConsolePositionRoutes(api, new ConsolePositions({ execution: deps.execution, source: config.SIGNAL_SOURCE, liveJournal: deps.liveJournal }));
    // The desk's own reads of spec 000's records, on the console's budget rather than spec 000's.
    registerStatusRoutes(api, strategy, { prefix: '/console' });
    registerPairRoutes(api, strategy, { prefix: '/console' });
    registerSignalRoutes(api, strategy, { prefix: '/console' });
    registerTradeRoutes(api, journal, { prefix: '/console' });
    registerRiskRoutes(api, risk, { prefix: '/console' });
    await registerControlRoutes(api, strategy, { prefix: '/console' });
    registerEventRoutes(api, strategy.events);
  });
  await registerUiRoutes(app, config.CONSOLE_DIST_DIR);

  // The desk's event log is read from its newest event on before anything is told; the lab fails
  // the jobs no replica runs any more before any read answers one as running.
  app.addHook('onReady', async () => {
    await strategy.startAtBoot();
    await lab.start();
  });
  // The run stops first, before the server drains its connections: a shutdown is not a failure of
  // the services upstream, whose streams end as the whole desk stops. The event streams end before
  // it (the server would wait for them), and with them the status reads, which may be reading the
  // account service: none is left to fail once the clients close.
  app.addHook('preClose', async () => {
    strategy.events.close();
    await Promise.all([strategy.events.whenIdle(), strategy.engine.close(), lab.close()]);
  });
  // The lead is given up last, once the sends in flight are stored, so the next leader resumes only what is left.
  app.addHook('onClose', async () => {
    await strategy.dispatcher.close();
    await deps.leadership?.stop();
  });
  return { app, engine: strategy.engine, events: strategy.events, lab };
}
