import { OandaAccountReader, oandaBaseUrl, SimulatedAccount, SimulatedMarket, type AccountReader } from '@fxdesk/broker';
import { ExecutionClient } from '@fxdesk/client';
import type { Clock } from '@fxdesk/primitives';
import type { AccountConfig } from './config.js';
import { ExecutionAccount } from './execution-account.js';

/** The account reader BROKER names, built from its settings. */
export function createAccountReader(config: AccountConfig, clock: Clock): AccountReader {
  if (config.BROKER === 'oanda') {
    return new OandaAccountReader({
      token: config.OANDA_API_TOKEN as string,
      accountId: config.OANDA_ACCOUNT_ID as string,
      environment: config.OANDA_ENVIRONMENT,
      baseUrl: config.OANDA_BASE_URL,
      timeoutMs: config.BROKER_TIMEOUT_MS,
      requestsPerSecond: config.OANDA_REQUESTS_PER_SECOND,
      clock,
    });
  }
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
  if (config.BROKER === 'oanda') return `oanda (${config.OANDA_ENVIRONMENT}, ${oandaBaseUrl(config.OANDA_ENVIRONMENT, config.OANDA_BASE_URL)})`;
  if (config.EXECUTION_URL !== undefined) return `simulated venue: the execution service's terminal (${config.EXECUTION_URL})`;
  return `own simulated (no EXECUTION_URL: not the execution service's; ${config.SIM_ACCOUNT_BALANCE} ${config.SIM_ACCOUNT_CURRENCY}, seed ${config.SIM_SEED})`;
}
