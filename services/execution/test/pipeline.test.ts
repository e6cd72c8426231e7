import { BrokerError, type FaultMethod } from '@fxdesk/broker';
import type { LightMyRequestResponse } from 'fastify';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { orderComment } from '../src/order-comment.js';
import { failInterruptedSignals, reconcileInterrupted } from '../src/recovery.js';
import { ScriptedTerminal } from './fake-terminal.js';
import { buildTestApp, expectEnvelope, getSignal, postSignal, settle, signal, simulatedApp, type TestApp, sqliteStore } from './helpers.js';

let current: TestApp | undefined;
afterEach(async () => {
  await current?.app.close();
  current = undefined;
});

async function setup(terminal = new ScriptedTerminal(), env: Record<string, string> = {}) {
  current = await buildTestApp({ terminal, env });
  return { ...current, terminal };
}

const result =
  (retcode: number, extra: Record<string, unknown> = {}) =>
  async () => ({
    retcode,
    deal: null,
    order: null,
    position: null,
    volume: '0',
    price: null,
    bid: null,
    ask: null,
    comment: `code ${retcode}`,
    requestId: null,
    ...extra,
  });

describe('retcode mapping of order_send', () => {
  for (const [retcode, state] of [
    [10009, 'filled'],
    [10010, 'partially_filled'],
    [10008, 'placed'],
  ] as const) {
    it(`answers ${retcode} with 200 and state ${state}`, async () => {
      const { app, terminal } = await setup();
      terminal.send = result(retcode, { order: '7', volume: '0.05', price: '1.0851' });
      const res = await postSignal(app, signal());
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ state, tickets: { order: '7' }, result: { retcode } });
    });
  }

  for (const retcode of [10011, 10012, 10031, 19999]) {
    it(`stores ${retcode} as unknown and answers 503 execution_outcome_unknown`, async () => {
      const { app, terminal } = await setup();
      terminal.send = result(retcode);
      const body = signal();
      expectEnvelope(await postSignal(app, body), 503, 'execution_outcome_unknown');
      expect((await getSignal(app, body.signal_id as string)).json()).toMatchObject({ state: 'unknown', result: { retcode } });
    });
  }

  it('stores a documented rejection code as rejected and answers 422 broker_rejected', async () => {
    const { app, terminal } = await setup();
    terminal.send = result(10019);
    const body = signal();
    const res = await postSignal(app, body);
    expect(expectEnvelope(res, 422, 'broker_rejected').message).toContain('TRADE_RETCODE_NO_MONEY');
    expect((await getSignal(app, body.signal_id as string)).json()).toMatchObject({
      state: 'rejected',
      error: { code: 'broker_rejected' },
      result: { retcode: 10019, retcode_name: 'TRADE_RETCODE_NO_MONEY' },
    });
  });
});

describe('an order_send without a result', () => {
  it('stores unknown when order_send throws, and never sends the signal again', async () => {
    const { app, terminal } = await setup();
    terminal.send = async () => {
      throw new BrokerError('disconnected', 'connection lost');
    };
    const body = signal();
    expectEnvelope(await postSignal(app, body), 503, 'execution_outcome_unknown');
    const retry = await postSignal(app, body);
    expectEnvelope(retry, 503, 'execution_outcome_unknown');
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(terminal.calls.orderSend).toBe(1);
  });

  it('gives up after ORDER_SEND_TIMEOUT_MS, stores unknown, and keeps a late answer on the record only', async () => {
    const terminal = new ScriptedTerminal();
    let answer: (value: Awaited<ReturnType<ScriptedTerminal['send']>>) => void = () => undefined;
    terminal.send = () => new Promise((resolve) => (answer = resolve));
    const { app, clock } = await setup(terminal, { ORDER_SEND_TIMEOUT_MS: '1000' });
    const body = signal();
    const pending = postSignal(app, body);
    await settle(() => terminal.calls.orderSend === 1);
    await clock.advanceAsync(1000);
    const res = await pending;
    expectEnvelope(res, 503, 'execution_outcome_unknown');
    answer({ retcode: 10009, deal: '9', order: '8', position: '8', volume: '0.10', price: '1.0851', bid: null, ask: null, comment: 'late', requestId: null });
    await settle(() => current!.store.commitStats!.operations >= 3);
    const record = (await getSignal(app, body.signal_id as string)).json();
    expect(record).toMatchObject({ state: 'unknown', tickets: { order: '8', deal: '9' }, result: { retcode: 10009 } });
    expect((await postSignal(app, body)).body).toBe(res.body);
  });
});

describe('failures before order_send', () => {
  it('answers 422 preflight_rejected for a nonzero order_check retcode and stores it rejected', async () => {
    const { app, terminal } = await setup();
    terminal.check = () => ({ retcode: 10019, comment: 'No money', balance: 0, equity: 0, margin: 0, marginFree: 0, marginLevel: 0 });
    const body = signal();
    expectEnvelope(await postSignal(app, body), 422, 'preflight_rejected');
    expect(terminal.calls.orderSend).toBe(0);
    expect((await getSignal(app, body.signal_id as string)).json()).toMatchObject({ state: 'rejected', result: { retcode: 10019 } });
  });

  it('answers 503 broker_unavailable when order_check fails, stores nothing, and lets the retry run', async () => {
    const { app, terminal } = await setup();
    terminal.check = () => {
      throw new BrokerError('timeout', 'no answer');
    };
    const body = signal();
    expectEnvelope(await postSignal(app, body), 503, 'broker_unavailable');
    expectEnvelope(await getSignal(app, body.signal_id as string), 404, 'signal_not_found');
    terminal.check = () => ({ retcode: 0, comment: 'Done', balance: 0, equity: 0, margin: 0, marginFree: 0, marginLevel: 0 });
    expect((await postSignal(app, body)).statusCode).toBe(200);
    expect(terminal.calls.orderSend).toBe(1);
  });

  it('answers 503 broker_unavailable without a live quote, storing nothing', async () => {
    const { app, terminal } = await setup();
    terminal.quote = null;
    const body = signal();
    expectEnvelope(await postSignal(app, body), 503, 'broker_unavailable');
    expectEnvelope(await getSignal(app, body.signal_id as string), 404, 'signal_not_found');
  });

  it('stores a symbol the terminal does not list as rejected symbol_not_allowed', async () => {
    const { app, terminal } = await setup(new ScriptedTerminal(), { ALLOWED_SYMBOLS: 'EURUSD,GBPUSD' });
    const body = signal({ symbol: 'GBPUSD' });
    expectEnvelope(await postSignal(app, body), 422, 'symbol_not_allowed');
    expect((await getSignal(app, body.signal_id as string)).json()).toMatchObject({ state: 'rejected' });
    expect(terminal.calls.orderCheck).toBe(0);
  });
});

describe('a terminal call before order_send that never answers', () => {
  /** Submits a signal whose `method` call hangs, and lets PRE_SEND_TIMEOUT_MS pass. */
  async function timedOutBeforeSend(method: FaultMethod) {
    const h = await simulatedApp({ env: { PRE_SEND_TIMEOUT_MS: '1000' } });
    current = h;
    h.terminal.injectFault({ method, kind: 'hang', times: 1 });
    const body = signal();
    let res: LightMyRequestResponse | undefined;
    void postSignal(h.app, body).then((answer) => (res = answer));
    await settle(() => h.terminal.stats.faultsTriggered === 1);
    await h.clock.advanceAsync(1000);
    await settle(() => res !== undefined);
    return { h, body, res: res! };
  }

  for (const [method, name] of [
    ['symbolInfo', 'symbol_info'],
    ['tick', 'tick'],
    ['orderCheck', 'order_check'],
  ] as const) {
    it(`gives ${name} up after PRE_SEND_TIMEOUT_MS with 503 broker_unavailable, storing nothing`, async () => {
      const { h, body, res } = await timedOutBeforeSend(method);
      expect(expectEnvelope(res, 503, 'broker_unavailable').message).toContain(name);
      expect(res.headers['retry-after']).toBeDefined();
      expectEnvelope(await getSignal(h.app, body.signal_id as string), 404, 'signal_not_found');
    });
  }

  it('lets an identical retry execute the signal once the pre-send call timed out', async () => {
    const { h, body } = await timedOutBeforeSend('orderCheck');
    const retry = await postSignal(h.app, body);
    expect(retry.json()).toMatchObject({ state: 'filled' });
    expect(h.terminal.stats.orderSendCalls).toBe(1);
  });

  it('sends nothing when the timed-out order_check answers late', async () => {
    const { h } = await timedOutBeforeSend('orderCheck');
    expect(h.terminal.releaseHung()).toBe(1);
    await h.clock.advanceAsync(0);
    expect(h.terminal.stats.orderSendCalls).toBe(0);
  });
});

describe('start-up recovery', () => {
  it('turns a signal left processing into unknown, answered 503 with its original request id', async () => {
    const store = sqliteStore();
    await store.claim({
      signalId: 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
      payloadHash: 'x',
      requestJson: '{}',
      requestId: 'req-before-crash',
      orderComment: 'manual:abc',
      symbol: 'EURUSD',
      source: 'manual',
      receivedAt: '2026-01-05T11:59:00.000Z',
      // Still within its lease: the claim is this replica's own, so its restart settles it.
      leaseExpiresAt: '2026-01-05T12:05:00.000Z',
    });
    const terminal = new ScriptedTerminal();
    current = await buildTestApp({ terminal, store });
    const record = (await getSignal(current.app, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11')).json();
    expect(record).toMatchObject({ state: 'unknown', http_status: 503, error: { code: 'execution_outcome_unknown' } });
  });
});

describe('start-up reconciliation', () => {
  it('keeps what the terminal shows for an interrupted signal on its record, without changing its state or answer', async () => {
    const h = await simulatedApp();
    current = h;
    const signalId = 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11';
    const comment = orderComment('manual', signalId);
    await h.store.claim({
      signalId,
      payloadHash: 'x',
      requestJson: '{}',
      requestId: 'r',
      orderComment: comment,
      symbol: 'EURUSD',
      source: 'manual',
      receivedAt: '2026-01-05T11:59:00.000Z',
      leaseExpiresAt: '2026-01-05T12:05:00.000Z',
    });
    // The crash came after the order reached the terminal.
    const tick = await h.terminal.tick('EURUSD');
    await h.terminal.orderSend({
      action: 'deal',
      symbol: 'EURUSD',
      type: 'buy',
      volume: '0.10',
      price: String(tick!.ask),
      magic: h.config.MAGIC_NUMBER,
      comment,
    });
    const interrupted = await failInterruptedSignals(h.store, h.clock, h.app.log as never, { includeOwn: true });
    await reconcileInterrupted(interrupted, { terminal: h.terminal, store: h.store, clock: h.clock, logger: h.app.log as never, magic: h.config.MAGIC_NUMBER });
    const record = (await getSignal(h.app, signalId)).json();
    expect(record.state).toBe('unknown');
    expect(record.http_status).toBe(503);
    expect(record.reconciliation.found.map((r: { kind: string }) => r.kind).sort()).toEqual(['deal', 'order']);
    expect(h.terminal.stats.orderSendCalls).toBe(1);
  });
});

describe('storage failures', () => {
  it('answers 503 storage_unavailable and sends nothing when the claim cannot be stored', async () => {
    const { app, store, terminal } = await setup();
    vi.spyOn(store, 'claim').mockRejectedValueOnce(new Error('SQLITE_FULL: database or disk is full'));
    const body = signal();
    expectEnvelope(await postSignal(app, body), 503, 'storage_unavailable');
    expect(terminal.calls.orderCheck + terminal.calls.orderSend).toBe(0);
    expect((await postSignal(app, body)).statusCode).toBe(200);
  });

  it('still answers the outcome when it cannot be stored, leaving the signal processing (unknown after a restart)', async () => {
    const { app, store, terminal } = await setup();
    vi.spyOn(store, 'complete').mockRejectedValue(new Error('SQLITE_IOERR'));
    const body = signal();
    const res = await postSignal(app, body);
    expect(res.json()).toMatchObject({ state: 'filled' });
    expect((await getSignal(app, body.signal_id as string)).json()).toMatchObject({ state: 'processing' });
    expectEnvelope(await postSignal(app, body), 409, 'signal_in_progress');
    expect(terminal.calls.orderSend).toBe(1);
  });
});
