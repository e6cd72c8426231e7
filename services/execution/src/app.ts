import type { TradingTerminal } from '@fxdesk/broker';
import { buildService, kitOptionsFromConfig, protectRoutes, registerHealthRoutes, type App } from '@fxdesk/core';
import type { Clock } from '@fxdesk/primitives';
import type { Logger } from 'pino';
import pkg from '../package.json' with { type: 'json' };
import { CandleReader } from './candles.js';
import type { ExecutionConfig } from './config.js';
import { SignalPipeline } from './pipeline.js';
import { registerCandleRoutes } from './routes/candles.js';
import { registerSignalRoutes } from './routes/signals.js';
import type { SignalStore } from './store.js';

export interface ExecutionDeps {
  clock: Clock;
  terminal: TradingTerminal;
  store: SignalStore;
  logger?: Logger;
  /** Call counts of the terminal by method (the simulated terminal's), exposed in /metrics. */
  terminalCalls?: () => Record<string, number>;
}

/** Builds the execution service; it does not listen (server.ts does) and does not own its deps. */
export async function buildApp({ config, deps }: { config: ExecutionConfig; deps: ExecutionDeps }): Promise<App> {
  const app = await buildService({
    ...kitOptionsFromConfig(config),
    name: 'execution',
    title: 'fxdesk order-execution service',
    description:
      'Validates trading signals, runs the broker pre-check and places orders on a MetaTrader 5 terminal, idempotently by signal_id; serves historical candles (spec 001 A).',
    version: pkg.version,
    securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' } },
    tags: [
      { name: 'signals', description: 'Submit signals and read their durable state' },
      { name: 'market data', description: 'Historical candles from the terminal' },
      { name: 'health', description: 'Liveness and readiness' },
    ],
    logger: deps.logger,
    now: () => deps.clock.now(),
  });

  const pipeline = new SignalPipeline({
    config,
    terminal: deps.terminal,
    store: deps.store,
    clock: deps.clock,
    logger: app.log as Logger,
    metrics: app.metrics,
  });

  const candles = new CandleReader({
    terminal: deps.terminal,
    allowedSymbols: config.ALLOWED_SYMBOLS,
    maxLookback: config.MAX_CANDLES_LOOKBACK,
    deadline: { clock: deps.clock, timeoutMs: config.PRE_SEND_TIMEOUT_MS, setting: 'PRE_SEND_TIMEOUT_MS' },
  });
  registerHealthRoutes(app, { version: pkg.version, now: () => deps.clock.now(), checks: pipeline.readinessChecks() });

  await app.register(async (v1) => {
    protectRoutes(v1, { header: 'x-api-key', key: config.API_KEY, schemes: ['apiKey'] });
    registerSignalRoutes(v1, pipeline);
    registerCandleRoutes(v1, candles);
  });

  registerExecutionMetrics(app, deps);
  // Close lets in-flight signals finish (and store their outcome) before the owner closes the store.
  app.addHook('preClose', async () => {
    await pipeline.whenIdle();
  });
  return app;
}

function registerExecutionMetrics(app: App, deps: ExecutionDeps): void {
  const stats = () => deps.store.commitStats;
  app.metrics.gauge('execution_store_commits', 'Group commits of the signal store since start.', () => stats().commits);
  app.metrics.gauge('execution_store_operations', 'Store operations committed since start (claims, outcomes, reads in a batch).', () => stats().operations);
  app.metrics.gauge('execution_terminal_connected', '1 when the terminal is connected.', () => (deps.terminal.isConnected() ? 1 : 0));
  const calls = deps.terminalCalls;
  if (calls) {
    app.metrics.gauge('execution_terminal_calls', 'Calls the terminal received since start, by method.', () =>
      Object.entries(calls()).map(([method, n]) => [{ method }, n]),
    );
  }
}
