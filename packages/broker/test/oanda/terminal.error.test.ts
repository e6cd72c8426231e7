import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BrokerError } from '../../src/errors.js';
import { RETCODE } from '../../src/mt5-retcodes.js';
import { retcodeOfReason } from '../../src/oanda/retcodes.js';
import type { TradeRequest } from '../../src/terminal.js';
import { terminalSetup, type TerminalSetup } from './terminal-harness.js';

const buy: TradeRequest = { action: 'deal', symbol: 'EURUSD', type: 'buy', volume: '0.01', magic: 5, comment: 'sig-err' };

describe('OandaTerminal refusals and lost answers', () => {
  let s: TerminalSetup;
  const posts = () => s.fake.requests.filter((r) => r.method === 'POST').length;

  beforeEach(async () => {
    s = await terminalSetup();
    await s.terminal.connect();
  });

  afterEach(async () => {
    await s.teardown();
  });

  it.each([
    ['INSUFFICIENT_MARGIN', RETCODE.NO_MONEY],
    ['MARKET_HALTED', RETCODE.MARKET_CLOSED],
    ['STOP_LOSS_ON_FILL_LOSS', RETCODE.INVALID_STOPS],
    ['TAKE_PROFIT_ON_FILL_LOSS', RETCODE.INVALID_STOPS],
    ['UNITS_MINIMUM_NOT_MET', RETCODE.INVALID_VOLUME],
    ['TIME_IN_FORCE_GTD_TIMESTAMP_IN_PAST', RETCODE.INVALID_EXPIRATION],
    ['CLOSE_TRADE_UNITS_EXCEED_TRADE_SIZE', RETCODE.INVALID_CLOSE_VOLUME],
    ['PRICE_PRECISION_EXCEEDED', RETCODE.INVALID_PRICE],
    ['ACCOUNT_LOCKED', RETCODE.TRADE_DISABLED],
    ['SOMETHING_NEW', RETCODE.REJECT],
  ])('maps OANDA’s %s to MT5 %i, a definite refusal', (reason, retcode) => {
    expect(retcodeOfReason(reason)).toBe(retcode);
  });

  it('answers an orderRejectTransaction with the code of its rejectReason', async () => {
    s.fake.inject({
      route: 'POST orders',
      kind: 'json',
      status: 400,
      body: {
        orderRejectTransaction: { id: '99', time: '2026-01-07T12:00:00.000000000Z', type: 'MARKET_ORDER_REJECT', rejectReason: 'ACCOUNT_LOCKED' },
        errorCode: 'ACCOUNT_LOCKED',
        errorMessage: 'locked',
      },
    });
    const result = await s.terminal.orderSend(buy);
    expect(result).toMatchObject({ retcode: RETCODE.TRADE_DISABLED, deal: null });
  });

  it('treats a 5xx to an order as ambiguous and never sends it again', async () => {
    s.fake.inject({ route: 'POST orders', kind: 'status', status: 503, errorMessage: 'Service unavailable' });
    const err = await s.terminal.orderSend(buy).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BrokerError);
    expect((err as BrokerError).isAmbiguous).toBe(true);
    expect(posts()).toBe(1);
  });

  it('treats a connection reset under an order as ambiguous, disconnected, and sends it once', async () => {
    s.fake.inject({ route: 'POST orders', kind: 'execute-then-reset' });
    const err = (await s.terminal.orderSend(buy).catch((e: unknown) => e)) as BrokerError;
    expect(err.kind).toBe('disconnected');
    expect(s.terminal.isConnected()).toBe(false);
    expect(posts()).toBe(1);
    await s.terminal.connect();
    expect((await s.terminal.findByComment('sig-err', 5)).some((r) => r.kind === 'deal')).toBe(true);
  });

  it('fails a close whose read of the trade timed out as unavailable, definite: nothing was sent', async () => {
    const opened = await s.terminal.orderSend(buy);
    s.fake.inject({ route: 'GET', kind: 'hang', onArrive: () => s.clock.advance(10_000) });
    const err = (await s.terminal
      .closePosition({ position: opened.position!, volume: '0.01', magic: 5, comment: 'c' })
      .catch((e: unknown) => e)) as BrokerError;
    expect(err.kind).toBe('unavailable');
    expect(s.fake.requests.some((r) => r.method === 'PUT')).toBe(false);
  });

  it('answers 10013 for a symbol OANDA does not list, sending nothing', async () => {
    expect((await s.terminal.orderSend({ ...buy, symbol: 'NOSUCH' })).retcode).toBe(RETCODE.INVALID);
    expect(posts()).toBe(0);
  });
});
