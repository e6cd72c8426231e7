import { decimalFromNumber } from '@fxdesk/primitives';
import { afterEach, describe, expect, it } from 'vitest';
import { BrokerError } from '../../src/errors.js';
import { RETCODE } from '../../src/mt5-retcodes.js';
import { TRADE_LIMITS } from '../../src/ctrader/trade-budget.js';
import { PayloadType } from '../../src/ctrader/wire.js';
import type { TradeRequest } from '../../src/terminal.js';
import { REQUEST_TIMEOUT_MS, startTerminal, type TerminalRig } from './terminal-harness.js';

const rigs: TerminalRig[] = [];
afterEach(async () => {
  for (const rig of rigs.splice(0)) await rig.teardown();
});

async function connected(options: Parameters<typeof startTerminal>[0] = {}): Promise<TerminalRig> {
  const rig = await startTerminal(options);
  rigs.push(rig);
  await rig.terminal.connect();
  return rig;
}

const buy = (extra: Partial<TradeRequest> = {}): TradeRequest => ({
  action: 'deal',
  symbol: 'EURUSD',
  type: 'buy',
  volume: '0.25',
  magic: 4242,
  comment: 'sig-0001',
  filling: 'IOC',
  ...extra,
});

const sent = (rig: TerminalRig, payloadType: number) => rig.fake.messages(payloadType).map((m) => m.payload);

describe('cTrader orders on the wire', () => {
  it('sends a market order in cents of units, its stops relative to the quote, the magic in its label and the comment as comment and clientOrderId', async () => {
    const rig = await connected();
    const tick = (await rig.terminal.tick('EURUSD'))!;
    const sl = decimalFromNumber(tick.bid - 0.005, 5);
    const tp = decimalFromNumber(tick.ask + 0.004, 5);
    const result = await rig.terminal.orderSend(buy({ sl, tp }));
    expect(result.retcode).toBe(RETCODE.DONE);
    const [order] = sent(rig, PayloadType.NEW_ORDER_REQ);
    // 0.25 lots of 100 000 units = 25 000 units = 2 500 000 cents; relative stops in 1/100000 of the price.
    expect(order).toMatchObject({ symbolId: 1, orderType: 'MARKET', tradeSide: 'BUY', volume: 2_500_000, timeInForce: 'IMMEDIATE_OR_CANCEL' });
    expect(order).toMatchObject({ label: 'fxdesk:4242', comment: 'sig-0001', clientOrderId: 'sig-0001' });
    expect(order!.relativeStopLoss).toBe(Math.round((tick.ask - Number(sl)) * 100_000));
    expect(order!.relativeTakeProfit).toBe(Math.round((Number(tp) - tick.ask) * 100_000));
    expect(order).not.toHaveProperty('stopLoss');
    const [position] = await rig.terminal.positions();
    expect(position).toMatchObject({ sl, tp, magic: 4242, comment: 'sig-0001', volume: '0.25' });
  });

  it('sends a buy limit with its absolute price and stops, good till the date in milliseconds', async () => {
    const rig = await connected();
    const tick = (await rig.terminal.tick('EURUSD'))!;
    const expiration = Math.floor(tick.time / 1000) + 3600;
    const price = decimalFromNumber(tick.ask - 0.01, 5);
    const sl = decimalFromNumber(tick.ask - 0.02, 5);
    const result = await rig.terminal.orderSend({ ...buy({ sl }), action: 'pending', type: 'buy_limit', price, timeType: 'SPECIFIED', expiration });
    expect(result.retcode).toBe(RETCODE.PLACED);
    expect(sent(rig, PayloadType.NEW_ORDER_REQ)[0]).toMatchObject({
      orderType: 'LIMIT',
      limitPrice: Number(price),
      stopLoss: Number(sl),
      timeInForce: 'GOOD_TILL_DATE',
      expirationTimestamp: expiration * 1000,
    });
  });

  it('counts lots by the symbol’s own lotSize: an XAUUSD lot is 100 ounces', async () => {
    const rig = await connected();
    const info = (await rig.terminal.symbolInfo('XAUUSD'))!;
    expect(info).toMatchObject({ contractSize: 100, volumeMin: '0.01', volumeStep: '0.01', digits: 2 });
    expect((await rig.terminal.orderSend(buy({ symbol: 'XAUUSD', volume: '0.5' }))).retcode).toBe(RETCODE.DONE);
    expect(sent(rig, PayloadType.NEW_ORDER_REQ)[0]).toMatchObject({ symbolId: 41, volume: 5_000 });
  });

  it('closes part of a position with ProtoOAClosePositionReq of that volume', async () => {
    const rig = await connected();
    const opened = await rig.terminal.orderSend(buy({ volume: '1' }));
    const closed = await rig.terminal.closePosition({ position: opened.position!, volume: '0.4', magic: 4242, comment: 'sig-0001-x' });
    expect(closed).toMatchObject({ retcode: RETCODE.DONE, volume: '0.4', position: opened.position });
    expect(sent(rig, PayloadType.CLOSE_POSITION_REQ)).toEqual([{ ctidTraderAccountId: 22_334_455, positionId: Number(opened.position), volume: 4_000_000 }]);
    expect((await rig.terminal.positions())[0]!.volume).toBe('0.6');
  });

  it('amends a position’s stops with both legs, a removed leg left out of ProtoOAAmendPositionSLTPReq', async () => {
    const rig = await connected();
    const tick = (await rig.terminal.tick('EURUSD'))!;
    const opened = await rig.terminal.orderSend(buy({ tp: decimalFromNumber(tick.ask + 0.004, 5) }));
    const sl = decimalFromNumber(tick.bid - 0.003, 5);
    expect((await rig.terminal.modifyPosition({ position: opened.position!, sl, tp: null })).retcode).toBe(RETCODE.DONE);
    expect(sent(rig, PayloadType.AMEND_POSITION_SLTP_REQ)).toEqual([
      { ctidTraderAccountId: 22_334_455, positionId: Number(opened.position), stopLoss: Number(sl) },
    ]);
    expect((await rig.terminal.positions())[0]).toMatchObject({ sl, tp: null });
  });

  it('answers a refusal of the venue with its retcode: ORDER_REJECTED NOT_ENOUGH_MONEY is 10019, ProtoOAOrderErrorEvent MARKET_CLOSED 10018', async () => {
    const rig = await connected();
    expect((await rig.terminal.orderSend(buy({ volume: '99' }))).retcode).toBe(RETCODE.NO_MONEY);
    rig.fake.closeMarket('EURUSD');
    const closed = await rig.terminal.orderSend(buy());
    expect(closed).toMatchObject({ retcode: RETCODE.MARKET_CLOSED, deal: null, order: null });
    expect(closed.comment).toContain('MARKET_CLOSED');
    expect(sent(rig, PayloadType.NEW_ORDER_REQ)).toHaveLength(2);
  });
});

describe('cTrader trading rate limits', () => {
  it('refuses a new order over the limit with 10024, unsent, and sends again once the window has room', async () => {
    const tradeLimits = { ...TRADE_LIMITS, newOrder: [{ limit: 2, windowMs: 60_000 }] };
    const rig = await connected({ terminal: { tradeLimits } });
    expect((await rig.terminal.orderSend(buy())).retcode).toBe(RETCODE.DONE);
    await rig.advance(30_000);
    expect((await rig.terminal.orderSend(buy())).retcode).toBe(RETCODE.DONE);
    expect((await rig.terminal.orderSend(buy())).retcode).toBe(10024);
    expect(sent(rig, PayloadType.NEW_ORDER_REQ)).toHaveLength(2);
    await rig.advance(30_000);
    expect((await rig.terminal.orderSend(buy())).retcode).toBe(RETCODE.DONE);
  });
});

describe('cTrader answers that never come', () => {
  it('an order the venue took whose answer is lost is an ambiguous timeout, sent once, and found by its comment', async () => {
    const rig = await connected();
    rig.fake.inject({ payloadTypes: [PayloadType.NEW_ORDER_REQ], kind: 'execute-then-hang', onArrive: () => rig.clock.advance(REQUEST_TIMEOUT_MS) });
    const err = await rig.terminal.orderSend(buy()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BrokerError);
    expect((err as BrokerError).kind).toBe('timeout');
    expect((err as BrokerError).isAmbiguous).toBe(true);
    expect(sent(rig, PayloadType.NEW_ORDER_REQ)).toHaveLength(1);
    const records = await rig.terminal.findByComment('sig-0001', 4242);
    expect(records.map((r) => [r.kind, r.state])).toEqual(
      expect.arrayContaining([
        ['deal', 'filled'],
        ['order', 'filled'],
      ]),
    );
  });

  it('a connection lost after the send is ambiguous, and the order is not sent again after reconnecting', async () => {
    const rig = await connected();
    rig.fake.inject({ payloadTypes: [PayloadType.NEW_ORDER_REQ], kind: 'execute-then-drop' });
    const err = await rig.terminal.orderSend(buy()).catch((e: unknown) => e);
    expect((err as BrokerError).kind).toBe('disconnected');
    expect((err as BrokerError).isAmbiguous).toBe(true);
    await rig.terminal.connect();
    expect(rig.fake.handshakes).toHaveLength(2);
    expect(sent(rig, PayloadType.NEW_ORDER_REQ)).toHaveLength(1);
    expect((await rig.terminal.positions()).map((p) => p.comment)).toEqual(['sig-0001']);
  });

  it('a close whose answer is lost is found by the close’s comment, which ProtoOAClosePositionReq cannot carry', async () => {
    const rig = await connected();
    const opened = await rig.terminal.orderSend(buy());
    rig.fake.inject({ payloadTypes: [PayloadType.CLOSE_POSITION_REQ], kind: 'execute-then-hang', onArrive: () => rig.clock.advance(REQUEST_TIMEOUT_MS) });
    await expect(rig.terminal.closePosition({ position: opened.position!, volume: '0.25', magic: 4242, comment: 'sig-0001-close' })).rejects.toThrow(
      BrokerError,
    );
    const [deal] = (await rig.terminal.findByComment('sig-0001-close', 4242)).filter((r) => r.kind === 'deal');
    expect(deal).toMatchObject({ type: 'sell', position: opened.position, comment: 'sig-0001-close' });
  });
});
