/**
 * The contract every TradingTerminal implementation passes: the simulated terminal, and each
 * real adapter against its local fake server. A setup builds a fresh terminal (not yet
 * connected) with the controls below; a fake-server-backed adapter implements them by driving
 * its fake server.
 */
import { addDecimal, compareDecimal, formatDecimal, multiplyDecimal, subtractDecimal } from '@fxdesk/primitives';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BrokerError } from '../../src/errors.js';
import { RETCODE, outcomeOfRetcode } from '../../src/mt5-retcodes.js';
import type { SymbolInfo, TradeRequest, TradingTerminal } from '../../src/terminal.js';

export interface TradingTerminalHarness {
  /** A terminal not yet connected; the suite connects it. */
  terminal: TradingTerminal;
  /** A symbol the venue trades, its market open when the harness is made. */
  symbol: string;
  /** A valid volume above what one deal fills at once: IOC fills part of it. */
  partialVolume: string;
  /** A valid volume whose margin exceeds the account's free margin. */
  unaffordableVolume: string;
  /** Closes the symbol's market (the simulated venue moves its clock to a weekend). */
  closeMarket(): Promise<void>;
  /** Arms a fault on the next `times` calls (default 1) of `method`. */
  injectFault(fault: { method: TradeMethod | 'orderCheck'; kind: 'timeout' | 'disconnect' | 'ambiguous'; times?: number }): Promise<void>;
  /** Brings the connection back after an injected disconnect. */
  reconnect(): Promise<void>;
  /** Lets time pass at the venue (resting orders trigger or expire). */
  advance(ms: number): Promise<void>;
  teardown(): Promise<void>;
}

/** The calls that trade: each may reach the venue without an answer. */
type TradeMethod = 'orderSend' | 'closePosition' | 'modifyPosition' | 'cancelOrder';

const MAGIC = 424_242;
const OTHER_MAGIC = 515_151;

/** An exact price `points` points away from `price` (negative = below). */
function offsetPrice(price: number, points: number, info: SymbolInfo): string {
  const point = formatDecimal({ units: 1n, scale: info.digits });
  const base = price.toFixed(info.digits);
  return points >= 0 ? addDecimal(base, multiplyDecimal(String(points), point)) : subtractDecimal(base, multiplyDecimal(String(-points), point));
}

async function expectBrokerError(promise: Promise<unknown>, kind: BrokerError['kind']): Promise<BrokerError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(BrokerError);
  expect((err as BrokerError).kind).toBe(kind);
  return err as BrokerError;
}

export function tradingTerminalContract(name: string, setup: () => Promise<TradingTerminalHarness>): void {
  describe(`TradingTerminal contract: ${name}`, () => {
    let h: TradingTerminalHarness;
    let terminal: TradingTerminal;
    let info: SymbolInfo;
    let commentSeq = 0;

    /** A comment no other order of this test carries. */
    const comment = (tag: string) => `ctr-${tag}-${++commentSeq}`;

    const marketBuy = (volume: string, extra: Partial<TradeRequest> = {}): TradeRequest => ({
      action: 'deal',
      symbol: h.symbol,
      type: 'buy',
      volume,
      magic: MAGIC,
      comment: comment('buy'),
      filling: 'IOC',
      ...extra,
    });

    /** A buy limit far enough below the market that it cannot trigger during a test. */
    const farBuyLimit = async (extra: Partial<TradeRequest> = {}): Promise<TradeRequest> => {
      const tick = (await terminal.tick(h.symbol))!;
      const distance = Math.max(info.stopsLevel, 1) * 10 + 2000;
      return {
        action: 'pending',
        symbol: h.symbol,
        type: 'buy_limit',
        volume: info.volumeMin,
        price: offsetPrice(tick.ask, -distance, info),
        magic: MAGIC,
        comment: comment('limit'),
        timeType: 'GTC',
        ...extra,
      };
    };

    /** A market buy that fills whole; answers its position's ticket. */
    const openBuy = async (volume: string, extra: Partial<TradeRequest> = {}): Promise<string> => {
      const result = await terminal.orderSend(marketBuy(volume, extra));
      expect(result.retcode).toBe(RETCODE.DONE);
      return result.position!;
    };

    const positionOf = async (ticket: string) => (await terminal.positions()).find((p) => p.ticket === ticket);

    /** A stop loss of a buy this many stops levels (at least 10 points each) below the bid. */
    const buyStopLoss = async (levels: number): Promise<string> => {
      const tick = (await terminal.tick(h.symbol))!;
      return offsetPrice(tick.bid, -(Math.max(info.stopsLevel, 10) * levels), info);
    };

    const closeOf = (position: string, volume: string, tag = 'close') => ({ position, volume, magic: MAGIC, comment: comment(tag) });

    beforeEach(async () => {
      h = await setup();
      terminal = h.terminal;
      await terminal.connect();
      const found = await terminal.symbolInfo(h.symbol);
      if (!found) throw new Error(`the harness symbol ${h.symbol} is not listed`);
      info = found;
    });

    afterEach(async () => {
      await h.teardown();
    });

    describe('connection and market data', () => {
      it('is connected after connect()', () => {
        expect(terminal.isConnected()).toBe(true);
      });

      it('describes a symbol with its MT5 trading rules', () => {
        expect(info.symbol).toBe(h.symbol);
        expect(Number.isInteger(info.digits)).toBe(true);
        expect(info.point).toBeCloseTo(10 ** -info.digits, 12);
        expect(compareDecimal(info.volumeMin, '0')).toBe(1);
        expect(compareDecimal(info.volumeMin, info.volumeMax)).toBeLessThanOrEqual(0);
        expect(compareDecimal(info.volumeStep, '0')).toBe(1);
        expect(info.stopsLevel).toBeGreaterThanOrEqual(0);
        expect(info.freezeLevel).toBeGreaterThanOrEqual(0);
        expect(info.fillingModes.length).toBeGreaterThan(0);
        expect(info.expirationModes).toContain('SPECIFIED');
        expect(info.tradeMode).toBe('full');
      });

      it('answers null for a symbol it does not list', async () => {
        expect(await terminal.symbolInfo('NOSUCH')).toBeNull();
      });

      it('quotes the symbol with the bid below the ask', async () => {
        const tick = await terminal.tick(h.symbol);
        expect(tick).not.toBeNull();
        expect(tick!.symbol).toBe(h.symbol);
        expect(tick!.bid).toBeLessThan(tick!.ask);
        expect(Number.isFinite(tick!.time)).toBe(true);
      });

      it('returns the latest bars oldest first, only the last one forming', async () => {
        const bars = await terminal.rates(h.symbol, 'M5', 50);
        expect(bars.length).toBeGreaterThan(0);
        expect(bars.length).toBeLessThanOrEqual(50);
        for (const [i, bar] of bars.entries()) {
          expect(bar.time % 300).toBe(0);
          if (i > 0) expect(bar.time).toBeGreaterThan(bars[i - 1]!.time);
          if (i < bars.length - 1) expect(bar.closed).toBe(true);
          expect(bar.low).toBeLessThanOrEqual(Math.min(bar.open, bar.close));
          expect(bar.high).toBeGreaterThanOrEqual(Math.max(bar.open, bar.close));
        }
      });
    });

    describe('successful orders', () => {
      it('passes order_check with retcode 0 for a valid market order', async () => {
        const check = await terminal.orderCheck(marketBuy(info.volumeMin));
        expect(check.retcode).toBe(0);
        expect(check.marginFree).toBeLessThanOrEqual(check.equity);
      });

      it('fills a market buy at the ask with 10009', async () => {
        const result = await terminal.orderSend(marketBuy(info.volumeMin));
        expect(result.retcode).toBe(RETCODE.DONE);
        expect(result.deal).not.toBeNull();
        expect(result.order).not.toBeNull();
        expect(compareDecimal(result.volume, info.volumeMin)).toBe(0);
        expect(result.price).not.toBeNull();
        if (result.ask !== null) expect(Number(result.price)).toBeCloseTo(result.ask, info.digits);
      });

      it('fills part of a volume above the available liquidity with 10010', async () => {
        const result = await terminal.orderSend(marketBuy(h.partialVolume, { filling: 'IOC' }));
        expect(result.retcode).toBe(RETCODE.DONE_PARTIAL);
        expect(result.deal).not.toBeNull();
        expect(compareDecimal(result.volume, '0')).toBe(1);
        expect(compareDecimal(result.volume, h.partialVolume)).toBe(-1);
      });

      it('never partially fills a fill-or-kill order', async () => {
        const result = await terminal.orderSend(marketBuy(h.partialVolume, { filling: 'FOK' }));
        expect(outcomeOfRetcode(result.retcode)).toBe('rejected');
        expect(result.deal).toBeNull();
      });

      it('places a buy limit below the market with 10008, and it rests', async () => {
        const request = await farBuyLimit();
        const result = await terminal.orderSend(request);
        expect(result.retcode).toBe(RETCODE.PLACED);
        expect(result.order).not.toBeNull();
        expect(result.deal).toBeNull();
        const [record] = await terminal.findByComment(request.comment, MAGIC);
        expect(record).toMatchObject({ kind: 'order', ticket: result.order, state: 'placed', type: 'buy_limit' });
      });

      it('expires a pending order at its specified expiration', async () => {
        const tick = (await terminal.tick(h.symbol))!;
        const request = await farBuyLimit({ timeType: 'SPECIFIED', expiration: Math.floor(tick.time / 1000) + 120 });
        expect((await terminal.orderSend(request)).retcode).toBe(RETCODE.PLACED);
        await h.advance(180_000);
        const [record] = await terminal.findByComment(request.comment, MAGIC);
        expect(record?.state).toBe('expired');
      });

      it('gives every order and deal its own ticket', async () => {
        const a = await terminal.orderSend(marketBuy(info.volumeMin));
        const b = await terminal.orderSend(marketBuy(info.volumeMin));
        const tickets = [a.order, a.deal, b.order, b.deal];
        expect(new Set(tickets).size).toBe(4);
      });
    });

    describe('rejections', () => {
      it('rejects a volume below the minimum with 10014', async () => {
        const below = subtractDecimal(info.volumeMin, multiplyDecimal(info.volumeStep, '0.5'));
        expect((await terminal.orderSend(marketBuy(below))).retcode).toBe(RETCODE.INVALID_VOLUME);
      });

      it('rejects a volume above the maximum with 10014', async () => {
        const above = addDecimal(info.volumeMax, info.volumeStep);
        expect((await terminal.orderSend(marketBuy(above))).retcode).toBe(RETCODE.INVALID_VOLUME);
      });

      it('rejects a volume off the volume step with 10014', async () => {
        const offStep = addDecimal(info.volumeMin, multiplyDecimal(info.volumeStep, '0.5'));
        expect((await terminal.orderSend(marketBuy(offStep))).retcode).toBe(RETCODE.INVALID_VOLUME);
      });

      it('answers order_check with the same code as order_send, trading nothing', async () => {
        const request = marketBuy(addDecimal(info.volumeMax, info.volumeStep));
        expect((await terminal.orderCheck(request)).retcode).toBe(RETCODE.INVALID_VOLUME);
        expect(await terminal.findByComment(request.comment, MAGIC)).toEqual([]);
      });

      it('rejects a stop loss above the price of a buy with 10016', async () => {
        const tick = (await terminal.tick(h.symbol))!;
        const sl = offsetPrice(tick.ask, Math.max(info.stopsLevel, 1) * 5 + 100, info);
        expect((await terminal.orderSend(marketBuy(info.volumeMin, { sl }))).retcode).toBe(RETCODE.INVALID_STOPS);
      });

      it('rejects a stop loss closer than the stops level with 10016', async () => {
        if (info.stopsLevel < 2) return;
        const tick = (await terminal.tick(h.symbol))!;
        const sl = offsetPrice(tick.bid, -(info.stopsLevel - 1), info);
        expect((await terminal.orderSend(marketBuy(info.volumeMin, { sl }))).retcode).toBe(RETCODE.INVALID_STOPS);
      });

      it('rejects a buy limit above the ask with 10015', async () => {
        const tick = (await terminal.tick(h.symbol))!;
        const request = await farBuyLimit({ price: offsetPrice(tick.ask, Math.max(info.stopsLevel, 1) * 5 + 100, info) });
        expect((await terminal.orderSend(request)).retcode).toBe(RETCODE.INVALID_PRICE);
      });

      it('rejects an expiration in the past with 10022', async () => {
        const tick = (await terminal.tick(h.symbol))!;
        const request = await farBuyLimit({ timeType: 'SPECIFIED', expiration: Math.floor(tick.time / 1000) - 60 });
        expect((await terminal.orderSend(request)).retcode).toBe(RETCODE.INVALID_EXPIRATION);
      });

      it('rejects an order while the market is closed with 10018', async () => {
        await h.closeMarket();
        expect((await terminal.orderCheck(marketBuy(info.volumeMin))).retcode).toBe(RETCODE.MARKET_CLOSED);
        expect((await terminal.orderSend(marketBuy(info.volumeMin))).retcode).toBe(RETCODE.MARKET_CLOSED);
      });

      it('rejects an order whose margin exceeds the free margin with 10019', async () => {
        expect((await terminal.orderSend(marketBuy(h.unaffordableVolume))).retcode).toBe(RETCODE.NO_MONEY);
      });
    });

    describe('positions and orders after entry', () => {
      it('lists an open position with its side, volume, open price, stops, magic and comment', async () => {
        const sl = await buyStopLoss(5);
        const request = marketBuy(info.volumeMin, { sl });
        const opened = await terminal.orderSend(request);
        const position = await positionOf(opened.position!);
        expect(position).toMatchObject({ symbol: h.symbol, side: 'buy', tp: null, magic: MAGIC, comment: request.comment });
        expect(compareDecimal(position!.volume, info.volumeMin)).toBe(0);
        expect(compareDecimal(position!.openPrice, opened.price!)).toBe(0);
        expect(compareDecimal(position!.sl!, sl)).toBe(0);
        expect(Number.isFinite(position!.profit + position!.swap + position!.openTime)).toBe(true);
      });

      it('lists only the positions of the symbol asked for', async () => {
        const ticket = await openBuy(info.volumeMin);
        expect((await terminal.positions({ symbol: h.symbol })).map((p) => p.ticket)).toContain(ticket);
        expect(await terminal.positions({ symbol: 'NOSUCH' })).toEqual([]);
      });

      it('lists a resting order with its type, price and expiration', async () => {
        const tick = (await terminal.tick(h.symbol))!;
        const expiration = Math.floor(tick.time / 1000) + 3600;
        const request = await farBuyLimit({ timeType: 'SPECIFIED', expiration });
        const placed = await terminal.orderSend(request);
        const order = (await terminal.orders({ symbol: h.symbol })).find((o) => o.ticket === placed.order);
        expect(order).toMatchObject({
          symbol: h.symbol,
          type: 'buy_limit',
          sl: null,
          tp: null,
          magic: MAGIC,
          comment: request.comment,
          expiration: expiration * 1000,
        });
        expect(compareDecimal(order!.price, request.price!)).toBe(0);
        expect(compareDecimal(order!.volume, request.volume)).toBe(0);
      });

      it('closes part of a position on the volume step with 10009 and keeps the rest open', async () => {
        const ticket = await openBuy(addDecimal(info.volumeMin, info.volumeMin));
        const result = await terminal.closePosition(closeOf(ticket, info.volumeMin));
        expect(result.retcode).toBe(RETCODE.DONE);
        expect(result.deal).not.toBeNull();
        expect(compareDecimal(result.volume, info.volumeMin)).toBe(0);
        expect(compareDecimal((await positionOf(ticket))!.volume, info.volumeMin)).toBe(0);
      });

      it('closes a whole position at the bid with 10009; it is no longer open and its closing deal is found', async () => {
        const ticket = await openBuy(info.volumeMin);
        const request = closeOf(ticket, info.volumeMin);
        const result = await terminal.closePosition(request);
        expect(result).toMatchObject({ retcode: RETCODE.DONE, position: ticket });
        if (result.bid !== null) expect(Number(result.price)).toBeCloseTo(result.bid, info.digits);
        expect(await positionOf(ticket)).toBeUndefined();
        const records = await terminal.findByComment(request.comment, MAGIC);
        expect(records.find((r) => r.kind === 'deal')).toMatchObject({ type: 'sell', position: ticket, ticket: result.deal });
      });

      it('answers 10036 to a close of a position that is already closed', async () => {
        const ticket = await openBuy(info.volumeMin);
        expect((await terminal.closePosition(closeOf(ticket, info.volumeMin))).retcode).toBe(RETCODE.DONE);
        expect((await terminal.closePosition(closeOf(ticket, info.volumeMin))).retcode).toBe(RETCODE.POSITION_CLOSED);
      });

      it('rejects a close volume off the volume step with 10014 and one above the open volume with 10038, closing nothing', async () => {
        const volume = addDecimal(info.volumeMin, info.volumeMin);
        const ticket = await openBuy(volume);
        const offStep = addDecimal(info.volumeMin, multiplyDecimal(info.volumeStep, '0.5'));
        expect((await terminal.closePosition(closeOf(ticket, offStep))).retcode).toBe(RETCODE.INVALID_VOLUME);
        expect((await terminal.closePosition(closeOf(ticket, addDecimal(volume, info.volumeStep)))).retcode).toBe(RETCODE.INVALID_CLOSE_VOLUME);
        expect(compareDecimal((await positionOf(ticket))!.volume, volume)).toBe(0);
      });

      it('rejects a close while the market is closed with 10018', async () => {
        const ticket = await openBuy(info.volumeMin);
        await h.closeMarket();
        expect((await terminal.closePosition(closeOf(ticket, info.volumeMin))).retcode).toBe(RETCODE.MARKET_CLOSED);
      });

      it('moves the stops of a position with 10009, and a null leg removes that stop', async () => {
        const ticket = await openBuy(info.volumeMin);
        const sl = await buyStopLoss(5);
        const tp = offsetPrice((await terminal.tick(h.symbol))!.ask, Math.max(info.stopsLevel, 10) * 5, info);
        expect((await terminal.modifyPosition({ position: ticket, sl, tp })).retcode).toBe(RETCODE.DONE);
        const moved = (await positionOf(ticket))!;
        expect([compareDecimal(moved.sl!, sl), compareDecimal(moved.tp!, tp)]).toEqual([0, 0]);
        expect((await terminal.modifyPosition({ position: ticket, sl, tp: null })).retcode).toBe(RETCODE.DONE);
        expect((await positionOf(ticket))!.tp).toBeNull();
        expect(compareDecimal((await positionOf(ticket))!.sl!, sl)).toBe(0);
      });

      it('rejects a stop loss above the price of a buy with 10016, leaving the stops as they were', async () => {
        const sl = await buyStopLoss(5);
        const ticket = await openBuy(info.volumeMin, { sl });
        const wrongSide = offsetPrice((await terminal.tick(h.symbol))!.ask, Math.max(info.stopsLevel, 1) * 5 + 100, info);
        expect((await terminal.modifyPosition({ position: ticket, sl: wrongSide, tp: null })).retcode).toBe(RETCODE.INVALID_STOPS);
        expect(compareDecimal((await positionOf(ticket))!.sl!, sl)).toBe(0);
      });

      it('rejects a stop loss closer than the stops level with 10016', async () => {
        if (info.stopsLevel < 2) return;
        const ticket = await openBuy(info.volumeMin);
        const tooClose = offsetPrice((await terminal.tick(h.symbol))!.bid, -(info.stopsLevel - 1), info);
        expect((await terminal.modifyPosition({ position: ticket, sl: tooClose, tp: null })).retcode).toBe(RETCODE.INVALID_STOPS);
      });

      it('answers 10025 to a modification that changes nothing', async () => {
        const sl = await buyStopLoss(5);
        const ticket = await openBuy(info.volumeMin, { sl });
        expect((await terminal.modifyPosition({ position: ticket, sl, tp: null })).retcode).toBe(RETCODE.NO_CHANGES);
      });

      it('answers 10036 to a modification of a position that is closed', async () => {
        const ticket = await openBuy(info.volumeMin);
        await terminal.closePosition(closeOf(ticket, info.volumeMin));
        expect((await terminal.modifyPosition({ position: ticket, sl: await buyStopLoss(5), tp: null })).retcode).toBe(RETCODE.POSITION_CLOSED);
      });

      it('cancels a resting order with 10009: it leaves the orders and is found cancelled', async () => {
        const request = await farBuyLimit();
        const placed = await terminal.orderSend(request);
        const result = await terminal.cancelOrder({ order: placed.order! });
        expect(result).toMatchObject({ retcode: RETCODE.DONE, order: placed.order });
        expect((await terminal.orders()).map((o) => o.ticket)).not.toContain(placed.order);
        const [record] = await terminal.findByComment(request.comment, MAGIC);
        expect(record).toMatchObject({ kind: 'order', ticket: placed.order, state: 'cancelled' });
      });

      it('rejects a cancel of an order that no longer rests', async () => {
        const placed = await terminal.orderSend(await farBuyLimit());
        expect((await terminal.cancelOrder({ order: placed.order! })).retcode).toBe(RETCODE.DONE);
        expect(outcomeOfRetcode((await terminal.cancelOrder({ order: placed.order! })).retcode)).toBe('rejected');
      });
    });

    describe('account info', () => {
      it('answers the account’s money, a position’s margin held out of the free margin and its profit in the equity', async () => {
        const before = await terminal.accountInfo();
        expect(before.currency).toMatch(/^[A-Z]{3}$/);
        expect(before.margin).toBe(0);
        expect(before.marginFree).toBeCloseTo(before.equity, 2);
        const ticket = await openBuy(info.volumeMin);
        const [after, position] = [await terminal.accountInfo(), await positionOf(ticket)];
        expect(after.margin).toBeGreaterThan(0);
        expect(after.marginFree).toBeCloseTo(after.equity - after.margin, 2);
        expect(after.equity).toBeCloseTo(after.balance + position!.profit + position!.swap, 2);
      });
    });

    describe('history deals', () => {
      /** Later than any deal of a test. */
      const FAR_FUTURE = Date.UTC(2100, 0, 1);
      const dealsOf = (position: string) => terminal.deals({ from: 0, to: FAR_FUTURE, position });

      it('lists the entry and the close of a position, oldest first, with their orders, sides, prices, entries, profit and reason', async () => {
        const request = marketBuy(info.volumeMin);
        const opened = await terminal.orderSend(request);
        await h.advance(1_000);
        const close = closeOf(opened.position!, info.volumeMin);
        const closed = await terminal.closePosition(close);
        const [entry, exit, ...more] = await dealsOf(opened.position!);
        expect(more).toEqual([]);
        expect(entry).toMatchObject({ ticket: opened.deal, order: opened.order, position: opened.position, symbol: h.symbol, side: 'buy', entry: 'in' });
        expect(entry).toMatchObject({ magic: MAGIC, comment: request.comment, reason: 'expert', profit: 0 });
        expect([compareDecimal(entry!.volume, info.volumeMin), compareDecimal(entry!.price, opened.price!)]).toEqual([0, 0]);
        expect(exit).toMatchObject({ ticket: closed.deal, order: closed.order, position: opened.position, side: 'sell', entry: 'out', reason: 'expert' });
        expect(exit).toMatchObject({ magic: MAGIC, comment: close.comment });
        expect(compareDecimal(exit!.price, closed.price!)).toBe(0);
        expect(exit!.time).toBeGreaterThan(entry!.time);
        for (const money of [exit!.profit, exit!.commission, exit!.swap]) expect(Number.isFinite(money)).toBe(true);
      });

      it('books the profit of a close on its deal, with the sign of the close price less the open price of a buy', async () => {
        const ticket = await openBuy(info.volumeMin);
        await terminal.closePosition(closeOf(ticket, info.volumeMin));
        const [entry, exit] = await dealsOf(ticket);
        expect(Math.sign(exit!.profit)).toBe(compareDecimal(exit!.price, entry!.price));
      });

      it('answers only the deals of the time range, the symbol and the position asked for', async () => {
        const first = await openBuy(info.volumeMin);
        await h.advance(2_000);
        const second = await openBuy(info.volumeMin);
        const [firstEntry] = await dealsOf(first);
        const [secondEntry] = await dealsOf(second);
        const tickets = async (filter: Partial<Parameters<TradingTerminal['deals']>[0]>) =>
          (await terminal.deals({ from: 0, to: FAR_FUTURE, ...filter })).map((d) => d.ticket);
        expect(await tickets({ from: firstEntry!.time, to: secondEntry!.time })).toEqual([firstEntry!.ticket]);
        expect(await tickets({ from: secondEntry!.time })).toEqual([secondEntry!.ticket]);
        expect(await tickets({ from: firstEntry!.time, symbol: h.symbol })).toEqual([firstEntry!.ticket, secondEntry!.ticket]);
        expect(await tickets({ from: firstEntry!.time, symbol: 'NOSUCHSYMBOL' })).toEqual([]);
        expect(await tickets({ position: second })).toEqual([secondEntry!.ticket]);
      });

      it('records a stop or target the venue hit as an exit deal of its position, with reason sl or tp', async () => {
        const tick = (await terminal.tick(h.symbol))!;
        const reach = Math.max(info.stopsLevel, 10) * 2;
        const ticket = await openBuy(info.volumeMin, { sl: await buyStopLoss(2), tp: offsetPrice(tick.ask, reach, info) });
        for (let minutes = 0; minutes < 240 && (await positionOf(ticket)); minutes++) await h.advance(60_000);
        expect(await positionOf(ticket)).toBeUndefined();
        const exit = (await dealsOf(ticket)).find((d) => d.entry === 'out')!;
        expect(exit).toMatchObject({ position: ticket, side: 'sell' });
        expect(['sl', 'tp']).toContain(exit.reason);
        expect(Math.sign(exit.profit)).toBe(exit.reason === 'tp' ? 1 : -1);
      });
    });

    describe('faults', () => {
      it('an order_send timeout throws an ambiguous timeout and trades nothing', async () => {
        await h.injectFault({ method: 'orderSend', kind: 'timeout' });
        const request = marketBuy(info.volumeMin);
        const err = await expectBrokerError(terminal.orderSend(request), 'timeout');
        expect(err.isAmbiguous).toBe(true);
        expect(await terminal.findByComment(request.comment, MAGIC)).toEqual([]);
      });

      it('an order_check timeout throws a timeout', async () => {
        await h.injectFault({ method: 'orderCheck', kind: 'timeout' });
        await expectBrokerError(terminal.orderCheck(marketBuy(info.volumeMin)), 'timeout');
      });

      it('a disconnect during order_send drops the connection, tells listeners and throws disconnected', async () => {
        const changes: boolean[] = [];
        terminal.onConnectionChange((connected) => changes.push(connected));
        await h.injectFault({ method: 'orderSend', kind: 'disconnect' });
        const err = await expectBrokerError(terminal.orderSend(marketBuy(info.volumeMin)), 'disconnected');
        expect(err.isAmbiguous).toBe(true);
        expect(terminal.isConnected()).toBe(false);
        expect(changes).toContain(false);
      });

      it('refuses calls with disconnected while the connection is down, and works again after reconnecting', async () => {
        await h.injectFault({ method: 'orderSend', kind: 'disconnect' });
        await expectBrokerError(terminal.orderSend(marketBuy(info.volumeMin)), 'disconnected');
        await expectBrokerError(terminal.orderSend(marketBuy(info.volumeMin)), 'disconnected');
        await h.reconnect();
        expect(terminal.isConnected()).toBe(true);
        expect((await terminal.orderSend(marketBuy(info.volumeMin))).retcode).toBe(RETCODE.DONE);
      });

      it('an ambiguous send executes the order but loses the answer; findByComment finds the trade', async () => {
        await h.injectFault({ method: 'orderSend', kind: 'ambiguous' });
        const request = marketBuy(info.volumeMin);
        const err = await expectBrokerError(terminal.orderSend(request), 'timeout');
        expect(err.isAmbiguous).toBe(true);
        const records = await terminal.findByComment(request.comment, MAGIC);
        expect(records.some((r) => r.kind === 'deal' && r.state === 'filled')).toBe(true);
      });

      it('a close timeout throws an ambiguous timeout and leaves the position open', async () => {
        const ticket = await openBuy(info.volumeMin);
        await h.injectFault({ method: 'closePosition', kind: 'timeout' });
        const err = await expectBrokerError(terminal.closePosition(closeOf(ticket, info.volumeMin)), 'timeout');
        expect(err.isAmbiguous).toBe(true);
        expect(await positionOf(ticket)).toBeDefined();
      });

      it('an ambiguous close executes but loses the answer; findByComment finds the closing deal', async () => {
        const ticket = await openBuy(info.volumeMin);
        await h.injectFault({ method: 'closePosition', kind: 'ambiguous' });
        const request = closeOf(ticket, info.volumeMin);
        expect((await expectBrokerError(terminal.closePosition(request), 'timeout')).isAmbiguous).toBe(true);
        expect(await positionOf(ticket)).toBeUndefined();
        expect((await terminal.findByComment(request.comment, MAGIC)).some((r) => r.kind === 'deal' && r.position === ticket)).toBe(true);
      });

      it('a modification timeout throws an ambiguous timeout and moves no stop', async () => {
        const ticket = await openBuy(info.volumeMin);
        await h.injectFault({ method: 'modifyPosition', kind: 'timeout' });
        const err = await expectBrokerError(terminal.modifyPosition({ position: ticket, sl: await buyStopLoss(5), tp: null }), 'timeout');
        expect(err.isAmbiguous).toBe(true);
        expect((await positionOf(ticket))!.sl).toBeNull();
      });

      it('an ambiguous cancel removes the order but loses the answer', async () => {
        const placed = await terminal.orderSend(await farBuyLimit());
        await h.injectFault({ method: 'cancelOrder', kind: 'ambiguous' });
        expect((await expectBrokerError(terminal.cancelOrder({ order: placed.order! }), 'timeout')).isAmbiguous).toBe(true);
        expect((await terminal.orders()).map((o) => o.ticket)).not.toContain(placed.order);
      });

      it('a fault armed for one call leaves the next call alone', async () => {
        await h.injectFault({ method: 'orderSend', kind: 'timeout', times: 1 });
        await expectBrokerError(terminal.orderSend(marketBuy(info.volumeMin)), 'timeout');
        expect((await terminal.orderSend(marketBuy(info.volumeMin))).retcode).toBe(RETCODE.DONE);
      });
    });

    describe('reconciliation lookups', () => {
      it('finds orders and deals by comment prefix and magic, newest first', async () => {
        const first = await terminal.orderSend(marketBuy(info.volumeMin, { comment: 'ctr-find-a' }));
        await h.advance(1_000);
        const second = await terminal.orderSend(marketBuy(info.volumeMin, { comment: 'ctr-find-b' }));
        await terminal.orderSend(marketBuy(info.volumeMin, { comment: 'ctr-find-c', magic: OTHER_MAGIC }));
        const records = await terminal.findByComment('ctr-find', MAGIC);
        expect(records.every((r) => r.magic === MAGIC && r.comment.startsWith('ctr-find'))).toBe(true);
        const tickets = records.map((r) => r.ticket);
        expect(tickets).toEqual(expect.arrayContaining([first.order, first.deal, second.order, second.deal]));
        expect(records.map((r) => r.time)).toEqual([...records.map((r) => r.time)].sort((a, b) => b - a));
      });

      it('finds nothing for a prefix no order carries', async () => {
        expect(await terminal.findByComment('ctr-none-', MAGIC)).toEqual([]);
      });
    });
  });
}
