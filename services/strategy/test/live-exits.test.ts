import { ExecutionClient } from '@fxdesk/client';
import { createLogger } from '@fxdesk/core';
import type { OpenPosition } from '@fxdesk/schemas';
import { EXITS_OFF, type ExitRules } from '@fxdesk/trading';
import { afterEach, describe, expect, it } from 'vitest';
import { LiveExits, type ClosedCandle } from '../src/live-exits.js';
import { openStrategyStores, type StrategyStores } from '../src/store/index.js';
import { envelope, fakeService, type FakeService, type RecordedRequest } from './fake-service.js';
import { MONDAY_NOON } from './helpers.js';
import { signalFixture } from './signal-fixture.js';

const M5 = 300;
const OPENED_SEC = MONDAY_NOON / 1000;

/** A LONG of the strategy's at 1.08500, stop 1.08300 (1 R = 20 pips), target 1.09000, opened at noon. */
const LONG: OpenPosition = {
  ticket: '7001',
  symbol: 'EURUSD',
  side: 'buy',
  volume: '0.10',
  open_price: '1.08500',
  sl: '1.08300',
  tp: '1.09000',
  profit: '0.00',
  swap: '0.00',
  magic: 5101,
  comment: 'fxdesk-strategy:0123456789abcdef01',
  source: 'fxdesk-strategy',
  opened_at: new Date(MONDAY_NOON + 10_000).toISOString(),
};

const done = (request: RecordedRequest) => ({
  status: 200,
  body: {
    action_id: 'a1',
    kind: request.method === 'PATCH' ? 'modify' : 'close',
    ticket: '7001',
    state: 'done',
    result: { retcode: 10009, retcode_name: 'TRADE_RETCODE_DONE', order: null, deal: null, volume: '0.10', price: null, broker_comment: '' },
  },
});

let stores: StrategyStores | undefined;
let execution: FakeService | undefined;
let client: ExecutionClient | undefined;
afterEach(async () => {
  await client?.close();
  await execution?.close();
  await stores?.close();
});

async function exitsWith(rules: Partial<ExitRules>, positions: OpenPosition[] = [LONG]): Promise<LiveExits> {
  stores = await openStrategyStores();
  execution = await fakeService((r) => (r.method === 'GET' ? { status: 200, body: { positions } } : done(r)));
  client = new ExecutionClient({ baseUrl: execution.url, apiKey: 'exec-key-123', timeoutMs: 2000 });
  return new LiveExits({
    execution: client,
    signals: stores.signals,
    rules: { ...EXITS_OFF, ...rules },
    fills: { spread_points: 0, slippage_points: 0, commission_per_lot: 0, volume: { lots: 0.1 } },
    source: 'fxdesk-strategy',
    now: () => MONDAY_NOON + DAY,
    logger: createLogger({ name: 'test', level: 'silent' }),
  });
}
const DAY = 86_400_000;

/** The M5 candle `n` candles after the one the position opened in, closing at `close`. */
function closeAt(n: number, close: number): ClosedCandle {
  const time = OPENED_SEC + n * M5;
  return { instrument: 'EUR_USD', symbol: 'EURUSD', digits: 5, candle: { time, open: close, high: close, low: close, close }, atr: 0.0004, candleSeconds: M5 };
}

const actions = () => execution!.requests.filter((r) => r.method !== 'GET');

describe('the exit rules on live positions', () => {
  it('moves the stop to the entry at +1 R under a key of the rule, the position and the candle, the same key when the candle is decided again', async () => {
    const exits = await exitsWith({ breakEvenR: 1 });
    await exits.onClose(closeAt(2, 1.0868));
    expect(actions()).toEqual([]);
    await exits.onClose(closeAt(3, 1.0871));
    await exits.onClose(closeAt(3, 1.0871));
    expect(actions().map((r) => [r.method, r.url, r.headers['idempotency-key'], r.body])).toEqual([
      ['PATCH', '/v1/positions/7001', `exit-break_even:7001:${OPENED_SEC + 3 * M5}`, { sl: '1.08500' }],
      ['PATCH', '/v1/positions/7001', `exit-break_even:7001:${OPENED_SEC + 3 * M5}`, { sl: '1.08500' }],
    ]);
    // Only the strategy's own positions, of the pair, are read.
    const read = new URL(execution!.requests[0]!.url, 'http://x').searchParams;
    expect([read.get('symbol'), read.get('source')]).toEqual(['EURUSD', 'fxdesk-strategy']);
  });

  it('measures 1 R from the stop of the signal that opened the position, not the stop it has now', async () => {
    const exits = await exitsWith({ breakEvenR: 1 }, [{ ...LONG, sl: '1.08450' }]);
    const signal = signalFixture({ stop_loss: 1.083 });
    await stores!.signals.insert({
      ...signal,
      execution: { ...signal.execution, status: 'filled', tickets: { order: '7001', deal: '7001', position: '7001' } },
    });
    // +0.5 R of the signal's risk, though +2 R of the 5-pip stop it holds now: no move.
    await exits.onClose(closeAt(1, 1.086));
    expect(actions()).toEqual([]);
  });

  it('trails the stop an ATR multiple behind the close, only ever tighter', async () => {
    const exits = await exitsWith({ trailingStopAtr: 2 });
    await exits.onClose(closeAt(1, 1.0865));
    expect(actions().map((r) => r.body)).toEqual([{ sl: '1.08570' }]);
  });

  it('closes a position held TIME_EXIT_CANDLES candles, once, under a key of the position', async () => {
    const exits = await exitsWith({ timeExitCandles: 3 });
    await exits.onClose(closeAt(1, 1.085));
    expect(actions()).toEqual([]);
    await exits.onClose(closeAt(2, 1.085));
    expect(actions().map((r) => [r.method, r.url, r.headers['idempotency-key']])).toEqual([['POST', '/v1/positions/7001/close', 'exit-time:7001']]);
  });

  it('closes the positions of the other side on an opposite signal, and leaves those of the same side', async () => {
    const exits = await exitsWith({ exitOnOppositeSignal: 1 });
    await exits.onSignal(signalFixture({ type: 'LONG', symbol: 'EURUSD' }));
    expect(actions()).toEqual([]);
    await exits.onSignal(signalFixture({ type: 'SHORT', symbol: 'EURUSD' }));
    expect(actions().map((r) => [r.url, r.headers['idempotency-key']])).toEqual([['/v1/positions/7001/close', 'exit-opposite:7001']]);
  });

  it('does nothing with every rule off, and sends nothing when the positions cannot be read', async () => {
    const off = await exitsWith({});
    await off.onClose(closeAt(3, 1.09));
    expect(execution!.requests).toEqual([]);
    // With the opposite-signal exit off a signal reads nothing.
    await off.onSignal(signalFixture({ type: 'SHORT', symbol: 'EURUSD' }));
    expect(execution!.requests).toEqual([]);
    await client!.close();
    await execution!.close();
    await stores!.close();
    const on = await exitsWith({ breakEvenR: 1 });
    execution!.answer(() => ({ status: 503, body: envelope('not_ready', 'terminal disconnected') }));
    await on.onClose(closeAt(3, 1.0875));
    expect(actions()).toEqual([]);
  });
});
