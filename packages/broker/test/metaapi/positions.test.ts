import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RETCODE } from '../../src/mt5-retcodes.js';
import { errorBody } from './fake-metaapi-server.js';
import { failure, fakeSetup, marketBuyOf, READ_TIMEOUT_MS, TRADE_TIMEOUT_MS, type FakeSetup } from './harness.js';

const MAGIC = 880_002;
/** The execution service's comment: MT5's 31 characters. */
const COMMENT = 'tradingview:c1o5e0d2a4b6c8e0f1a';

/** A MetatraderPosition as MetaApi documents it, with what a test changes. */
function wirePosition(fields: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: '46648037',
    type: 'POSITION_TYPE_BUY',
    symbol: 'AUDNZD',
    magic: 1000,
    time: '2026-01-07T11:30:00.000Z',
    brokerTime: '2026-01-07 13:30:00.000',
    updateTime: '2026-01-07T11:30:00.000Z',
    openPrice: 1.06062,
    currentPrice: 1.0616,
    currentTickValue: 0.6,
    stopLoss: 1.05,
    volume: 0.07,
    swap: -1.5,
    unrealizedSwap: -0.5,
    profit: 12.4,
    unrealizedProfit: 4.1,
    realizedProfit: 8.3,
    comment: 'a comment',
    ...fields,
  };
}

describe('MetaApi positions and orders', () => {
  let s: FakeSetup;

  beforeEach(async () => {
    s = await fakeSetup();
    await s.terminal.connect();
  });
  afterEach(async () => s.teardown());

  const tradeBodies = () => s.fake.requests.filter((r) => r.route === 'trade').map((r) => r.body as Record<string, unknown>);
  const openBuy = async (volume = '0.10') => (await s.terminal.orderSend(marketBuyOf(MAGIC, COMMENT, { volume }))).position!;
  const closeOf = (position: string, volume: string) => ({ position, volume, deviation: 15, magic: MAGIC, comment: COMMENT });

  describe('reads', () => {
    it('reads the account’s money from account-information, as MT5 account_info', async () => {
      await openBuy();
      const info = await s.terminal.accountInfo();
      expect(info).toMatchObject({ currency: 'USD', leverage: expect.any(Number) });
      expect(info.margin).toBeGreaterThan(0);
      expect(info.marginFree).toBeCloseTo(info.equity - info.margin, 6);
    });

    it('reads a position with the profit and swap of its open volume, not the cumulative profit', async () => {
      s.fake.inject({ route: 'positions', kind: 'status', status: 200, body: [wirePosition()] });
      expect(await s.terminal.positions()).toEqual([
        {
          ticket: '46648037',
          symbol: 'AUDNZD',
          side: 'buy',
          volume: '0.07',
          openPrice: '1.06062',
          sl: '1.05',
          tp: null,
          profit: 4.1,
          swap: -0.5,
          magic: 1000,
          comment: 'a comment',
          openTime: Date.UTC(2026, 0, 7, 11, 30),
        },
      ]);
    });

    it('lists positions oldest first and only those of the symbol asked for', async () => {
      const body = [
        wirePosition({ id: '3', symbol: 'EURUSD', time: '2026-01-07T11:40:00.000Z' }),
        wirePosition({ id: '2', symbol: 'EURUSD', time: '2026-01-07T11:30:00.000Z' }),
        wirePosition({ id: '1', symbol: 'AUDNZD' }),
      ];
      s.fake.inject({ route: 'positions', kind: 'status', status: 200, body });
      expect((await s.terminal.positions({ symbol: 'EURUSD' })).map((p) => p.ticket)).toEqual(['2', '3']);
    });

    it('lists the pending orders with their expiration, leaving out a market order in flight and a stop-limit', async () => {
      const order = {
        state: 'ORDER_STATE_PLACED',
        magic: 7,
        time: '2026-01-07T11:00:00.000Z',
        symbol: 'EURUSD',
        openPrice: 1.07,
        volume: 0.2,
        currentVolume: 0.2,
      };
      const body = [
        {
          ...order,
          id: '11',
          type: 'ORDER_TYPE_BUY_LIMIT',
          takeProfit: 1.09,
          expirationType: 'ORDER_TIME_SPECIFIED',
          expirationTime: '2026-01-08T00:00:00.000Z',
        },
        { ...order, id: '12', type: 'ORDER_TYPE_BUY' },
        { ...order, id: '13', type: 'ORDER_TYPE_BUY_STOP_LIMIT' },
        { ...order, id: '14', type: 'ORDER_TYPE_SELL_STOP', expirationType: 'ORDER_TIME_GTC' },
      ];
      s.fake.inject({ route: 'orders', kind: 'status', status: 200, body });
      const orders = await s.terminal.orders();
      expect(orders.map((o) => [o.ticket, o.type, o.expiration])).toEqual([
        ['11', 'buy_limit', Date.UTC(2026, 0, 8)],
        ['14', 'sell_stop', null],
      ]);
      expect(orders[0]).toMatchObject({ price: '1.07', volume: '0.2', sl: null, tp: '1.09' });
    });

    it('marks the terminal down when a read of the positions meets 504, its terminal not connected to the broker', async () => {
      s.fake.setBrokerConnected(false);
      expect((await failure(s.terminal.positions())).kind).toBe('disconnected');
      expect(s.terminal.isConnected()).toBe(false);
    });

    it('counts the calls it receives', async () => {
      await s.terminal.positions();
      await s.terminal.orders();
      await s.terminal.cancelOrder({ order: '1' });
      expect(s.terminal.stats).toMatchObject({ positionsCalls: 1, ordersCalls: 1, cancelOrderCalls: 1, closePositionCalls: 0, modifyPositionCalls: 0 });
    });
  });

  describe('closing', () => {
    it('closes a whole position with POSITION_CLOSE_ID after reading it with a refreshed terminal state', async () => {
      const ticket = await openBuy();
      await s.terminal.closePosition(closeOf(ticket, '0.1'));
      expect(s.fake.requests.filter((r) => r.route === 'positions').at(-1)?.path).toMatch(/[?&]refreshTerminalState=true/);
      expect(tradeBodies().at(-1)).toEqual({ actionType: 'POSITION_CLOSE_ID', positionId: ticket, comment: COMMENT.slice(0, 26), magic: MAGIC, slippage: 15 });
    });

    it('closes part of a position with POSITION_PARTIAL and its volume, and reports the closing deal', async () => {
      const ticket = await openBuy('0.30');
      const result = await s.terminal.closePosition(closeOf(ticket, '0.10'));
      expect(tradeBodies().at(-1)).toMatchObject({ actionType: 'POSITION_PARTIAL', positionId: ticket, volume: 0.1 });
      const deal = (await s.terminal.findByComment(COMMENT, MAGIC)).find((r) => r.kind === 'deal' && r.type === 'sell');
      expect(result).toMatchObject({ retcode: RETCODE.DONE, deal: deal?.ticket, volume: '0.1', price: deal?.price, position: ticket });
      expect((await s.terminal.positions()).find((p) => p.ticket === ticket)?.volume).toBe('0.2');
    });

    it('answers 10036 without sending anything for a position MetaApi does not list', async () => {
      expect((await s.terminal.closePosition(closeOf('123456', '0.1'))).retcode).toBe(RETCODE.POSITION_CLOSED);
      expect(s.fake.count('trade')).toBe(0);
    });

    it('fails definite (unavailable), sending nothing, when the read of the position before a close times out', async () => {
      const ticket = await openBuy();
      s.fake.inject({ route: 'positions', kind: 'hang', onArrive: () => s.clock.advance(READ_TIMEOUT_MS) });
      const err = await failure(s.terminal.closePosition(closeOf(ticket, '0.1')));
      expect(err).toMatchObject({ kind: 'unavailable', isAmbiguous: false });
      expect(s.fake.count('trade')).toBe(1);
    });

    it('answers 10038 without sending anything for a volume above the open one', async () => {
      const ticket = await openBuy();
      expect((await s.terminal.closePosition(closeOf(ticket, '0.2'))).retcode).toBe(RETCODE.INVALID_CLOSE_VOLUME);
      expect(s.fake.count('trade')).toBe(1);
    });

    it('reads 4753 ERR_TRADE_POSITION_NOT_FOUND, a position closed since it was read, as 10036', async () => {
      const ticket = await openBuy();
      s.fake.inject({ route: 'trade', kind: 'trade-code', numericCode: 4753, stringCode: 'ERR_TRADE_POSITION_NOT_FOUND', message: 'Position not found' });
      expect(await s.terminal.closePosition(closeOf(ticket, '0.1'))).toMatchObject({ retcode: RETCODE.POSITION_CLOSED, deal: null });
    });

    it('answers 10013 INVALID when MetaApi refuses the close as invalid (400 ValidationError)', async () => {
      const ticket = await openBuy();
      s.fake.inject({ route: 'trade', kind: 'status', status: 400, body: errorBody('ValidationError', 'Validation failed') });
      expect((await s.terminal.closePosition(closeOf(ticket, '0.1'))).retcode).toBe(RETCODE.INVALID);
    });

    it('never retries a close that got no answer: one POST, then an ambiguous timeout', async () => {
      const ticket = await openBuy();
      s.fake.inject({ route: 'trade', kind: 'hang', onArrive: () => s.clock.advance(TRADE_TIMEOUT_MS) });
      const err = await failure(s.terminal.closePosition(closeOf(ticket, '0.1')));
      expect(err).toMatchObject({ kind: 'timeout', isAmbiguous: true });
      expect(tradeBodies().filter((b) => b.actionType === 'POSITION_CLOSE_ID')).toHaveLength(1);
    });

    it('throws an ambiguous disconnect on -11 during a close and marks the terminal down', async () => {
      const ticket = await openBuy();
      s.fake.inject({ route: 'trade', kind: 'trade-code', numericCode: -11, stringCode: 'TRADE_RETCODE_DISCONNECTED_DURING_TRADE', execute: true });
      const err = await failure(s.terminal.closePosition(closeOf(ticket, '0.1')));
      expect(err).toMatchObject({ kind: 'disconnected', isAmbiguous: true, venueCode: '-11' });
      expect(s.terminal.isConnected()).toBe(false);
    });
  });

  describe('modifying and cancelling', () => {
    it('sends POSITION_MODIFY with both stops', async () => {
      const ticket = await openBuy();
      const { bid, ask } = (await s.terminal.tick('EURUSD'))!;
      const [sl, tp] = [(bid - 0.002).toFixed(5), (ask + 0.003).toFixed(5)];
      expect((await s.terminal.modifyPosition({ position: ticket, sl, tp })).retcode).toBe(RETCODE.DONE);
      expect(tradeBodies().at(-1)).toEqual({ actionType: 'POSITION_MODIFY', positionId: ticket, stopLoss: Number(sl), takeProfit: Number(tp) });
    });

    it('leaves a null stop out of POSITION_MODIFY, which removes it', async () => {
      const { bid, ask } = (await s.terminal.tick('EURUSD'))!;
      const ticket = (await s.terminal.orderSend(marketBuyOf(MAGIC, COMMENT, { tp: (ask + 0.003).toFixed(5) }))).position!;
      const sl = (bid - 0.002).toFixed(5);
      expect((await s.terminal.modifyPosition({ position: ticket, sl, tp: null })).retcode).toBe(RETCODE.DONE);
      expect(tradeBodies().at(-1)).toEqual({ actionType: 'POSITION_MODIFY', positionId: ticket, stopLoss: Number(sl) });
      expect((await s.terminal.positions()).find((p) => p.ticket === ticket)).toMatchObject({ sl, tp: null });
    });

    it('reads 0 ERR_NO_ERROR for a modification as 10009 DONE', async () => {
      const ticket = await openBuy();
      s.fake.inject({ route: 'trade', kind: 'trade-code', numericCode: 0, stringCode: 'ERR_NO_ERROR', execute: true });
      const { bid } = (await s.terminal.tick('EURUSD'))!;
      expect(await s.terminal.modifyPosition({ position: ticket, sl: (bid - 0.002).toFixed(5), tp: null })).toMatchObject({
        retcode: RETCODE.DONE,
        position: ticket,
      });
    });

    it('cancels an order with ORDER_CANCEL and its id', async () => {
      const { ask } = (await s.terminal.tick('EURUSD'))!;
      const limit = { action: 'pending' as const, type: 'buy_limit' as const, price: (ask - 0.01).toFixed(5), filling: 'RETURN' as const };
      const placed = await s.terminal.orderSend(marketBuyOf(MAGIC, COMMENT, limit));
      expect(await s.terminal.cancelOrder({ order: placed.order! })).toMatchObject({ retcode: RETCODE.DONE, order: placed.order });
      expect(tradeBodies().at(-1)).toEqual({ actionType: 'ORDER_CANCEL', orderId: placed.order });
    });

    it('reads 4754 ERR_TRADE_ORDER_NOT_FOUND, an order that no longer rests, as 10013 INVALID', async () => {
      const result = await s.terminal.cancelOrder({ order: '987654' });
      expect(result).toMatchObject({ retcode: RETCODE.INVALID, order: null });
      expect(result.comment).toMatch(/order not found/i);
    });
  });
});
