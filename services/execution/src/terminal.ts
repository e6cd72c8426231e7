import {
  isBrokerError,
  metaApiClientUrl,
  MetaApiTerminal,
  SimulatedMarket,
  SimulatedTerminal,
  type SimulatedTerminalStore,
  type TerminalCallStats,
  type TradingTerminal,
} from '@fxdesk/broker';
import type { Clock } from '@fxdesk/primitives';
import type { Logger } from 'pino';
import type { ExecutionConfig } from './config.js';

export interface TerminalHandle {
  terminal: TradingTerminal;
  /** Calls the terminal received, by method, for /metrics. */
  calls: () => Record<string, number>;
}

function callsOf(stats: TerminalCallStats): () => Record<string, number> {
  return () => ({
    orderSend: stats.orderSendCalls,
    orderCheck: stats.orderCheckCalls,
    symbolInfo: stats.symbolInfoCalls,
    tick: stats.tickCalls,
    rates: stats.ratesCalls,
    findByComment: stats.findByCommentCalls,
    positions: stats.positionsCalls,
    orders: stats.ordersCalls,
    closePosition: stats.closePositionCalls,
    modifyPosition: stats.modifyPositionCalls,
    cancelOrder: stats.cancelOrderCalls,
    deals: stats.dealsCalls,
  });
}

/**
 * The terminal BROKER names: the embedded simulated MT5 terminal (sharing the service's clock
 * and the desk's SIM_SEED, so its prices agree with every other service's simulated market; its
 * account kept in `simulatedStore`, in memory without one), or a real MT5 account through
 * MetaApi. The config refuses any other BROKER.
 */
export function createTerminal(config: ExecutionConfig, clock: Clock, simulatedStore?: SimulatedTerminalStore): TerminalHandle {
  if (config.BROKER === 'metaapi') {
    const terminal = new MetaApiTerminal({
      token: config.METAAPI_TOKEN as string,
      accountId: config.METAAPI_ACCOUNT_ID as string,
      region: config.METAAPI_REGION,
      baseUrl: config.METAAPI_BASE_URL,
      marketDataBaseUrl: config.METAAPI_MARKET_DATA_BASE_URL,
      timeoutMs: config.METAAPI_TIMEOUT_MS,
      tradeTimeoutMs: config.METAAPI_TRADE_TIMEOUT_MS,
      healthIntervalMs: config.METAAPI_HEALTH_INTERVAL_MS,
      historyLookbackMs: config.METAAPI_HISTORY_LOOKBACK_HOURS * 3_600_000,
      clock,
    });
    return { terminal, calls: callsOf(terminal.stats) };
  }
  const market = new SimulatedMarket({ seed: config.SIM_SEED, tickIntervalMs: config.SIM_TICK_INTERVAL_MS, marketHours: config.SIM_MARKET_HOURS, clock });
  const terminal = new SimulatedTerminal({
    market,
    balance: config.SIM_STARTING_BALANCE,
    faults: config.SIM_TERMINAL_FAULTS ?? [],
    store: simulatedStore,
  });
  return { terminal, calls: callsOf(terminal.stats) };
}

/** One line naming the terminal for the start-up log; never a credential. */
export function describeTerminal(config: ExecutionConfig): string {
  if (config.BROKER === 'metaapi') return `metaapi (account ${config.METAAPI_ACCOUNT_ID}, ${metaApiClientUrl(config.METAAPI_REGION, config.METAAPI_BASE_URL)})`;
  return `simulated (seed ${config.SIM_SEED})`;
}

/**
 * Connects the terminal at start-up. Credentials MetaApi refuses, or an account it does not
 * know, stop the service; a terminal that is merely unreachable now leaves the service running
 * and not ready (503) until its health probe finds it.
 */
export async function connectTerminal(terminal: TradingTerminal, logger: Logger): Promise<void> {
  try {
    await terminal.connect();
  } catch (err) {
    if (isBrokerError(err) && (err.kind === 'unauthorized' || err.kind === 'not_found')) throw err;
    logger.warn({ err }, `the ${terminal.name} terminal is not reachable yet; not ready until it is`);
  }
}
