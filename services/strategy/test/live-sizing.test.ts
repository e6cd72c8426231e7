import { SimulatedMarket } from '@fxdesk/broker';
import { AccountClient, ExecutionClient } from '@fxdesk/client';
import { ManualClock } from '@fxdesk/primitives';
import type { StrategySignal, SymbolTerms } from '@fxdesk/schemas';
import { riskLots } from '@fxdesk/trading';
import { afterEach, describe, expect, it } from 'vitest';
import { entrySize } from '../src/entry-sizing.js';
import { announcement } from '../src/signal-dispatch.js';
import { envelope, fakeService, filled, type FakeAnswer, type FakeService, type RecordedRequest } from './fake-service.js';
import { advanceUntilSignal, harness, MONDAY_NOON, sourceWith, type Harness } from './helpers.js';
import { SimulatedSource } from '../src/simulated-source.js';

/*
 * Sizing for live (issue 24): with SIZING=risk the lots of a live order are riskLots of the account
 * service's equity, the execution service's terms of the symbol and the market's rate of its profit
 * currency; a source that does not answer skips the signal, never sent, with the reason.
 */

const EQUITY = '25000.0000';

const terms = (symbol: string, fields: Partial<SymbolTerms> = {}): SymbolTerms => ({
  symbol,
  description: symbol,
  digits: 5,
  contract_size: 100_000,
  volume_min: '0.01',
  volume_max: '50',
  volume_step: '0.01',
  order_volume_max: '50',
  stops_level: 0,
  freeze_level: 0,
  trade_mode: 'full',
  filling_modes: ['IOC'],
  expiration_modes: ['GTC'],
  currency_base: symbol.slice(0, 3),
  currency_profit: symbol.slice(3, 6),
  currency_margin: symbol.slice(0, 3),
  ...fields,
});

const accountSummary = (currency: string): FakeAnswer => ({
  status: 200,
  body: {
    account: {
      id: '101-004-1435156-001',
      alias: null,
      currency,
      balance: EQUITY,
      nav: EQUITY,
      unrealizedPL: '0.0000',
      realizedPL: '0.0000',
      marginUsed: '0.0000',
      marginAvailable: EQUITY,
      marginRate: '0.0333',
      openTradeCount: 0,
      openPositionCount: 0,
      pendingOrderCount: 0,
      lastTransactionId: '1',
      asOf: '2026-01-05T12:00:00.000Z',
    },
    snapshot: { id: 1, takenAt: '2026-01-05T12:00:00.000Z' },
  },
});

/** The execution service: the symbol's terms (or `termsAnswer`), every order filled, nothing open. */
const venue =
  (termsAnswer?: FakeAnswer) =>
  (request: RecordedRequest): FakeAnswer => {
    const m = /^\/v1\/symbols\/(\w+)$/.exec(request.url);
    if (m) return termsAnswer ?? { status: 200, body: terms(m[1]!) };
    return filled(request);
  };

let cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

async function fake(handler: Parameters<typeof fakeService>[0]): Promise<FakeService> {
  const service = await fakeService(handler);
  cleanups.push(service.close);
  return service;
}

async function liveDesk(options: { execution: FakeService; account: FakeService; env?: Record<string, string>; rate?: boolean }): Promise<Harness> {
  const execution = new ExecutionClient({ baseUrl: options.execution.url, apiKey: 'exec-key-123', timeoutMs: 2000 });
  const account = new AccountClient({ baseUrl: options.account.url, apiKey: 'account-key-123', timeoutMs: 2000 });
  const env = { MIN_CONFLUENCE: '1', INSTRUMENTS: 'EUR_USD', ACCOUNT_REFRESH_SECONDS: '0', DOWNSTREAM_RETRIES: '0', ...options.env };
  const deps: Parameters<typeof harness>[0] = { env, deps: { execution, account } };
  if (options.rate === false) {
    deps.clock = new ManualClock(MONDAY_NOON);
    const market = new SimulatedMarket({ seed: 'strategy-tests', tickIntervalMs: 10_000, marketHours: true, clock: deps.clock });
    deps.deps!.source = sourceWith(new SimulatedSource(market), { rate: () => undefined });
  }
  const h = await harness(deps);
  cleanups.push(async () => {
    await h.close();
    await execution.close();
    await account.close();
  });
  await h.app.inject({ method: 'POST', url: '/start', payload: { dry_run: false } });
  await advanceUntilSignal(h);
  await h.settle();
  return h;
}

const orders = (execution: FakeService) => execution.requests.filter((r) => r.method === 'POST' && r.url === '/v1/signals');
const firstSignal = async (h: Harness): Promise<StrategySignal> => (await h.store.page({ limit: 500 })).signals.at(-1)!;

/** riskLots of the fake account's 25 000 USD at `riskPercent`, on the fake venue's EURUSD terms (50 lots at most). */
const lotsOf = (signal: StrategySignal, riskPercent: number) =>
  riskLots({
    equity: 25_000,
    riskPercent,
    entry: signal.entry_price,
    stop: signal.stop_loss,
    terms: { contractSize: 100_000, volumeMin: '0.01', volumeMax: '50', volumeStep: '0.01' },
    quoteToAccount: 1,
  });

describe('sizing a live order', () => {
  it('sends the lots that lose RISK_PERCENT of the account service’s equity at the stop, on the venue’s terms', async () => {
    const execution = await fake(venue());
    const account = await fake(() => accountSummary('USD'));
    const h = await liveDesk({ execution, account, env: { SIZING: 'risk', RISK_PERCENT: '0.5' } });
    const signal = await firstSignal(h);
    const expected = lotsOf(signal, 0.5);
    expect('lots' in expected).toBe(true);
    const order = orders(execution).find((r) => (r.body as { signal_id: string }).signal_id === signal.signal_id)!;
    expect((order.body as { volume: string }).volume).toBe((expected as { lots: string }).lots);
    expect(signal.execution).toMatchObject({ status: 'filled', volume: (expected as { lots: string }).lots });
    expect(execution.requests.some((r) => r.url === '/v1/symbols/EURUSD')).toBe(true);
  });

  it('caps the lots at the largest order the execution service sends (its MAXIMUM_VOLUME), never sending more', async () => {
    const execution = await fake(venue({ status: 200, body: terms('EURUSD', { order_volume_max: '0.05' }) }));
    const account = await fake(() => accountSummary('USD'));
    const h = await liveDesk({ execution, account, env: { SIZING: 'risk', RISK_PERCENT: '2' } });
    const signal = await firstSignal(h);
    const uncapped = lotsOf(signal, 2);
    // Uncapped, the size would be above the service's largest order, which it refuses (invalid_volume).
    expect(Number((uncapped as { lots: string }).lots)).toBeGreaterThan(0.05);
    const order = orders(execution).find((r) => (r.body as { signal_id: string }).signal_id === signal.signal_id)!;
    expect((order.body as { volume: string }).volume).toBe('0.05');
    expect(signal.execution).toMatchObject({ status: 'filled', volume: '0.05' });
  });

  it('keeps TRADE_VOLUME with SIZING=fixed, reading no terms of the venue', async () => {
    const execution = await fake(venue());
    const account = await fake(() => accountSummary('USD'));
    const h = await liveDesk({ execution, account, env: { TRADE_VOLUME: '0.30' } });
    const signal = await firstSignal(h);
    expect((orders(execution)[0]!.body as { volume: string }).volume).toBe('0.30');
    expect(signal.execution).toMatchObject({ status: 'filled', volume: '0.30' });
    expect(execution.requests.some((r) => r.url.startsWith('/v1/symbols/'))).toBe(false);
  });

  it('sends nothing and records no_equity when the account service does not answer', async () => {
    const execution = await fake(venue());
    const account = await fake(() => ({ status: 503, body: envelope('broker_error') }));
    const h = await liveDesk({ execution, account, env: { SIZING: 'risk' } });
    expect(orders(execution)).toHaveLength(0);
    expect((await firstSignal(h)).execution).toMatchObject({ status: 'skipped', code: 'no_equity', volume: null, tickets: null });
  });

  it('sends nothing and records no_volume_terms when the venue does not give the symbol’s terms', async () => {
    const execution = await fake(venue({ status: 404, body: envelope('symbol_not_found') }));
    const account = await fake(() => accountSummary('USD'));
    const h = await liveDesk({ execution, account, env: { SIZING: 'risk' } });
    expect(orders(execution)).toHaveLength(0);
    expect((await firstSignal(h)).execution).toMatchObject({ status: 'skipped', code: 'no_volume_terms' });
  });

  it('sends nothing and records no_conversion_rate when no rate converts the profit currency to the account’s', async () => {
    const execution = await fake(venue());
    const account = await fake(() => accountSummary('EUR'));
    const h = await liveDesk({ execution, account, env: { SIZING: 'risk' }, rate: false });
    expect(orders(execution)).toHaveLength(0);
    expect((await firstSignal(h)).execution).toMatchObject({ status: 'skipped', code: 'no_conversion_rate' });
  });
});

describe('entrySize', () => {
  const settings = { riskPercent: 1, fixedLots: '0.10' };
  const sources = { equity: 10_000, terms: { contractSize: 100_000, volumeMin: '0.01', volumeMax: '100', volumeStep: '0.01' }, quoteToAccount: 1 };

  it('is TRADE_VOLUME with fixed sizing, whatever the sources', () => {
    expect(entrySize({ riskPercent: null, fixedLots: '0.10' }, 1.1, 1.099, null)).toEqual({ lots: '0.10' });
  });

  it('is riskLots of the sources with sizing by risk: 1 % of 10 000 over a 20-point stop is 5.00 lots', () => {
    expect(entrySize(settings, 1.1, 1.0998, sources)).toEqual({ lots: '5.00' });
  });

  it('skips when a source did not answer, naming which', () => {
    expect(entrySize(settings, 1.1, 1.0998, { ...sources, equity: null })).toMatchObject({ skipped: 'no_equity' });
    expect(entrySize(settings, 1.1, 1.0998, { ...sources, terms: null })).toMatchObject({ skipped: 'no_volume_terms' });
    expect(entrySize(settings, 1.1, 1.0998, { ...sources, quoteToAccount: null })).toMatchObject({ skipped: 'no_conversion_rate' });
  });
});

describe('the announcement of a skipped signal', () => {
  it('says it was skipped and why', () => {
    const signal = {
      type: 'LONG',
      instrument: 'EUR_USD',
      entry_price: 1.1,
      stop_loss: 1.099,
      take_profit: 1.102,
      risk_reward: 2,
      confluence_score: 3,
      timeframe: 'M5',
      candle_time: '2026-01-05T12:00:00.000Z',
      signal_id: 'b1d7c1a0-0000-4000-8000-000000000001',
      dry_run: false,
      execution: { status: 'skipped', code: 'daily_loss_limit', message: 'halted by daily_loss_limit: lost 500.00; the signal is not sent' },
    } as StrategySignal;
    expect(announcement(signal).message).toContain('skipped (daily_loss_limit): halted by daily_loss_limit: lost 500.00; the signal is not sent');
  });
});
