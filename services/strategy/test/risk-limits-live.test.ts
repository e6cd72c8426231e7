import { SimulatedMarket, SimulatedTerminal } from '@fxdesk/broker';
import { ExecutionClient, ServiceError, type AccountClient } from '@fxdesk/client';
import { ManualClock } from '@fxdesk/primitives';
import type { AccountSummary, StrategySignal } from '@fxdesk/schemas';
import { describe, expect, it } from 'vitest';
import { API_KEY, buildTestApp } from '../../execution/test/helpers.js';
import type { MarketCandle, MarketSource } from '../src/market-source.js';
import { SimulatedSource } from '../src/simulated-source.js';
import { allSignals } from './recorded-desk.js';
import { harness } from './helpers.js';
import { baseEnv, CLOSES, FROM, LIMITS, MINUTE, WARMUP } from './risk-limits.fixture.js';

/* Each limit on its own refuses on a live run whose orders go through the execution service to the simulated terminal: a refused signal sends no order. */

/** A bar of bid prices as the mid candle the strategy reads (live-parity.test.ts: an M1 bar plus half its spread). */
function midOf(candle: MarketCandle): MarketCandle {
  const half = (candle.spread ?? 0) / 2;
  return { ...candle, open: candle.open + half, high: candle.high + half, low: candle.low + half, close: candle.close + half };
}

/** The account service's summary of the simulated terminal's account (its equity the live book marks). */
function terminalAccount(terminal: SimulatedTerminal): AccountClient {
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

/** A live run of `env` over CLOSES M1 closes of the simulated market, its orders through the execution service to the simulated terminal. */
async function runLive(env: Record<string, string>): Promise<{ signals: StrategySignal[]; unknownToVenue: Set<string> }> {
  const startMs = FROM + WARMUP * MINUTE;
  const clock = new ManualClock(startMs);
  const market = new SimulatedMarket({ seed: 'risk-limits', tickIntervalMs: 1000, marketHours: false, clock });
  const terminal = new SimulatedTerminal({ market, balance: '100000' });
  await terminal.connect();
  const execution = await buildTestApp({ terminal, clock });
  const client = new ExecutionClient({ baseUrl: await execution.app.listen({ host: '127.0.0.1', port: 0 }), apiKey: API_KEY, timeoutMs: 60_000 });
  const bars = new SimulatedSource(market);
  const source: MarketSource = {
    name: 'simulated',
    catalog: () => bars.catalog(),
    closedCandles: async (symbol, timeframe, count) => (await bars.closedCandles(symbol, timeframe, count)).map(midOf),
    subscribe: () => ({ close: () => {} }),
    rate: (from, to) => market.rate(from, to),
    close: async () => {},
  };
  const h = await harness({ clock, env: { ACCOUNT_REFRESH_SECONDS: '0', ...env }, deps: { source, execution: client, account: terminalAccount(terminal) } });
  const unknownToVenue = new Set<string>();
  try {
    expect((await h.app.inject({ method: 'POST', url: '/start', payload: { dry_run: false } })).statusCode).toBe(200);
    await h.settle();
    for (let i = 0; i < CLOSES; i++) await h.advance(MINUTE);
    const signals = await allSignals(h);
    // The execution service never heard of a skipped signal.
    for (const s of signals.filter((x) => x.execution.status === 'skipped')) {
      const isUnknown = await client.signal(s.signal_id).then(
        () => false,
        (err: unknown) => err instanceof ServiceError && err.status === 404,
      );
      if (isUnknown) unknownToVenue.add(s.signal_id);
    }
    return { signals, unknownToVenue };
  } finally {
    await h.close();
    await client.close();
    await execution.app.close();
    await terminal.close();
  }
}

describe('each limit refuses live, on the simulated terminal', () => {
  for (const limit of LIMITS) {
    it(`${limit.code}: a live run skips signals with it and sends them no order`, async () => {
      const { signals, unknownToVenue } = await runLive({ ...baseEnv(limit.instruments), ...limit.env });
      const skipped = signals.filter((s) => s.execution.status === 'skipped' && s.execution.code === limit.code);
      expect(skipped.length).toBeGreaterThan(0);
      for (const s of skipped) expect(unknownToVenue.has(s.signal_id), s.signal_id).toBe(true);
      expect(signals.some((s) => s.execution.status === 'filled')).toBe(true);
    }, 120_000);
  }
});
