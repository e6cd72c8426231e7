import {
  describeVenue,
  isBrokerError,
  isRealVenue,
  openVenue,
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
  /** Closes the terminal and what it runs on (a venue session it shares with nothing else here). */
  close: () => Promise<void>;
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
 * account kept in `simulatedStore`, in memory without one), or a real venue's (OANDA v20,
 * MetaApi, cTrader) built from its settings by the broker's `openVenue`.
 */
export function createTerminal(config: ExecutionConfig, clock: Clock, simulatedStore?: SimulatedTerminalStore): TerminalHandle {
  if (isRealVenue(config.BROKER)) {
    const venue = openVenue(config.BROKER, config, { clock, dataDir: config.DATA_DIR });
    const terminal = venue.terminal();
    return { terminal, calls: callsOf(terminal.stats), close: () => venue.close() };
  }
  const market = new SimulatedMarket({ seed: config.SIM_SEED, tickIntervalMs: config.SIM_TICK_INTERVAL_MS, marketHours: config.SIM_MARKET_HOURS, clock });
  const terminal = new SimulatedTerminal({
    market,
    balance: config.SIM_STARTING_BALANCE,
    faults: config.SIM_TERMINAL_FAULTS ?? [],
    store: simulatedStore,
  });
  return { terminal, calls: callsOf(terminal.stats), close: () => terminal.close() };
}

/** One line naming the terminal for the start-up log; never a credential. */
export function describeTerminal(config: ExecutionConfig): string {
  if (isRealVenue(config.BROKER)) return describeVenue(config.BROKER, config);
  return `simulated (seed ${config.SIM_SEED})`;
}

/**
 * Connects the terminal at start-up. Credentials the venue refuses, or an account it does not
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
