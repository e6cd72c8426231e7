import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RETCODE } from '../../src/mt5-retcodes.js';
import { symbolInfoOf } from '../../src/metaapi/normalize.js';
import { isInTradeSession, preCheck, type PreCheckFacts } from '../../src/metaapi/order-check.js';
import { SymbolSpecificationSchema, type WireSymbolPrice } from '../../src/metaapi/wire.js';
import type { TradeRequest } from '../../src/terminal.js';
import { errorBody } from './fake-metaapi-server.js';
import { fakeSetup, type FakeSetup } from './harness.js';

/** Wednesday 2026-01-07 12:00 UTC. */
const NOW = Date.UTC(2026, 0, 7, 12);
const WEEKDAY = [{ from: '00:00:00.000', to: '23:59:59.999' }];

const spec = SymbolSpecificationSchema.parse({
  symbol: 'EURUSD',
  digits: 5,
  point: 0.00001,
  contractSize: 100_000,
  minVolume: 0.01,
  maxVolume: 100,
  volumeStep: 0.01,
  fillingModes: ['ORDER_FILLING_FOK', 'ORDER_FILLING_IOC'],
  executionMode: 'SYMBOL_TRADE_EXECUTION_INSTANT',
  tradeMode: 'SYMBOL_TRADE_MODE_FULL',
  stopsLevel: 10,
  allowedExpirationModes: ['SYMBOL_EXPIRATION_GTC', 'SYMBOL_EXPIRATION_SPECIFIED'],
  allowedOrderTypes: ['SYMBOL_ORDER_MARKET', 'SYMBOL_ORDER_LIMIT', 'SYMBOL_ORDER_SL', 'SYMBOL_ORDER_TP'],
  tradeSessions: { MONDAY: WEEKDAY, TUESDAY: WEEKDAY, WEDNESDAY: WEEKDAY, THURSDAY: WEEKDAY, FRIDAY: WEEKDAY, SATURDAY: [], SUNDAY: [] },
});
const account = { currency: 'USD', balance: 10_000, equity: 10_000, margin: 0, freeMargin: 10_000, tradeAllowed: true };
const price: WireSymbolPrice = { symbol: 'EURUSD', bid: 1.085, ask: 1.0851, time: new Date(NOW).toISOString(), brokerTime: '2026-01-07 14:00:00.000' };
const buy: TradeRequest = { action: 'deal', symbol: 'EURUSD', type: 'buy', volume: '0.1', magic: 1, comment: 'c', filling: 'IOC' };

const check = (over: Partial<Omit<PreCheckFacts, 'request'>> & { request?: Partial<TradeRequest> } = {}) => {
  const s = over.spec ?? spec;
  return preCheck({ spec: s, info: symbolInfoOf(s), account, price, nowMs: NOW, ...over, request: { ...buy, ...over.request } }).retcode;
};

describe('emulated order_check', () => {
  it('passes a valid market order with 0', () => {
    expect(check()).toBe(RETCODE.OK);
  });

  it('answers 10016, never a throw, for stop text that is no decimal', () => {
    expect(check({ request: { sl: 'abc' } })).toBe(RETCODE.INVALID_STOPS);
    expect(check({ request: { tp: '1.1e2' } })).toBe(RETCODE.INVALID_STOPS);
  });

  it("answers 10017 when the symbol's trade mode is disabled", () => {
    expect(check({ spec: { ...spec, tradeMode: 'SYMBOL_TRADE_MODE_DISABLED' } })).toBe(RETCODE.TRADE_DISABLED);
  });

  it('answers 10017 when the account does not allow trading', () => {
    expect(check({ account: { ...account, tradeAllowed: false } })).toBe(RETCODE.TRADE_DISABLED);
  });

  it('answers 10042 for a sell on a long-only symbol', () => {
    expect(check({ spec: { ...spec, tradeMode: 'SYMBOL_TRADE_MODE_LONGONLY' }, request: { type: 'sell' } })).toBe(RETCODE.LONG_ONLY);
  });

  it('answers 10035 for an order type the symbol does not allow', () => {
    expect(check({ request: { action: 'pending', type: 'buy_stop', price: '1.09000', timeType: 'GTC' } })).toBe(10035);
  });

  it('answers 10030 for a filling mode the symbol does not list', () => {
    expect(check({ spec: { ...spec, fillingModes: ['ORDER_FILLING_FOK'] } })).toBe(RETCODE.INVALID_FILL);
  });

  it('answers 10030 for a RETURN deal in instant execution', () => {
    expect(check({ request: { filling: 'RETURN' } })).toBe(RETCODE.INVALID_FILL);
  });

  it('answers 10021 without a current price', () => {
    expect(check({ price: null })).toBe(RETCODE.PRICE_OFF);
  });

  it('answers 10018 outside the trade sessions, judged in broker time', () => {
    // Friday 22:30 UTC is Saturday 00:30 at the broker's UTC+2: no session.
    const friday = Date.UTC(2026, 0, 9, 22, 30);
    const late = { ...price, time: new Date(friday).toISOString(), brokerTime: '2026-01-10 00:30:00.000' };
    expect(check({ price: late, nowMs: friday })).toBe(RETCODE.MARKET_CLOSED);
  });

  it('answers 10015 for a buy limit closer to the ask than the stops level', () => {
    expect(check({ request: { action: 'pending', type: 'buy_limit', price: '1.08505', timeType: 'GTC' } })).toBe(RETCODE.INVALID_PRICE);
  });

  it('answers 10016 for a stop loss inside the stops level', () => {
    expect(check({ request: { sl: '1.08495' } })).toBe(RETCODE.INVALID_STOPS);
  });

  it('answers 10022 for an expiration mode the symbol does not allow', () => {
    expect(check({ request: { action: 'pending', type: 'buy_limit', price: '1.08000', timeType: 'DAY' } })).toBe(RETCODE.INVALID_EXPIRATION);
  });
});

describe('trade sessions', () => {
  it('accepts session times written with dots, as the model documents them', () => {
    expect(isInTradeSession({ WEDNESDAY: [{ from: '08.00.00.000', to: '17.00.00.000' }] }, Date.UTC(2026, 0, 7, 9))).toBe(true);
  });

  it('counts a market with no sessions at all as open (MetaApi said nothing)', () => {
    expect(isInTradeSession({}, Date.UTC(2026, 0, 10, 9))).toBe(true);
  });
});

describe('order_check against the fake MetaApi', () => {
  let s: FakeSetup;

  beforeEach(async () => {
    s = await fakeSetup();
    await s.terminal.connect();
  });
  afterEach(async () => s.teardown());

  it("answers 10019 when MetaApi's margin calculation exceeds the free margin, and says why", async () => {
    const result = await s.terminal.orderCheck({ ...buy, volume: '99', comment: 'x' });
    expect(result.retcode).toBe(RETCODE.NO_MONEY);
    expect(result.comment).toMatch(/exceeds free margin/);
    expect(s.fake.count('calculate-margin')).toBe(1);
  });

  it("adds the trade's margin to the account's in the check result", async () => {
    const result = await s.terminal.orderCheck(buy);
    expect(result.margin).toBeGreaterThan(0);
    expect(result.marginFree).toBeCloseTo(result.equity - result.margin, 6);
  });

  it('answers 10013 for a symbol MetaApi does not list', async () => {
    expect((await s.terminal.orderCheck({ ...buy, symbol: 'NOSUCH' })).retcode).toBe(RETCODE.INVALID);
  });

  it('answers 10021 when MetaApi has no price for the symbol', async () => {
    s.fake.inject({ route: 'current-price', kind: 'status', status: 404, body: errorBody('NotFoundError', 'no price') });
    expect((await s.terminal.orderCheck(buy)).retcode).toBe(RETCODE.PRICE_OFF);
  });

  it('asks for no margin when an earlier check already failed', async () => {
    await s.terminal.orderCheck({ ...buy, volume: '0.005' });
    expect(s.fake.count('calculate-margin')).toBe(0);
  });
});

describe('candles from the market data API', () => {
  let s: FakeSetup;

  beforeEach(async () => {
    s = await fakeSetup();
    await s.terminal.connect();
  });
  afterEach(async () => s.teardown());

  it('pages backwards past 1000 candles and returns them oldest first, one per open time', async () => {
    const bars = await s.terminal.rates('EURUSD', 'M1', 1500);
    expect(s.fake.count('candles')).toBe(2);
    expect(bars).toHaveLength(1500);
    for (let i = 1; i < bars.length; i++) expect(bars[i]!.time).toBeGreaterThan(bars[i - 1]!.time);
  });

  it('marks only a bar whose period has not ended as forming', async () => {
    const bars = await s.terminal.rates('EURUSD', 'H1', 3);
    expect(bars.map((b) => b.closed)).toEqual([true, true, false]);
  });
});
