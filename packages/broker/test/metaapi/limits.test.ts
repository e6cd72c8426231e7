import { afterEach, describe, expect, it } from 'vitest';
import type { BrokerError } from '../../src/errors.js';
import { RETCODE } from '../../src/mt5-retcodes.js';
import type { TradeRequest } from '../../src/terminal.js';
import { driveClock } from '../drive-clock.js';
import { failure, fakeSetup, marketBuyOf, READ_TIMEOUT_MS, TRADE_TIMEOUT_MS, type FakeSetup } from './harness.js';

const MAGIC = 880_002;
const COMMENT = 'tradingview:limits-0001';

const marketBuy = (extra: Partial<TradeRequest> = {}) => marketBuyOf(MAGIC, COMMENT, extra);

describe('MetaApi limits and states', () => {
  let s: FakeSetup;
  afterEach(async () => s.teardown());

  /** Runs `work` with the clock moving in `stepMs` steps whenever no request is on the wire. */
  const driven = <T>(work: Promise<T>, stepMs = 100) => driveClock(s.clock, work, () => s.terminal.requestsInFlight > 0, stepMs);
  const trades = () => s.fake.requests.filter((r) => r.route === 'trade');

  describe('202 Accepted while the account deploys', () => {
    it('waits the Retry-After seconds and asks again until MetaApi answers', async () => {
      s = await fakeSetup();
      await s.terminal.connect();
      s.fake.deployFor(3_000);
      const started = s.clock.now();
      const quote = await driven(s.terminal.tick('EURUSD'));
      expect(quote?.symbol).toBe('EURUSD');
      expect(s.clock.now() - started).toBeGreaterThanOrEqual(3_000);
      // Retry-After is 3 s, then the account is ready: one 202 and one answer.
      expect(s.fake.count('current-price')).toBe(2);
    });

    it('reads a Retry-After given as an HTTP-date', async () => {
      s = await fakeSetup();
      await s.terminal.connect();
      s.fake.deployFor(2_000, 'date');
      expect((await driven(s.terminal.tick('EURUSD')))?.symbol).toBe('EURUSD');
      expect(s.fake.count('current-price')).toBe(2);
    });

    it('fails unavailable with the wait, asking no more, when the wait would pass the call deadline', async () => {
      s = await fakeSetup();
      await s.terminal.connect();
      s.fake.deployFor(60_000);
      const err = await failure(driven(s.terminal.tick('EURUSD')));
      expect(err).toMatchObject({ kind: 'unavailable', venueCode: '202', retryAfterSeconds: 5 });
      expect(err.isAmbiguous).toBe(false);
      // 5 s Retry-After against a 5 s read deadline: the first 202 is the only request.
      expect(s.fake.count('current-price')).toBe(1);
    });

    it('sends a trade again after a 202 and it executes once', async () => {
      s = await fakeSetup();
      await s.terminal.connect();
      s.fake.deployFor(2_000);
      const result = await driven(s.terminal.orderSend(marketBuy()));
      expect(result.retcode).toBe(RETCODE.DONE);
      expect(trades()).toHaveLength(2);
      expect((await s.terminal.findByComment(COMMENT, MAGIC)).filter((r) => r.kind === 'deal')).toHaveLength(1);
    });

    it('gives the request sent after the waits half its timeout at least, so a trade is not cut short by them', async () => {
      s = await fakeSetup();
      await s.terminal.connect();
      s.fake.deployFor(TRADE_TIMEOUT_MS - 1_000);
      // The account is ready 1 s before the trade's deadline, and the answer then takes 5 s.
      s.fake.inject({ route: 'trade', kind: 'pass', onArrive: () => s.clock.advance(5_000) });
      const result = await driven(s.terminal.orderSend(marketBuy()), 1_000);
      expect(result.retcode).toBe(RETCODE.DONE);
      expect(trades().length).toBeGreaterThan(1);
    });

    it('waits for market data that is still loading', async () => {
      s = await fakeSetup();
      await s.terminal.connect();
      s.fake.deployFor(1_000);
      expect(await driven(s.terminal.rates('EURUSD', 'M5', 3))).toHaveLength(3);
      expect(s.fake.count('candles')).toBe(2);
    });
  });

  describe('filling modes', () => {
    const lastTrade = () => trades().at(-1)?.body as Record<string, unknown>;

    it('sends a market order the filling mode it asks for, among those MetaApi defines for market orders', async () => {
      s = await fakeSetup();
      await s.terminal.connect();
      await s.terminal.orderSend(marketBuy({ filling: 'FOK' }));
      expect(lastTrade().fillingModes).toEqual(['ORDER_FILLING_FOK']);
    });

    it('sends a pending order without fillingModes, which MetaApi defines for market orders only, and it is placed', async () => {
      s = await fakeSetup();
      await s.terminal.connect();
      const tick = (await s.terminal.tick('EURUSD'))!;
      const result = await s.terminal.orderSend({
        ...marketBuy({ filling: 'RETURN' }),
        action: 'pending',
        type: 'buy_limit',
        price: (tick.ask - 0.01).toFixed(5),
        timeType: 'GTC',
      });
      expect(result.retcode).toBe(RETCODE.PLACED);
      expect(lastTrade()).not.toHaveProperty('fillingModes');
    });

    it('the fake refuses ORDER_FILLING_RETURN as MetaApi does (400 ValidationError), as the old body was', async () => {
      s = await fakeSetup();
      await s.terminal.connect();
      const res = await fetch(`${s.fake.baseUrl}/users/current/accounts/${s.fake.accountId}/trade`, {
        method: 'POST',
        headers: { 'auth-token': s.fake.token, 'content-type': 'application/json' },
        body: JSON.stringify({ actionType: 'ORDER_TYPE_BUY_LIMIT', symbol: 'EURUSD', volume: 0.01, openPrice: 1, fillingModes: ['ORDER_FILLING_RETURN'] }),
      });
      expect(res.status).toBe(400);
    });

    it('reports only the modes the symbol allows, and a market order in another mode is answered 10030 INVALID_FILL', async () => {
      s = await fakeSetup({ fake: { fillingModes: { EURUSD: ['ORDER_FILLING_IOC'] } } });
      await s.terminal.connect();
      expect((await s.terminal.symbolInfo('EURUSD'))?.fillingModes).toEqual(['IOC', 'RETURN']);
      expect((await s.terminal.orderSend(marketBuy({ filling: 'FOK' }))).retcode).toBe(RETCODE.INVALID_FILL);
      expect((await s.terminal.orderSend(marketBuy({ filling: 'IOC' }))).retcode).toBe(RETCODE.DONE);
    });
  });

  describe('history while the terminal synchronizes', () => {
    it('the fake answers a bare, empty history while synchronizing, as the REST route does', async () => {
      s = await fakeSetup();
      await s.terminal.connect();
      await s.terminal.orderSend(marketBuy());
      s.fake.synchronizeFor(10_000);
      const range = `${new Date(s.clock.now() - 3_600_000).toISOString()}/${new Date(s.clock.now() + 60_000).toISOString()}`;
      const res = await fetch(`${s.fake.baseUrl}/users/current/accounts/${s.fake.accountId}/history-deals/time/${range}`, {
        headers: { 'auth-token': s.fake.token },
      });
      expect(await res.json()).toEqual([]);
    });

    it('waits for the account to be CONNECTED before searching, then finds the fill', async () => {
      s = await fakeSetup();
      await s.terminal.connect();
      const sent = await s.terminal.orderSend(marketBuy());
      s.fake.synchronizeFor(4_000);
      const records = await driven(s.terminal.findByComment(COMMENT, MAGIC), 500);
      expect(records.map((r) => r.ticket)).toContain(sent.deal);
      // Polled once a second: DISCONNECTED four times, then CONNECTED.
      expect(s.fake.count('account')).toBe(5);
      expect(s.fake.requests.findIndex((r) => r.route === 'history-deals' && r.path.includes('/time/'))).toBeGreaterThan(
        s.fake.requests.findLastIndex((r) => r.route === 'account'),
      );
    });

    it('fails unavailable instead of answering "not found" when the terminal is not synchronized by the deadline', async () => {
      s = await fakeSetup({ reconcileTimeoutMs: 10_000 });
      await s.terminal.connect();
      await s.terminal.orderSend(marketBuy());
      s.fake.synchronizeFor(60_000);
      const before = s.fake.requests.length;
      const err = await failure(driven(s.terminal.findByComment(COMMENT, MAGIC), 500));
      expect(err).toMatchObject({ kind: 'unavailable', venueCode: 'DISCONNECTED' });
      expect(s.fake.requests.slice(before).map((r) => r.route)).toEqual(Array(10).fill('account'));
    });

    it('reads a lost broker as not synchronized', async () => {
      s = await fakeSetup({ reconcileTimeoutMs: 3_000 });
      await s.terminal.connect();
      s.fake.setBrokerConnected(false);
      const err = await failure(driven(s.terminal.findByComment(COMMENT, MAGIC), 500));
      expect(err.venueCode).toBe('DISCONNECTED_FROM_BROKER');
    });
  });

  describe('pacing under the CPU credit limits', () => {
    const LIMIT = { creditsPerSecond: 1000, creditsPerRequest: 50 };

    it('the fake answers 429 to a burst past the credits, as MetaApi does', async () => {
      s = await fakeSetup({ fake: { creditLimit: LIMIT } });
      const url = `${s.fake.baseUrl}/users/current/accounts/${s.fake.accountId}/symbols/EURUSD/current-price`;
      const answers = await Promise.all(Array.from({ length: 30 }, () => fetch(url, { headers: { 'auth-token': s.fake.token } })));
      expect(answers.filter((r) => r.status === 429)).toHaveLength(10);
      expect(s.fake.throttled).toBe(10);
    });

    it('never draws a 429 under a burst of 200 quotes: the adapter spends the credits at their rate', async () => {
      s = await fakeSetup({ fake: { creditLimit: LIMIT }, timeoutMs: 60_000, pacing: { applicationCreditsPerSecond: 1000, accountCreditsPerSecond: 2000 } });
      await s.terminal.connect();
      const started = s.clock.now();
      const quotes = await driven(Promise.all(Array.from({ length: 200 }, () => s.terminal.tick('EURUSD'))), 10);
      expect(quotes.every((q) => q?.symbol === 'EURUSD')).toBe(true);
      expect(s.fake.throttled).toBe(0);
      // 1000 credits a second of 50 each: 10 at once, then 10 a second; 190 more take 19 s.
      expect(s.clock.now() - started).toBeGreaterThanOrEqual(18_900);
      expect(s.clock.now() - started).toBeLessThan(20_000);
    });

    it('fails rate_limited at once, without sending, a request whose credits would come only after its deadline', async () => {
      s = await fakeSetup({ fake: { creditLimit: LIMIT }, pacing: { accountCreditsPerSecond: 1_000_000 } });
      await s.terminal.connect();
      // 500 credits at once (connect took 50), then 500 a second: 9 quotes now, then one each 100 ms;
      // within the 5 s read deadline 50 more, and the last 11 of 70 are refused before any wait.
      const outcomes = await driven(Promise.allSettled(Array.from({ length: 70 }, () => s.terminal.tick('EURUSD'))), 10);
      const refused = outcomes.filter((o) => o.status === 'rejected').map((o) => o.reason as BrokerError);
      expect(refused).toHaveLength(11);
      expect(refused.every((e) => e.kind === 'rate_limited' && e.retryAfterSeconds === 6)).toBe(true);
      expect(s.fake.count('current-price')).toBe(59);
      expect(s.fake.throttled).toBe(0);
    });

    it('answers a trade its credits would reach too late 10024 TOO_MANY_REQUESTS, as a 429, unsent', async () => {
      s = await fakeSetup({ tradeTimeoutMs: 1_000, pacing: { accountCreditsPerSecond: 1_000_000 } });
      await s.terminal.connect();
      // 9 quotes spend the rest of the burst and 10 more queue for the next second of credits.
      const quotes = Promise.all(Array.from({ length: 19 }, () => s.terminal.tick('EURUSD')));
      const result = await s.terminal.orderSend(marketBuy());
      expect(result.retcode).toBe(10024);
      expect(result.comment).toMatch(/not sent/);
      expect(trades()).toHaveLength(0);
      await driven(quotes);
    });

    it('keeps one historical market data request in flight at a time', async () => {
      s = await fakeSetup();
      await s.terminal.connect();
      s.fake.inject({ route: 'candles', kind: 'hang', onArrive: () => s.clock.advance(READ_TIMEOUT_MS) });
      const [first, second] = await Promise.allSettled([s.terminal.rates('EURUSD', 'M5', 10), s.terminal.rates('GBPUSD', 'M5', 10)]);
      expect(first).toMatchObject({ status: 'rejected', reason: { kind: 'timeout' } });
      expect(second).toMatchObject({ status: 'fulfilled' });
      expect(s.fake.peakInFlight.get('candles')).toBe(1);
    });

    it('the fake sees two at once when the adapter allows two', async () => {
      s = await fakeSetup({ pacing: { marketDataConcurrency: 2 } });
      await s.terminal.connect();
      s.fake.inject({ route: 'candles', kind: 'hang' });
      const both = Promise.allSettled([s.terminal.rates('EURUSD', 'M5', 10), s.terminal.rates('GBPUSD', 'M5', 10)]);
      while (s.fake.count('candles') < 2) await new Promise((resolve) => setImmediate(resolve));
      expect(s.fake.peakInFlight.get('candles')).toBe(2);
      s.clock.advance(READ_TIMEOUT_MS);
      await both;
    });
  });
});
