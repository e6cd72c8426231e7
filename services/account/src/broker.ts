import { describeVenue, isRealVenue, openVenue, SimulatedAccount, SimulatedMarket, type AccountReader } from '@fxdesk/broker';
import { ExecutionClient } from '@fxdesk/client';
import type { Clock } from '@fxdesk/primitives';
import type { AccountConfig } from './config.js';
import { ExecutionAccount } from './execution-account.js';

export interface BrokerAccount {
  reader: AccountReader;
  /** Closes the reader and what it runs on (a venue session it shares with nothing else here). */
  close: () => Promise<void>;
}

/**
 * The account BROKER names: a real venue's reader (OANDA v20, MetaApi, cTrader) built from its
 * settings by the broker's `openVenue`, every read within BROKER_TIMEOUT_MS; else the simulated
 * venue's account.
 */
export function createAccountReader(config: AccountConfig, clock: Clock): BrokerAccount {
  if (isRealVenue(config.BROKER)) {
    const venue = openVenue(config.BROKER, config, { clock, dataDir: config.DATA_DIR, timeoutMs: config.BROKER_TIMEOUT_MS });
    return { reader: venue.accountReader(), close: () => venue.close() };
  }
  const reader = simulatedAccountReader(config, clock);
  return { reader, close: () => reader.close() };
}

/** The simulated venue's account: the execution service's terminal's with EXECUTION_URL, else one of its own. */
function simulatedAccountReader(config: AccountConfig, clock: Clock): AccountReader {
  // The same seed and settings as the other services, so positions are marked to the prices they see.
  const market = new SimulatedMarket({
    seed: config.SIM_SEED,
    tickIntervalMs: config.SIM_TICK_INTERVAL_MS,
    marketHours: config.SIM_MARKET_HOURS,
    clock,
  });
  if (config.EXECUTION_URL !== undefined) {
    // The simulated venue is one account: the one the execution service's terminal trades.
    const client = new ExecutionClient({ baseUrl: config.EXECUTION_URL, apiKey: config.EXECUTION_API_KEY, timeoutMs: config.BROKER_TIMEOUT_MS });
    return new ExecutionAccount({ client, clock, symbols: market.symbols().map((s) => s.symbol) });
  }
  return new SimulatedAccount({ market, balance: config.SIM_ACCOUNT_BALANCE, currency: config.SIM_ACCOUNT_CURRENCY });
}

/** One line naming the broker for readiness; never a credential. */
export function describeBroker(config: AccountConfig): string {
  if (isRealVenue(config.BROKER)) return describeVenue(config.BROKER, config);
  if (config.EXECUTION_URL !== undefined) return `simulated venue: the execution service's terminal (${config.EXECUTION_URL})`;
  return `own simulated (no EXECUTION_URL: not the execution service's; ${config.SIM_ACCOUNT_BALANCE} ${config.SIM_ACCOUNT_CURRENCY}, seed ${config.SIM_SEED})`;
}
