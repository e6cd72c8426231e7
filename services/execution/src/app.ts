import { buildService, kitOptionsFromConfig, protectRoutes, registerHealthRoutes, type App } from '@fxdesk/core';
import type { Logger } from 'pino';
import pkg from '../package.json' with { type: 'json' };
import { PositionActions } from './actions.js';
import { BookReads } from './book.js';
import { CandleReader } from './candles.js';
import { DealHistory } from './deals.js';
import type { ExecutionConfig } from './config.js';
import type { ExecutionDeps } from './deps.js';
import { registerExecutionMetrics } from './metrics.js';
import { SignalPipeline } from './pipeline.js';
import { recoverInterruptedSignals, sweepAbandonedClaims } from './recovery.js';
import { registerActionRoutes } from './routes/actions.js';
import { registerBookRoutes } from './routes/book.js';
import { registerCandleRoutes } from './routes/candles.js';
import { registerDealRoutes } from './routes/deals.js';
import { registerSignalRoutes } from './routes/signals.js';
import { registerSymbolRoutes } from './routes/symbols.js';
import { SymbolTermsReader } from './symbol-terms.js';

export interface ExecutionService {
  app: App;
}

/** Builds the execution service; it does not listen (server.ts does) and does not close its deps. */
export async function buildApp({ config, deps }: { config: ExecutionConfig; deps: ExecutionDeps }): Promise<ExecutionService> {
  const { clock, terminal, store } = deps;
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
      { name: 'positions', description: 'Open positions and resting orders, the actions on them, and the deals of the history' },
      { name: 'market data', description: 'Historical candles and symbol terms from the terminal' },
      { name: 'health', description: 'Liveness and readiness' },
    ],
    logger: deps.logger,
    now: () => clock.now(),
  });
  const logger = app.log as Logger;

  const pipeline = new SignalPipeline({ config, terminal, store, clock, logger, metrics: app.metrics });
  // Reads that cannot trade (candles, the book, deals) are bounded as the calls before order_send are.
  const readDeadline = { clock, timeoutMs: config.PRE_SEND_TIMEOUT_MS, setting: 'PRE_SEND_TIMEOUT_MS' };
  const candles = new CandleReader({
    terminal,
    allowedSymbols: config.ALLOWED_SYMBOLS,
    maxLookback: config.MAX_CANDLES_LOOKBACK,
    deadline: readDeadline,
  });
  const book = new BookReads(terminal, readDeadline);
  const deals = new DealHistory(terminal, readDeadline);
  const symbols = new SymbolTermsReader(terminal, config.ALLOWED_SYMBOLS, readDeadline, config.MAXIMUM_VOLUME);
  const actions = new PositionActions({ config, terminal, store: store.actions, book, clock, logger, readiness: () => pipeline.readiness() });
  registerHealthRoutes(app, { version: pkg.version, now: () => clock.now(), checks: pipeline.readinessChecks() });

  await app.register((v1, _options, done) => {
    protectRoutes(v1, { header: 'x-api-key', key: config.API_KEY, schemes: ['apiKey'] });
    registerSignalRoutes(v1, pipeline);
    registerCandleRoutes(v1, candles);
    registerBookRoutes(v1, book);
    registerActionRoutes(v1, actions);
    registerDealRoutes(v1, deals);
    registerSymbolRoutes(v1, symbols);
    done();
  });

  registerExecutionMetrics(app.metrics, deps);
  // Signals this replica left `processing` when it stopped become `unknown` before the service
  // listens; while it runs, so do other replicas' claims past their lease.
  const recovery = { terminal, store, clock, logger, magic: config.MAGIC_NUMBER };
  let stopSweep = () => {};
  app.addHook('onReady', async () => {
    await recoverInterruptedSignals(recovery, { includeOwn: true });
    stopSweep = sweepAbandonedClaims(recovery);
  });
  // Close lets in-flight signals and actions finish (and store their outcome) before the owner closes the deps.
  app.addHook('preClose', () => {
    stopSweep();
    return Promise.all([pipeline.whenIdle(), actions.whenIdle()]).then(() => undefined);
  });
  return { app };
}
