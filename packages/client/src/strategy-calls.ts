import {
  AccountSummaryReadSchema,
  ActionAnswerSchema,
  BacktestEquitySchema,
  BacktestListSchema,
  BacktestSchema,
  BacktestTradesSchema,
  ClosePositionsAnswerSchema,
  ConsoleServicesSchema,
  ConsoleSessionSchema,
  DeliveryListSchema,
  JournalPageSchema,
  LabDefaultsSchema,
  LabJobCreatedSchema,
  LatestSignalResponseSchema,
  OpenPositionListSchema,
  PairCandlesSchema,
  PairsResponseSchema,
  PerformanceSchema,
  RestartResponseSchema,
  RiskReportSchema,
  RiskResumeResponseSchema,
  SignalHistorySchema,
  SignalListSchema,
  SignalRecordSchema,
  StartResponseSchema,
  StopResponseSchema,
  StrategyHealthSchema,
  StrategyStatusSchema,
  SweepListSchema,
  SweepSchema,
} from '@fxdesk/schemas';
import type { ServiceCall } from './service-call.js';

/**
 * Each call of the strategy service, as its OpenAPI document names it, with the schema its answer
 * is checked with (the one the service serializes it with): those StrategyClient makes, and the
 * console's (its session, and its `/console` copies of spec 000's reads and controls, on the
 * console's own budget behind its session cookie). GET /health also answers 503 with the same
 * record when the strategy is unhealthy; the client reads that one too. This module needs no Node:
 * the console imports it as `@fxdesk/client/strategy-calls`.
 */
export const strategyCalls = {
  health: { method: 'GET', path: '/health', status: 200, schema: StrategyHealthSchema },
  status: { method: 'GET', path: '/status', status: 200, schema: StrategyStatusSchema },
  pairs: { method: 'GET', path: '/pairs', status: 200, schema: PairsResponseSchema },
  pairCandles: { method: 'GET', path: '/pairs/{instrument}/candles', status: 200, schema: PairCandlesSchema },
  latestSignal: { method: 'GET', path: '/signals/{instrument}', status: 200, schema: LatestSignalResponseSchema },
  signals: { method: 'GET', path: '/signals', status: 200, schema: SignalHistorySchema },
  start: { method: 'POST', path: '/start', status: 200, schema: StartResponseSchema },
  stop: { method: 'POST', path: '/stop', status: 200, schema: StopResponseSchema },
  restart: { method: 'POST', path: '/restart', status: 200, schema: RestartResponseSchema },
  // The desk's risk limits and halt (issue 24).
  risk: { method: 'GET', path: '/risk', status: 200, schema: RiskReportSchema },
  resumeRisk: { method: 'POST', path: '/risk/resume', status: 200, schema: RiskResumeResponseSchema },
  // The strategy lab.
  labDefaults: { method: 'GET', path: '/lab/defaults', status: 200, schema: LabDefaultsSchema },
  submitBacktest: { method: 'POST', path: '/backtests', status: 202, schema: LabJobCreatedSchema },
  backtests: { method: 'GET', path: '/backtests', status: 200, schema: BacktestListSchema },
  backtest: { method: 'GET', path: '/backtests/{id}', status: 200, schema: BacktestSchema },
  backtestTrades: { method: 'GET', path: '/backtests/{id}/trades', status: 200, schema: BacktestTradesSchema },
  backtestEquity: { method: 'GET', path: '/backtests/{id}/equity', status: 200, schema: BacktestEquitySchema },
  backtestCandles: { method: 'GET', path: '/backtests/{id}/candles', status: 200, schema: PairCandlesSchema },
  deleteBacktest: { method: 'DELETE', path: '/backtests/{id}', status: 200, schema: BacktestSchema },
  submitSweep: { method: 'POST', path: '/sweeps', status: 202, schema: LabJobCreatedSchema },
  sweeps: { method: 'GET', path: '/sweeps', status: 200, schema: SweepListSchema },
  sweep: { method: 'GET', path: '/sweeps/{id}', status: 200, schema: SweepSchema },
  deleteSweep: { method: 'DELETE', path: '/sweeps/{id}', status: 200, schema: SweepSchema },
  // The console's session.
  consoleSession: { method: 'GET', path: '/console/session', status: 200, schema: ConsoleSessionSchema },
  consoleLogin: { method: 'POST', path: '/console/login', status: 200, schema: ConsoleSessionSchema },
  consoleLogout: { method: 'POST', path: '/console/logout', status: 200, schema: ConsoleSessionSchema },
  // The console's copies of spec 000's reads and controls.
  consoleStatus: { method: 'GET', path: '/console/status', status: 200, schema: StrategyStatusSchema },
  consolePairs: { method: 'GET', path: '/console/pairs', status: 200, schema: PairsResponseSchema },
  consolePairCandles: { method: 'GET', path: '/console/pairs/{instrument}/candles', status: 200, schema: PairCandlesSchema },
  consoleSignals: { method: 'GET', path: '/console/signals', status: 200, schema: SignalHistorySchema },
  consoleStart: { method: 'POST', path: '/console/start', status: 200, schema: StartResponseSchema },
  consoleStop: { method: 'POST', path: '/console/stop', status: 200, schema: StopResponseSchema },
  consoleRestart: { method: 'POST', path: '/console/restart', status: 200, schema: RestartResponseSchema },
  // The trade journal (its CSV, `?format=csv`, is a download link, not a call).
  consoleTrades: { method: 'GET', path: '/console/trades', status: 200, schema: JournalPageSchema },
  consolePerformance: { method: 'GET', path: '/console/performance', status: 200, schema: PerformanceSchema },
  // The desk's risk: the limits, their use and the halt; the resume needs a person's confirmation on the console.
  consoleRisk: { method: 'GET', path: '/console/risk', status: 200, schema: RiskReportSchema },
  consoleResumeRisk: { method: 'POST', path: '/console/risk/resume', status: 200, schema: RiskResumeResponseSchema },
  // The console's reads through the strategy of the other services (with the strategy's keys).
  consoleServices: { method: 'GET', path: '/console/services', status: 200, schema: ConsoleServicesSchema },
  consoleAccount: { method: 'GET', path: '/console/account', status: 200, schema: AccountSummaryReadSchema },
  consoleOrders: { method: 'GET', path: '/console/orders', status: 200, schema: SignalListSchema },
  consoleOrder: { method: 'GET', path: '/console/orders/{signal_id}', status: 200, schema: SignalRecordSchema },
  consoleDeliveries: { method: 'GET', path: '/console/deliveries', status: 200, schema: DeliveryListSchema },
  // The strategy's positions at the execution service; the actions need an Idempotency-Key header.
  consolePositions: { method: 'GET', path: '/console/positions', status: 200, schema: OpenPositionListSchema },
  consoleClosePosition: { method: 'POST', path: '/console/positions/{ticket}/close', status: 200, schema: ActionAnswerSchema },
  consoleCloseAll: { method: 'POST', path: '/console/positions/close-all', status: 200, schema: ClosePositionsAnswerSchema },
} as const satisfies Record<string, ServiceCall>;
