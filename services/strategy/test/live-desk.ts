import { SimulatedTerminal, type SimulatedMarket } from '@fxdesk/broker';
import { ExecutionClient, type AccountClient } from '@fxdesk/client';
import type { ManualClock } from '@fxdesk/primitives';
import type { AccountSummary } from '@fxdesk/schemas';
import { API_KEY, buildTestApp } from '../../execution/test/helpers.js';
import type { MarketSource } from '../src/market-source.js';
import { SimulatedSource } from '../src/simulated-source.js';

/*
 * The live tests' shared parts: the venue a live desk trades (the real execution service, built
 * in-process on a port, over the simulated terminal), the candles it reads from the simulated
 * market its orders meet there, and that terminal's account as the account service summarises it.
 */

const MINUTE = 60_000;

/**
 * The recorded sequence the live parity tests run: 3 000 M1 closes of EUR_USD (two days) of the
 * simulated market of seed `live-parity`, its history from Monday 2026-01-05 00:00 UTC, the live
 * run WARMUP minutes later.
 */
export const RECORDED = {
  seed: 'live-parity',
  instrument: 'EUR_USD',
  symbol: 'EURUSD',
  digits: 5,
  warmup: 300,
  closes: 3000,
  historyFrom: Date.UTC(2026, 0, 5),
} as const;

/**
 * The market's closed candles as the desk reads them, the mid of each bid bar and its spread
 * (midOfBid: every tick of a simulated minute has the minute's spread, so an M1 candle's bid and
 * ask are the venue's, tick for tick), and no quote stream (the test delivers each close).
 */
export function barSource(market: SimulatedMarket): MarketSource {
  const bars = new SimulatedSource(market);
  return {
    name: 'simulated',
    catalog: () => bars.catalog(),
    closedCandles: (symbol, timeframe, count) => bars.closedCandles(symbol, timeframe, count),
    subscribe: () => ({ close: () => {} }),
    rate: (from, to) => market.rate(from, to),
    close: async () => {},
  };
}

/**
 * The instant of the first tick of `symbol` at or after `ms`: where a close decided at the candle
 * boundary `ms` meets the venue, as an order sent then meets the next price (the next candle's open).
 */
export function openTickOf(market: SimulatedMarket, symbol: string, ms: number): number {
  const tick = market.ticksBetween(symbol, ms, ms + MINUTE)[0];
  if (!tick) throw new Error(`no ${symbol} tick in the minute from ${new Date(ms).toISOString()}`);
  return tick.time;
}

/** The simulated terminal on `market` (100 000 USD) behind the execution service on `clock`, and a client of it. */
export async function simulatedVenue(market: SimulatedMarket, clock: ManualClock) {
  const terminal = new SimulatedTerminal({ market, balance: '100000' });
  await terminal.connect();
  const execution = await buildTestApp({ terminal, clock });
  const client = new ExecutionClient({ baseUrl: await execution.app.listen({ host: '127.0.0.1', port: 0 }), apiKey: API_KEY, timeoutMs: 60_000 });
  return {
    terminal,
    client,
    async close() {
      await client.close();
      await execution.app.close();
      await terminal.close();
    },
  };
}

/** The account service's summary of the simulated terminal's account (its equity the live book marks). */
export function terminalAccount(terminal: SimulatedTerminal): AccountClient {
  const summary = async (): Promise<AccountSummary> => {
    const a = await terminal.accountInfo();
    const money = (v: number) => v.toFixed(4);
    return {
      id: 'simulated',
      alias: null,
      currency: a.currency,
      balance: money(a.balance),
      nav: money(a.equity),
      unrealizedPL: money(a.equity - a.balance),
      realizedPL: money(0),
      marginUsed: money(a.margin),
      marginAvailable: money(a.marginFree),
      marginRate: '0.0333',
      openTradeCount: 0,
      openPositionCount: 0,
      pendingOrderCount: 0,
      lastTransactionId: '0',
      asOf: new Date().toISOString(),
    };
  };
  return { summary, close: async () => {} } as unknown as AccountClient;
}
