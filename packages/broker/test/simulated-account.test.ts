import { describe, expect, it } from 'vitest';
import { SimulatedAccount } from '../src/simulated/account.js';
import { WEDNESDAY_NOON, makeMarket } from './fixtures.js';

const HOUR = 3_600_000;

describe('SimulatedAccount', () => {
  it('has a history that is a pure function of seed, opening instant and time', async () => {
    const a = makeMarket();
    const b = makeMarket();
    const first = new SimulatedAccount({ market: a.market });
    const second = new SimulatedAccount({ market: b.market });
    a.clock.advance(30 * HOUR);
    b.clock.advance(30 * HOUR);
    expect(await first.changesSince('0')).toEqual(await second.changesSince('0'));
    expect(first.id).toBe(second.id);
  });

  it('grows its transaction log as time passes', async () => {
    const { market, clock } = makeMarket();
    const account = new SimulatedAccount({ market });
    const before = Number((await account.summary()).lastTransactionId);
    clock.advance(48 * HOUR);
    expect(Number((await account.summary()).lastTransactionId)).toBeGreaterThan(before + 4);
  });

  it('opens with a deposit of the starting balance', async () => {
    const { market } = makeMarket();
    const account = new SimulatedAccount({ market, balance: '2500', openedAt: WEDNESDAY_NOON });
    const { transactions } = await account.changesSince('0');
    expect(transactions.map((t) => t.type)).toEqual(['CREATE', 'TRANSFER_FUNDS']);
    expect(transactions[1]!.accountBalance).toBe('2500.0000');
  });

  it('marks open trades to the market', async () => {
    const { market, clock } = makeMarket();
    const account = new SimulatedAccount({ market });
    let details = await account.details();
    while (details.trades.length === 0) {
      clock.advance(HOUR);
      details = await account.details();
    }
    const tradeId = details.trades[0]!.id;
    clock.advance(60_000);
    const later = (await account.details()).trades.find((t) => t.id === tradeId);
    if (later) expect(later.unrealizedPL).not.toBe(details.trades[0]!.unrealizedPL);
    expect(Number(details.unrealizedPL)).toBeCloseTo(
      details.trades.reduce((sum, t) => sum + Number(t.unrealizedPL), 0),
      2,
    );
  });

  it('reports closed trades with no units left and their fills in the changes', async () => {
    const { market, clock } = makeMarket();
    const account = new SimulatedAccount({ market });
    const since = (await account.summary()).lastTransactionId;
    clock.advance(72 * HOUR);
    const changes = await account.changesSince(since);
    expect(changes.tradesClosed.length).toBeGreaterThan(0);
    expect(changes.tradesClosed.every((t) => t.currentUnits === '0')).toBe(true);
    expect(changes.ordersFilled.length).toBeGreaterThanOrEqual(changes.tradesOpened.length);
    const closeFill = changes.transactions.find((t) => t.reason === 'MARKET_ORDER_TRADE_CLOSE')!;
    expect(closeFill.pl).toMatch(/^-?\d+\.\d{4}$/);
  });

  it('lists instruments from the market table in the OANDA shape', async () => {
    const { market } = makeMarket();
    const instruments = await new SimulatedAccount({ market }).instruments();
    expect(instruments).toHaveLength(market.symbols().length);
    expect(instruments.find((i) => i.name === 'USD_JPY')).toMatchObject({ pipLocation: -2, displayPrecision: 3, type: 'CURRENCY' });
    expect(instruments.find((i) => i.name === 'XAU_USD')).toMatchObject({ type: 'METAL', displayPrecision: 2 });
    expect(instruments.find((i) => i.name === 'EUR_USD')).toMatchObject({ pipLocation: -4, marginRate: '0.0333' });
  });

  it('refuses a transaction id that is not a number with not_found', async () => {
    const { market } = makeMarket();
    await expect(new SimulatedAccount({ market }).changesSince('abc')).rejects.toMatchObject({ kind: 'not_found' });
  });

  it('trades only while the market is open', async () => {
    const { market, clock } = makeMarket();
    const account = new SimulatedAccount({ market });
    clock.advance(7 * 24 * HOUR);
    const { transactions } = await account.changesSince('2');
    expect(transactions.every((t) => market.isOpen(Date.parse(t.time)))).toBe(true);
  });
});
