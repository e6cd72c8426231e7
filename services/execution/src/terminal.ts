import { SimulatedMarket, SimulatedTerminal, type TradingTerminal } from '@fxdesk/broker';
import type { Clock } from '@fxdesk/core';
import type { ExecutionConfig } from './config.js';

export interface TerminalHandle {
  terminal: TradingTerminal;
  /** Calls the terminal received, by method, for /metrics. */
  calls: () => Record<string, number>;
}

/**
 * The terminal BROKER names. Only the embedded simulated MT5 terminal exists so far (the
 * config refuses any other BROKER); it shares the service's clock and the desk's SIM_SEED, so
 * its prices agree with every other service's simulated market.
 */
export function createTerminal(config: ExecutionConfig, clock: Clock): TerminalHandle {
  const market = new SimulatedMarket({ seed: config.SIM_SEED, tickIntervalMs: config.SIM_TICK_INTERVAL_MS, marketHours: config.SIM_MARKET_HOURS, clock });
  const terminal = new SimulatedTerminal({ market, balance: config.SIM_STARTING_BALANCE, faults: config.SIM_TERMINAL_FAULTS ?? [] });
  const { stats } = terminal;
  return {
    terminal,
    calls: () => ({
      orderSend: stats.orderSendCalls,
      orderCheck: stats.orderCheckCalls,
      symbolInfo: stats.symbolInfoCalls,
      tick: stats.tickCalls,
      rates: stats.ratesCalls,
      findByComment: stats.findByCommentCalls,
    }),
  };
}
