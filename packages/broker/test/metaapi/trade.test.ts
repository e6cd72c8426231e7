import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RETCODE, outcomeOfRetcode } from '../../src/mt5-retcodes.js';
import type { TradeRequest } from '../../src/terminal.js';
import { errorBody, throttled } from './fake-metaapi-server.js';
import { failure, fakeSetup, marketBuyOf, TRADE_TIMEOUT_MS, type FakeSetup } from './harness.js';

const MAGIC = 880_001;
/** The execution service's comment: MT5's 31 characters. */
const COMMENT = 'tradingview:3f5a0c1e9b7d24a6c8e';

const marketBuy = (extra: Partial<TradeRequest> = {}) => marketBuyOf(MAGIC, COMMENT, { price: '1.08512', ...extra });

describe('MetaApi order_send', () => {
  let s: FakeSetup;

  beforeEach(async () => {
    s = await fakeSetup();
    await s.terminal.connect();
  });
  afterEach(async () => s.teardown());

  const lastTradeBody = () => s.fake.requests.filter((r) => r.route === 'trade').at(-1)?.body as Record<string, unknown>;

  it('sends a market order as MetatraderTrade: action type, volume and stops as numbers, slippage in points, the filling mode, no price', async () => {
    const tick = (await s.terminal.tick('EURUSD'))!;
    const sl = (tick.bid - 0.002).toFixed(5);
    await s.terminal.orderSend(marketBuy({ sl }));
    expect(lastTradeBody()).toEqual({
      actionType: 'ORDER_TYPE_BUY',
      symbol: 'EURUSD',
      volume: 0.1,
      stopLoss: Number(sl),
      comment: COMMENT.slice(0, 26),
      magic: MAGIC,
      slippage: 20,
      fillingModes: ['ORDER_FILLING_IOC'],
    });
  });

  it('sends a pending order with its open price and a specified expiration as an ISO time', async () => {
    const tick = (await s.terminal.tick('EURUSD'))!;
    const expiration = Math.floor(s.clock.now() / 1000) + 3600;
    const result = await s.terminal.orderSend({
      action: 'pending',
      symbol: 'EURUSD',
      type: 'buy_limit',
      volume: '0.01',
      price: (tick.ask - 0.01).toFixed(5),
      magic: MAGIC,
      comment: COMMENT,
      filling: 'RETURN',
      timeType: 'SPECIFIED',
      expiration,
    });
    expect(result.retcode).toBe(RETCODE.PLACED);
    expect(lastTradeBody()).toMatchObject({
      actionType: 'ORDER_TYPE_BUY_LIMIT',
      openPrice: Number((tick.ask - 0.01).toFixed(5)),
      expiration: { type: 'ORDER_TIME_SPECIFIED', time: new Date(expiration * 1000).toISOString() },
    });
  });

  it('cuts the comment to the 26 characters MetaApi keeps, and finds the order by the full comment', async () => {
    const result = await s.terminal.orderSend(marketBuy());
    const records = await s.terminal.findByComment(COMMENT, MAGIC);
    expect(records.map((r) => r.ticket)).toEqual(expect.arrayContaining([result.order, result.deal]));
    expect(records.every((r) => r.comment === COMMENT.slice(0, 26))).toBe(true);
  });

  it('reports a fill with the deal ticket, volume and price read from the position history', async () => {
    const result = await s.terminal.orderSend(marketBuy());
    const [deal] = (await s.terminal.findByComment(COMMENT, MAGIC)).filter((r) => r.kind === 'deal');
    expect(result).toMatchObject({ retcode: RETCODE.DONE, deal: deal?.ticket, volume: '0.1', price: deal?.price, position: result.order });
  });

  it('still reports a fill when its deal cannot be read, with the whole volume and no deal ticket', async () => {
    s.fake.inject({ route: 'history-deals', kind: 'status', status: 404, body: errorBody('NotFoundError', 'not found') });
    const result = await s.terminal.orderSend(marketBuy());
    expect(result).toMatchObject({ retcode: RETCODE.DONE, deal: null, volume: '0.10' });
    expect(result.comment).toMatch(/deal details unavailable/);
  });

  it("finds a fill's deal among the recent deals when MetaApi gives no position id", async () => {
    s.fake.inject({ route: 'trade', kind: 'execute-without', fields: ['positionId'] });
    const result = await s.terminal.orderSend(marketBuy());
    const [deal] = (await s.terminal.findByComment(COMMENT, MAGIC)).filter((r) => r.kind === 'deal');
    expect(result).toMatchObject({ retcode: RETCODE.DONE, deal: deal?.ticket, position: null });
  });

  it('never retries a trade that got no answer: one POST, then an ambiguous timeout', async () => {
    s.fake.inject({ route: 'trade', kind: 'hang', onArrive: () => s.clock.advance(TRADE_TIMEOUT_MS) });
    const err = await failure(s.terminal.orderSend(marketBuy()));
    expect(err.kind).toBe('timeout');
    expect(err.isAmbiguous).toBe(true);
    expect(s.fake.count('trade')).toBe(1);
  });

  it('reads a connection dropped during the trade as an ambiguous disconnect, sent once, and the trade may exist', async () => {
    s.fake.inject({ route: 'trade', kind: 'execute-then-reset' });
    const err = await failure(s.terminal.orderSend(marketBuy()));
    expect(err.kind).toBe('disconnected');
    expect(err.isAmbiguous).toBe(true);
    expect(s.fake.count('trade')).toBe(1);
    expect(s.terminal.isConnected()).toBe(false);
    await s.terminal.connect();
    expect((await s.terminal.findByComment(COMMENT, MAGIC)).some((r) => r.kind === 'deal')).toBe(true);
  });

  it('never retries a trade answered with a 5xx: the outcome is unknown', async () => {
    s.fake.inject({ route: 'trade', kind: 'status', status: 500, body: errorBody('InternalError', 'unexpected') });
    const err = await failure(s.terminal.orderSend(marketBuy()));
    expect(err.isAmbiguous).toBe(true);
    expect(s.fake.count('trade')).toBe(1);
  });

  it('throws an ambiguous disconnect on -11 TRADE_RETCODE_DISCONNECTED_DURING_TRADE and marks the terminal down', async () => {
    s.fake.inject({ route: 'trade', kind: 'trade-code', numericCode: -11, stringCode: 'TRADE_RETCODE_DISCONNECTED_DURING_TRADE', execute: true });
    const err = await failure(s.terminal.orderSend(marketBuy()));
    expect(err).toMatchObject({ kind: 'disconnected', venueCode: '-11' });
    expect(s.terminal.isConnected()).toBe(false);
  });

  it('answers 10031 CONNECTION for -10 TRADE_RETCODE_DISCONNECTED_BEFORE_TRADE and marks the terminal down', async () => {
    s.fake.setBrokerConnected(false);
    const result = await s.terminal.orderSend(marketBuy());
    expect(result.retcode).toBe(RETCODE.CONNECTION);
    expect(result.deal).toBeNull();
    expect(s.terminal.isConnected()).toBe(false);
  });

  it('answers 10024 TOO_MANY_REQUESTS with the wait when MetaApi throttles the trade', async () => {
    s.fake.inject(throttled('trade', 3, s.clock.now()));
    const result = await s.terminal.orderSend(marketBuy());
    expect(result.retcode).toBe(10024);
    expect(outcomeOfRetcode(result.retcode)).toBe('rejected');
    expect(result.comment).toMatch(/retry after 3 s/);
  });

  it('answers 10013 INVALID when MetaApi refuses the request as invalid (400 ValidationError)', async () => {
    s.fake.inject({ route: 'trade', kind: 'status', status: 400, body: errorBody('ValidationError', 'Validation failed') });
    const result = await s.terminal.orderSend(marketBuy());
    expect(result).toMatchObject({ retcode: RETCODE.INVALID, order: null });
  });

  it("keeps the MT5 code of a rejection with MetaApi's message", async () => {
    s.fake.inject({ route: 'trade', kind: 'trade-code', numericCode: 10016, stringCode: 'TRADE_RETCODE_INVALID_STOPS', message: 'Invalid stops' });
    expect(await s.terminal.orderSend(marketBuy())).toMatchObject({ retcode: RETCODE.INVALID_STOPS, comment: 'Invalid stops', deal: null });
  });

  it('reads contradictory codes as 10011 ERROR, an unknown outcome', async () => {
    s.fake.inject({ route: 'trade', kind: 'trade-code', numericCode: 10009, stringCode: 'TRADE_RETCODE_REJECT' });
    const result = await s.terminal.orderSend(marketBuy());
    expect(result.retcode).toBe(RETCODE.ERROR);
    expect(outcomeOfRetcode(result.retcode)).toBe('unknown');
  });

  it('keeps a code MT5 does not document, so its outcome stays unknown', async () => {
    s.fake.inject({ route: 'trade', kind: 'trade-code', numericCode: -7, stringCode: 'TRADE_RETCODE_SOMETHING_NEW' });
    expect(outcomeOfRetcode((await s.terminal.orderSend(marketBuy())).retcode)).toBe('unknown');
  });

  it('reads MT4-style success 0 ERR_NO_ERROR as DONE for a deal', async () => {
    s.fake.inject({ route: 'trade', kind: 'trade-code', numericCode: 0, stringCode: 'ERR_NO_ERROR' });
    expect((await s.terminal.orderSend(marketBuy())).retcode).toBe(RETCODE.DONE);
  });
});
