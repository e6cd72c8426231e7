import { SimulatedMarket, SimulatedTerminal } from '@fxdesk/broker';
import { ExecutionClient, ServiceError, type AccountClient } from '@fxdesk/client';
import { ManualClock } from '@fxdesk/primitives';
import type { AccountSummary, StrategySignal } from '@fxdesk/schemas';
import { describe, expect, it } from 'vitest';
import { API_KEY, buildTestApp } from '../../execution/test/helpers.js';
import type { MarketCandle, MarketSource } from '../src/market-source.js';
import { simulatedTermsOf } from '../src/paper-account.js';
import { SimulatedSource } from '../src/simulated-source.js';
import { simulatedCandles } from './lab-fixtures.js';
import { allSignals, deskBacktest, recordedSource } from './recorded-desk.js';
import { harness, testConfig } from './helpers.js';

/*
 * Issue 24's "each limit has a test that it refuses in live (simulated terminal), in paper and in
 * the lab": each limit on its own, over recorded M1 candles, refuses signals on the paper account
 * exactly as the lab does (pair by pair, reason by reason), and refuses on a live run whose orders
 * go through the execution service to the simulated terminal (a refused signal sends no order).
 */

const MINUTE = 60_000;
const WARMUP = 300;
const CLOSES = 1200;
const FROM = Date.UTC(2026, 0, 5);
const THREE = ['EUR_USD', 'GBP_USD', 'USD_JPY'];
const CODES = [
  'max_open_trades',
  'currency_exposure',
  'cooldown',
  'daily_loss_limit',
  'max_drawdown',
  'volume_rounds_to_zero',
  'volume_below_minimum',
] as const;

const LIMITS: Array<{ code: (typeof CODES)[number]; instruments: string[]; env: Record<string, string> }> = [
  { code: 'max_open_trades', instruments: THREE, env: { MAX_OPEN_TRADES: '1' } },
  // A long EUR_USD and a long GBP_USD are 2 lots short of USD.
  { code: 'currency_exposure', instruments: THREE, env: { MAX_CURRENCY_EXPOSURE_LOTS: '1.5' } },
  { code: 'cooldown', instruments: ['EUR_USD'], env: { COOLDOWN_LOSSES: '2', COOLDOWN_CANDLES: '30' } },
  { code: 'daily_loss_limit', instruments: ['EUR_USD'], env: { DAILY_LOSS_LIMIT: '0.5' } },
  { code: 'max_drawdown', instruments: ['EUR_USD'], env: { MAX_DRAWDOWN: '0.7' } },
];

const baseEnv = (instruments: string[]) => ({
  TIMEFRAME: 'M1',
  MIN_CONFLUENCE: '1',
  WARMUP_CANDLES: String(WARMUP),
  INSTRUMENTS: instruments.join(','),
  SIM_MARKET_HOURS: 'false',
  TRADE_VOLUME: '1.00',
  TIME_EXIT_CANDLES: '30',
  PAPER_SLIPPAGE_POINTS: '0',
  PAPER_COMMISSION_PER_LOT: '0',
  LIVE_JOURNAL_SYNC_SECONDS: '3600',
});

/** The signals skipped, `<instrument> <code>` → how many. */
function skippedCounts(signals: readonly StrategySignal[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const s of signals.filter((x) => x.execution.status === 'skipped')) {
    const key = `${s.instrument} ${s.execution.code}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

describe('each limit refuses on paper as in the lab', () => {
  for (const limit of LIMITS) {
    it(`${limit.code}: the paper account skips the signals the lab skips, pair by pair`, async () => {
      const market = new SimulatedMarket({ seed: 'risk-limits', tickIntervalMs: 1000, marketHours: false, clock: new ManualClock(0) });
      const pairs = limit.instruments.map((i) => simulatedCandles(market, i, 'M1', FROM, FROM + (WARMUP + CLOSES) * MINUTE));
      const startMs = FROM + WARMUP * MINUTE;
      const clock = new ManualClock(startMs);
      const env = { ...baseEnv(limit.instruments), ...limit.env };
      const h = await harness({ clock, env, deps: { source: recordedSource(market, pairs, clock) } });
      let paper: Map<string, number>;
      try {
        await h.app.inject({ method: 'POST', url: '/start', payload: { dry_run: true } });
        await h.settle();
        for (let i = 0; i < CLOSES; i++) await h.advance(MINUTE);
        paper = skippedCounts(await allSignals(h));
      } finally {
        await h.close();
      }
      const config = testConfig(env);
      const result = deskBacktest(config, pairs, WARMUP, startMs / 1000 + CLOSES * 60, {
        terms: Object.fromEntries(limit.instruments.map((i) => [i, simulatedTermsOf(i)!])),
      });
      for (const instrument of limit.instruments) {
        for (const code of CODES) {
          expect(paper.get(`${instrument} ${code}`) ?? 0, `${instrument} ${code}`).toBe(result.metrics.skipped?.per_pair[instrument]?.[code] ?? 0);
        }
      }
      expect(result.metrics.skipped?.overall[limit.code]).toBeGreaterThan(0);
    }, 120_000);
  }
});

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
