import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RETCODE } from '../../src/mt5-retcodes.js';
import { lotSizeOf, lotsOfUnits, unitsOfLots } from '../../src/oanda/lots.js';
import type { TradeRequest } from '../../src/terminal.js';
import { terminalSetup, type TerminalSetup } from './terminal-harness.js';

const MAGIC = 77;
const buy = (extra: Partial<TradeRequest> = {}): TradeRequest => ({
  action: 'deal',
  symbol: 'EURUSD',
  type: 'buy',
  volume: '0.01',
  magic: MAGIC,
  comment: 'sig-1',
  ...extra,
});

describe('OandaTerminal against the fake v20 server', () => {
  let s: TerminalSetup;
  const bodiesOf = (method: string, path: RegExp) =>
    s.fake.requests.filter((r) => r.method === method && path.test(r.url)).map((r) => JSON.parse(r.body) as Record<string, unknown>);

  beforeEach(async () => {
    s = await terminalSetup();
    await s.terminal.connect();
  });

  afterEach(async () => {
    await s.teardown();
  });

  it('converts lots to units at 100 000 units an FX lot, 100 oz a gold lot, exactly', () => {
    const fx = lotSizeOf({ name: 'EUR_USD', type: 'CURRENCY' });
    expect(unitsOfLots('0.01', fx)).toBe('1000');
    expect(lotsOfUnits('-2500', fx)).toBe('0.025');
    expect(unitsOfLots('0.01', lotSizeOf({ name: 'XAU_USD', type: 'METAL' }))).toBe('1');
  });

  it('sends a sell as negative units, with its stops on fill and its comment and magic as the client extensions of the order and its trade', async () => {
    const tick = (await s.terminal.tick('EURUSD'))!;
    const sl = (tick.ask + 0.005).toFixed(5);
    const result = await s.terminal.orderSend(buy({ type: 'sell', sl, comment: 'sig-sell' }));
    expect(result.retcode).toBe(RETCODE.DONE);
    const [body] = bodiesOf('POST', /\/v3\/accounts\/[^/]+\/orders$/);
    expect(body).toEqual({
      order: {
        type: 'MARKET',
        instrument: 'EUR_USD',
        units: '-1000',
        timeInForce: 'FOK',
        positionFill: 'DEFAULT',
        stopLossOnFill: { price: sl, timeInForce: 'GTC' },
        clientExtensions: { id: 'sig-sell', tag: `fxdesk/${MAGIC}`, comment: 'sig-sell' },
        tradeClientExtensions: { id: 'sig-sell', tag: `fxdesk/${MAGIC}`, comment: 'sig-sell' },
      },
    });
  });

  it('places a SPECIFIED pending order as GTD at its expiration', async () => {
    const tick = (await s.terminal.tick('EURUSD'))!;
    const expiration = Math.floor(s.clock.now() / 1000) + 3600;
    const price = (tick.ask - 0.01).toFixed(5);
    const result = await s.terminal.orderSend(buy({ action: 'pending', type: 'buy_limit', price, timeType: 'SPECIFIED', expiration, comment: 'sig-gtd' }));
    expect(result.retcode).toBe(RETCODE.PLACED);
    const [body] = bodiesOf('POST', /\/orders$/);
    expect(body!.order).toMatchObject({ type: 'LIMIT', price, timeInForce: 'GTD', gtdTime: new Date(expiration * 1000).toISOString() });
  });

  it('writes the close’s comment and magic on the trade before closing it, so its closing deal carries them', async () => {
    const opened = await s.terminal.orderSend(buy({ volume: '0.02' }));
    const close = await s.terminal.closePosition({ position: opened.position!, volume: '0.01', magic: MAGIC, comment: 'close-half' });
    expect(close.retcode).toBe(RETCODE.DONE);
    const writes = s.fake.requests.filter((r) => r.method === 'PUT').map((r) => r.url.replace(/^.*\/trades\//, ''));
    expect(writes).toEqual([`${opened.position}/clientExtensions`, `${opened.position}/close`]);
    expect(bodiesOf('PUT', /\/close$/)).toEqual([{ units: '1000' }]);
    const [record] = await s.terminal.findByComment('close-half', MAGIC);
    expect(record).toMatchObject({ kind: 'deal', ticket: close.deal, position: opened.position, type: 'sell', volume: '0.01' });
    // The position keeps its entry's comment (the trade's client ID).
    expect((await s.terminal.positions())[0]).toMatchObject({ ticket: opened.position, comment: 'sig-1', volume: '0.01' });
  });

  it('keeps a long of one instrument open when a sell of another fills: the account reduces the other side of the same instrument only', async () => {
    const long = await s.terminal.orderSend(buy());
    const short = await s.terminal.orderSend(buy({ symbol: 'USDJPY', type: 'sell', comment: 'sig-2' }));
    const positions = await s.terminal.positions();
    expect(positions.map((p) => [p.ticket, p.symbol, p.side])).toEqual([
      [long.position, 'EURUSD', 'buy'],
      [short.position, 'USDJPY', 'sell'],
    ]);
  });

  it('refuses a stop already crossed with 10016 without sending it: OANDA would fill it at once and close the trade', async () => {
    const opened = await s.terminal.orderSend(buy());
    const tick = (await s.terminal.tick('EURUSD'))!;
    const result = await s.terminal.modifyPosition({ position: opened.position!, sl: (tick.bid + 0.001).toFixed(5), tp: null });
    expect(result.retcode).toBe(RETCODE.INVALID_STOPS);
    expect(s.fake.requests.some((r) => r.method === 'PUT' && r.url.endsWith('/orders'))).toBe(false);
  });

  it('asks for bid and ask candles aligned on UTC midnight, in pages of at most 5 000', async () => {
    const bars = await s.terminal.rates('EURUSD', 'M1', 6_000);
    const candleRequests = s.fake.requests.filter((r) => r.url.includes('/candles'));
    expect(candleRequests).toHaveLength(2);
    for (const request of candleRequests) {
      const query = new URL(request.url, 'http://fake').searchParams;
      expect(query.get('price')).toBe('BA');
      expect(query.get('granularity')).toBe('M1');
      expect(query.get('dailyAlignment')).toBe('0');
      expect(query.get('alignmentTimezone')).toBe('UTC');
      expect(Number(query.get('count'))).toBeLessThanOrEqual(5_000);
    }
    expect(bars).toHaveLength(6_000);
    expect(bars.every((bar, i) => i === 0 || bar.time > bars[i - 1]!.time)).toBe(true);
    expect(bars.at(-1)!.closed).toBe(false);
  });

  it('answers symbol info in MT5 terms from the instrument: 5 digits, 0.00001 lot (one unit) minimum and step, no stops level', async () => {
    expect(await s.terminal.symbolInfo('EURUSD')).toMatchObject({
      digits: 5,
      contractSize: 100_000,
      volumeMin: '0.00001',
      volumeStep: '0.00001',
      volumeMax: '1000',
      stopsLevel: 0,
      currencyBase: 'EUR',
      currencyProfit: 'USD',
    });
  });
});
