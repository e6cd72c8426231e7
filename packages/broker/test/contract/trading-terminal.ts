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
  injectFault(fault: { method: 'orderSend' | 'orderCheck'; kind: 'timeout' | 'disconnect' | 'ambiguous'; times?: number }): Promise<void>;
  /** Brings the connection back after an injected disconnect. */
  reconnect(): Promise<void>;
  /** Lets time pass at the venue (resting orders trigger or expire). */
  advance(ms: number): Promise<void>;
  teardown(): Promise<void>;
}

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
