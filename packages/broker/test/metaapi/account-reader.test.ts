import { afterEach, describe, expect, it } from 'vitest';
import { driveClock } from '../drive-clock.js';
import { accountSetup, handTrade, type AccountSetup } from './account-setup.js';
import { failure, READ_TIMEOUT_MS } from './harness.js';

/** The fake's CPU credits: 1000 a second, 50 a request (the defaults the adapter paces to). */
const LIMIT = { creditsPerSecond: 1000, creditsPerRequest: 50 };
const UNPACED = { applicationCreditsPerSecond: 100_000, accountCreditsPerSecond: 100_000 };

describe('MetaApi account reader', () => {
  let s: AccountSetup;
  afterEach(async () => s.teardown());

  const driven = <T>(work: Promise<T>, stepMs = 100) => driveClock(s.clock, work, () => s.reader.requestsInFlight > 0, stepMs);

  /** A buy of 0.10 EURUSD closed a minute later, a sell of 0.20 USDJPY left open, a GBPUSD buy limit of 0.15 resting. */
  async function trade(): Promise<{ closed: string; open: string; order: string }> {
    const first = await s.fake.terminal.orderSend(handTrade('EURUSD', 'buy', '0.10'));
    const second = await s.fake.terminal.orderSend(handTrade('USDJPY', 'sell', '0.20', { sl: '999' }));
    const bid = (await s.fake.terminal.tick('GBPUSD'))!.bid;
    const limit = await s.fake.terminal.orderSend({
      ...handTrade('GBPUSD', 'buy', '0.15'),
      action: 'pending',
      type: 'buy_limit',
      price: (bid - 0.01).toFixed(5),
    });
    await s.clock.advanceAsync(60_000);
    await s.fake.terminal.closePosition({ position: first.position!, volume: '0.10', magic: 0, comment: 'by hand' });
    return { closed: first.position!, open: second.position!, order: limit.order! };
  }

  describe('mapping MT5 onto the OANDA records', () => {
    it('reads an open position as a trade of lots × contract size units, signed, at the symbol digits', async () => {
      s = await accountSetup({ pacing: UNPACED });
      const { open } = await trade();
      const details = await s.reader.details();
      const position = (await s.fake.terminal.positions()).find((p) => p.ticket === open)!;
      expect(details.trades).toEqual([
        expect.objectContaining({
          id: open,
          instrument: 'USD_JPY',
          currentUnits: '-20000',
          initialUnits: '-20000',
          price: Number(position.openPrice).toFixed(3),
          stopLoss: '999.000',
          takeProfit: null,
        }),
      ]);
      expect(details.positions).toEqual([
        expect.objectContaining({ instrument: 'USD_JPY', short: expect.objectContaining({ units: '-20000', tradeIds: [open] }) }),
      ]);
    });

    it('reads a resting limit order as a pending LIMIT order, good till cancelled', async () => {
      s = await accountSetup({ pacing: UNPACED });
      const { order } = await trade();
      const { orders, pendingOrderCount } = await s.reader.details();
      expect(pendingOrderCount).toBe(1);
      expect(orders).toEqual([
        expect.objectContaining({ id: order, type: 'LIMIT', instrument: 'GBP_USD', units: '15000', timeInForce: 'GTC', state: 'PENDING' }),
      ]);
    });

    it('sums the closed deals into the realized P/L and takes the equity as the net asset value', async () => {
      s = await accountSetup({ pacing: UNPACED });
      const { closed } = await trade();
      const deals = await s.fake.terminal.deals({ from: 0, to: Number.MAX_SAFE_INTEGER });
      const profit = deals.filter((d) => d.position === closed).reduce((sum, d) => sum + d.profit, 0);
      const summary = await s.reader.summary();
      const account = s.fake.terminal.accountState();
      expect(Number(summary.realizedPL)).toBeCloseTo(profit, 2);
      expect(Number(summary.nav)).toBeCloseTo(Number(account.equity), 2);
      expect(summary).toMatchObject({ openTradeCount: 1, openPositionCount: 1, marginRate: '0.01', currency: 'USD' });
    });

    it('answers the deals since an id as fills, the closed position among the closed trades with no units left', async () => {
      s = await accountSetup({ pacing: UNPACED });
      const { closed, open } = await trade();
      const changes = await s.reader.changesSince('0');
      expect(changes.transactions.map((t) => [t.type, t.instrument, t.units, t.reason])).toEqual([
        ['ORDER_FILL', 'EUR_USD', '10000', 'MARKET_ORDER'],
        ['ORDER_FILL', 'USD_JPY', '-20000', 'MARKET_ORDER'],
        ['ORDER_FILL', 'EUR_USD', '-10000', 'MARKET_ORDER_TRADE_CLOSE'],
      ]);
      expect(changes.tradesOpened.map((t) => t.id)).toEqual([closed, open]);
      expect(changes.tradesClosed).toEqual([expect.objectContaining({ id: closed, currentUnits: '0', initialUnits: '10000' })]);
    });

    it('names a forex symbol by its currencies and sizes it in units', async () => {
      s = await accountSetup({ pacing: UNPACED });
      const [eurusd] = await s.reader.instruments(['EUR_USD']);
      expect(eurusd).toEqual({
        name: 'EUR_USD',
        type: 'CURRENCY',
        displayName: 'EUR/USD',
        pipLocation: -4,
        displayPrecision: 5,
        tradeUnitsPrecision: 0,
        minimumTradeSize: '1000',
        maximumOrderUnits: '10000000',
        marginRate: '0.01',
      });
    });

    it('reads a symbol specification once', async () => {
      s = await accountSetup({ pacing: UNPACED });
      const all = await s.reader.instruments();
      await s.reader.instruments(['EUR_USD']);
      expect(s.fake.count('specification')).toBe(all.length);
    });
  });

  describe("MetaApi's account states and limits", () => {
    it('waits for a deploying account to be deployed and connected before reading it', async () => {
      s = await accountSetup({ pacing: UNPACED });
      s.fake.deployFor(3_000);
      const started = s.clock.now();
      expect((await driven(s.reader.summary())).currency).toBe('USD');
      expect(s.clock.now() - started).toBeGreaterThanOrEqual(3_000);
      expect(s.fake.count('account-information')).toBe(1);
    });

    it('waits out the 202 Accepted of a deploying account where it reads no history', async () => {
      s = await accountSetup({ pacing: UNPACED });
      s.fake.deployFor(2_000);
      expect(await driven(s.reader.instruments(['EUR_USD']))).toHaveLength(1);
      expect(s.fake.count('symbols')).toBe(2);
    });

    it('waits for a synchronizing terminal before reading the history, so no transaction is missed', async () => {
      s = await accountSetup({ pacing: UNPACED });
      await trade();
      s.fake.synchronizeFor(2_500);
      const { lastTransactionId } = await driven(s.reader.summary(), 500);
      const deals = await s.fake.terminal.deals({ from: 0, to: Number.MAX_SAFE_INTEGER });
      expect(lastTransactionId).toBe(deals.at(-1)!.ticket);
    });

    it('fails unavailable rather than answer an incomplete history when the terminal is not synchronized in time', async () => {
      s = await accountSetup({ pacing: UNPACED });
      s.fake.synchronizeFor(READ_TIMEOUT_MS * 3);
      const err = await failure(driven(s.reader.summary(), 500));
      expect(err).toMatchObject({ kind: 'unavailable', venueCode: 'DISCONNECTED' });
    });

    it('answers a 429 rate_limited with the wait MetaApi recommends', async () => {
      s = await accountSetup({ pacing: UNPACED });
      s.fake.inject({
        route: 'positions',
        kind: 'status',
        status: 429,
        headers: { 'retry-after': '3' },
        body: { id: 1, error: 'TooManyRequestsError', message: 'The API allows 1000 cpu credits per 1s' },
      });
      expect(await failure(s.reader.summary())).toMatchObject({ kind: 'rate_limited', retryAfterSeconds: 3 });
    });

    it('never draws a 429 from 20 summaries at once: their 80 requests spend the credits at their rate', async () => {
      s = await accountSetup({ fake: { creditLimit: LIMIT }, timeoutMs: 60_000 });
      const summaries = await driven(Promise.all(Array.from({ length: 20 }, () => s.reader.summary())), 50);
      expect(summaries).toHaveLength(20);
      expect(s.fake.throttled).toBe(0);
    });
  });
});
