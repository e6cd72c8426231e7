import type { LightMyRequestResponse } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { flattenActionId } from '../src/actions.js';
import { actionHash } from '../src/canonical.js';
import { API_KEY, expectEnvelope, NOW, postSignal, signal, simulatedApp, sqliteStore, type SimulatedHarness } from './helpers.js';

let harness: SimulatedHarness;
let keys = 0;

afterEach(async () => {
  await harness.app.close();
  await harness.terminal.close();
});

function key(): string {
  keys += 1;
  return `test-key-${keys}`;
}

function act(method: 'POST' | 'PATCH' | 'DELETE', url: string, idempotencyKey: string | undefined, payload?: object): Promise<LightMyRequestResponse> {
  const headers: Record<string, string> = { 'x-api-key': API_KEY };
  if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey;
  return harness.app.inject({ method, url, headers, payload });
}

/** Opens a market position through a signal and answers its ticket. */
async function openPosition(extra: Record<string, unknown> = {}): Promise<string> {
  const res = await postSignal(harness.app, signal(extra));
  expect(res.statusCode).toBe(200);
  return res.json<{ tickets: { position: string } }>().tickets.position;
}

async function restingOrder(): Promise<string> {
  const res = await postSignal(harness.app, signal({ execution_type: 'limit', entry_price: '1.00000' }));
  expect(res.statusCode).toBe(200);
  return res.json<{ tickets: { order: string } }>().tickets.order;
}

async function openVolumes(): Promise<string[]> {
  return (await harness.terminal.positions()).map((p) => p.volume);
}

describe('POST /v1/positions/{ticket}/close', () => {
  it('closes the whole position and answers the closing deal', async () => {
    harness = await simulatedApp();
    const ticket = await openPosition();
    const res = await act('POST', `/v1/positions/${ticket}/close`, key());
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ kind: 'close', ticket, state: 'done', result: { retcode: 10009, volume: '0.10' } });
    expect(await harness.terminal.positions()).toEqual([]);
  });

  it('closes part of a position on the volume step and keeps the rest', async () => {
    harness = await simulatedApp();
    const ticket = await openPosition();
    expect((await act('POST', `/v1/positions/${ticket}/close`, key(), { volume: '0.04' })).statusCode).toBe(200);
    expect(await openVolumes()).toEqual(['0.06']);
  });

  it('replays the stored answer for the same key and body, byte for byte, without closing again', async () => {
    harness = await simulatedApp();
    const ticket = await openPosition();
    const k = key();
    const first = await act('POST', `/v1/positions/${ticket}/close`, k, { volume: '0.04' });
    const again = await act('POST', `/v1/positions/${ticket}/close`, k, { volume: '0.040' });
    expect(again.statusCode).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(first.body);
    expect(await openVolumes()).toEqual(['0.06']);
    expect(harness.terminal.stats.closePositionCalls).toBe(1);
  });

  it('answers 409 idempotency_conflict for the same key with a different body', async () => {
    harness = await simulatedApp();
    const ticket = await openPosition();
    const k = key();
    await act('POST', `/v1/positions/${ticket}/close`, k, { volume: '0.04' });
    expectEnvelope(await act('POST', `/v1/positions/${ticket}/close`, k, { volume: '0.05' }), 409, 'idempotency_conflict');
    expect(await openVolumes()).toEqual(['0.06']);
  });

  it('answers 422 validation_error without an Idempotency-Key, and closes nothing', async () => {
    harness = await simulatedApp();
    const ticket = await openPosition();
    expectEnvelope(await act('POST', `/v1/positions/${ticket}/close`, undefined), 422, 'validation_error');
    expect(await openVolumes()).toEqual(['0.10']);
  });

  it('stores 422 invalid_volume for a volume off the step or above the open volume, and replays it', async () => {
    harness = await simulatedApp();
    const ticket = await openPosition();
    expectEnvelope(await act('POST', `/v1/positions/${ticket}/close`, key(), { volume: '0.015' }), 422, 'invalid_volume');
    const k = key();
    const first = expectEnvelope(await act('POST', `/v1/positions/${ticket}/close`, k, { volume: '0.20' }), 422, 'invalid_volume');
    const again = await act('POST', `/v1/positions/${ticket}/close`, k, { volume: '0.20' });
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(first);
    expect(harness.terminal.stats.closePositionCalls).toBe(0);
  });

  it('stores 422 position_not_found for a position the terminal does not hold', async () => {
    harness = await simulatedApp();
    expectEnvelope(await act('POST', '/v1/positions/12345/close', key()), 422, 'position_not_found');
  });

  it('stores 422 position_not_found when the venue answers 10036', async () => {
    harness = await simulatedApp();
    const ticket = await openPosition();
    expect((await act('POST', `/v1/positions/${ticket}/close`, key())).statusCode).toBe(200);
    // The position was open when read, gone when closed: another key, racing, gets the venue's refusal.
    const res = await act('POST', `/v1/positions/${ticket}/close`, key());
    expectEnvelope(res, 422, 'position_not_found');
  });

  it('stores unknown on an ambiguous close, answers 503, and never sends it again', async () => {
    harness = await simulatedApp();
    const ticket = await openPosition();
    harness.terminal.injectFault({ method: 'closePosition', kind: 'ambiguous', times: 1 });
    const k = key();
    const first = await act('POST', `/v1/positions/${ticket}/close`, k);
    expectEnvelope(first, 503, 'execution_outcome_unknown');
    const again = await act('POST', `/v1/positions/${ticket}/close`, k);
    expect(again.statusCode).toBe(503);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(first.body);
    expect(harness.terminal.stats.closePositionCalls).toBe(1);
  });

  it('answers 409 action_in_progress to a retry while the close runs', async () => {
    harness = await simulatedApp();
    const ticket = await openPosition();
    harness.terminal.injectFault({ method: 'closePosition', kind: 'hang', times: 1 });
    const k = key();
    const running = act('POST', `/v1/positions/${ticket}/close`, k);
    for (let i = 0; i < 100 && harness.terminal.stats.closePositionCalls === 0; i++) await new Promise((r) => setImmediate(r));
    expectEnvelope(await act('POST', `/v1/positions/${ticket}/close`, k), 409, 'action_in_progress');
    harness.terminal.releaseHung();
    expect((await running).statusCode).toBe(200);
  });
});

describe('PATCH /v1/positions/{ticket}', () => {
  it('moves the stop loss and removes the take profit', async () => {
    harness = await simulatedApp();
    const ticket = await openPosition({ take_profit_distance: '0.0100' });
    const res = await act('PATCH', `/v1/positions/${ticket}`, key(), { sl: '1.00000', tp: null });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ kind: 'modify', ticket, state: 'done' });
    const [position] = await harness.terminal.positions();
    expect(Number(position?.sl)).toBe(1);
    expect(position?.tp).toBeNull();
  });

  it('replays the same key and body, and refuses a changed body with 409', async () => {
    harness = await simulatedApp();
    const ticket = await openPosition();
    const k = key();
    const first = await act('PATCH', `/v1/positions/${ticket}`, k, { sl: '1.00000' });
    const again = await act('PATCH', `/v1/positions/${ticket}`, k, { sl: '1.0' });
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(first.body);
    expectEnvelope(await act('PATCH', `/v1/positions/${ticket}`, k, { sl: '1.00100' }), 409, 'idempotency_conflict');
    expect(harness.terminal.stats.modifyPositionCalls).toBe(1);
  });

  it('stores 422 invalid_stops for a stop on the wrong side, and invalid_price for too many digits', async () => {
    harness = await simulatedApp();
    const ticket = await openPosition();
    expectEnvelope(await act('PATCH', `/v1/positions/${ticket}`, key(), { sl: '1.50000' }), 422, 'invalid_stops');
    expectEnvelope(await act('PATCH', `/v1/positions/${ticket}`, key(), { tp: '1.5000001' }), 422, 'invalid_price');
    expect(harness.terminal.stats.modifyPositionCalls).toBe(0);
  });

  it('refuses a body with neither leg (422 validation_error)', async () => {
    harness = await simulatedApp();
    const ticket = await openPosition();
    expectEnvelope(await act('PATCH', `/v1/positions/${ticket}`, key(), {}), 422, 'validation_error');
  });

  it('stores unknown on an ambiguous modification and answers 503', async () => {
    harness = await simulatedApp();
    const ticket = await openPosition();
    harness.terminal.injectFault({ method: 'modifyPosition', kind: 'ambiguous', times: 1 });
    const k = key();
    expectEnvelope(await act('PATCH', `/v1/positions/${ticket}`, k, { sl: '1.00000' }), 503, 'execution_outcome_unknown');
    expect((await act('PATCH', `/v1/positions/${ticket}`, k, { sl: '1.00000' })).headers['idempotent-replayed']).toBe('true');
    expect(harness.terminal.stats.modifyPositionCalls).toBe(1);
  });
});

describe('DELETE /v1/orders/{ticket}', () => {
  it('cancels a resting order', async () => {
    harness = await simulatedApp();
    const ticket = await restingOrder();
    const res = await act('DELETE', `/v1/orders/${ticket}`, key());
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ kind: 'cancel', ticket, state: 'done' });
    expect(await harness.terminal.orders()).toEqual([]);
  });

  it('replays the same key, and answers 409 when the key is reused for another order', async () => {
    harness = await simulatedApp();
    const ticket = await restingOrder();
    const k = key();
    const first = await act('DELETE', `/v1/orders/${ticket}`, k);
    const again = await act('DELETE', `/v1/orders/${ticket}`, k);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(first.body);
    expectEnvelope(await act('DELETE', '/v1/orders/99', k), 409, 'idempotency_conflict');
    expect(harness.terminal.stats.cancelOrderCalls).toBe(1);
  });

  it('stores 422 order_not_found for an order that no longer rests', async () => {
    harness = await simulatedApp();
    const ticket = await restingOrder();
    await act('DELETE', `/v1/orders/${ticket}`, key());
    expectEnvelope(await act('DELETE', `/v1/orders/${ticket}`, key()), 422, 'order_not_found');
  });

  it('stores unknown on an ambiguous cancel and answers 503', async () => {
    harness = await simulatedApp();
    const ticket = await restingOrder();
    harness.terminal.injectFault({ method: 'cancelOrder', kind: 'ambiguous', times: 1 });
    expectEnvelope(await act('DELETE', `/v1/orders/${ticket}`, key()), 503, 'execution_outcome_unknown');
  });
});

describe('GET /v1/actions', () => {
  it('lists the stored actions newest first, cursor-paged', async () => {
    harness = await simulatedApp();
    const ticket = await openPosition();
    await act('POST', `/v1/positions/${ticket}/close`, 'a-1', { volume: '0.01' });
    harness.clock.advance(1000);
    await act('POST', `/v1/positions/${ticket}/close`, 'a-2', { volume: '0.01' });
    harness.clock.advance(1000);
    await act('PATCH', `/v1/positions/${ticket}`, 'a-3', { sl: '1.50000' });
    const get = (query: string) => harness.app.inject({ method: 'GET', url: `/v1/actions${query}`, headers: { 'x-api-key': API_KEY } });
    const first = (await get('?limit=2')).json<{ actions: { action_id: string; state: string }[]; next_cursor: string }>();
    expect(first.actions.map((a) => [a.action_id, a.state])).toEqual([
      ['a-3', 'rejected'],
      ['a-2', 'done'],
    ]);
    const second = (await get(`?limit=2&cursor=${first.next_cursor}`)).json<{ actions: { action_id: string }[]; next_cursor: string | null }>();
    expect(second.actions.map((a) => a.action_id)).toEqual(['a-1']);
    expect(second.next_cursor).toBeNull();
  });

  it('lists one ticket’s actions with ?ticket=, and refuses a ticket that is not one (422)', async () => {
    harness = await simulatedApp();
    const [one, other] = [await openPosition(), await openPosition()];
    await act('POST', `/v1/positions/${one}/close`, 't-1', { volume: '0.01' });
    await act('POST', `/v1/positions/${other}/close`, 't-2', { volume: '0.01' });
    const get = (query: string) => harness.app.inject({ method: 'GET', url: `/v1/actions${query}`, headers: { 'x-api-key': API_KEY } });
    expect((await get(`?ticket=${other}`)).json<{ actions: { action_id: string }[] }>().actions.map((a) => a.action_id)).toEqual(['t-2']);
    expectEnvelope(await get('?ticket=abc'), 422, 'validation_error');
  });

  it('refuses a cursor it did not issue (422)', async () => {
    harness = await simulatedApp();
    expectEnvelope(await harness.app.inject({ method: 'GET', url: '/v1/actions?cursor=%21', headers: { 'x-api-key': API_KEY } }), 422, 'validation_error');
  });
});

describe('an action left in flight by a crash', () => {
  it('becomes unknown at start-up: a retry with its key replays 503 and nothing is sent', async () => {
    const store = sqliteStore();
    const body = {};
    await store.actions.claim({
      actionId: 'crashed-1',
      idempotencyKey: 'crashed-1',
      kind: 'close',
      ticket: '42',
      payloadHash: actionHash('close', '42', body),
      requestJson: JSON.stringify(body),
      requestId: 'req-1',
      orderComment: 'close:0123456789abcdef',
      receivedAt: new Date(NOW).toISOString(),
      leaseExpiresAt: new Date(NOW + 60_000).toISOString(),
    });
    harness = await simulatedApp({ store });
    const retry = await act('POST', '/v1/positions/42/close', 'crashed-1');
    expectEnvelope(retry, 503, 'execution_outcome_unknown');
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(harness.terminal.stats.closePositionCalls).toBe(0);
    const listed = (await harness.app.inject({ method: 'GET', url: '/v1/actions', headers: { 'x-api-key': API_KEY } })).json<{ actions: unknown[] }>();
    expect(listed.actions).toEqual([expect.objectContaining({ action_id: 'crashed-1', state: 'unknown', http_status: 503 })]);
  });
});

describe('POST /v1/positions/close-all', () => {
  function flatten(k: string | undefined, body?: object) {
    return act('POST', '/v1/positions/close-all', k, body);
  }

  it('closes every open position and lists each outcome', async () => {
    harness = await simulatedApp({ env: { ALLOWED_SYMBOLS: 'EURUSD,GBPUSD' } });
    const tickets = [await openPosition(), await openPosition({ symbol: 'GBPUSD' })];
    const res = await flatten(key());
    expect(res.statusCode).toBe(200);
    const { positions } = res.json<{ positions: { ticket: string; state: string; http_status: number }[] }>();
    expect(positions.map((p) => [p.ticket, p.state, p.http_status])).toEqual(tickets.map((t) => [t, 'done', 200]));
    expect(await harness.terminal.positions()).toEqual([]);
  });

  it('closes only the positions of the symbol asked for', async () => {
    harness = await simulatedApp({ env: { ALLOWED_SYMBOLS: 'EURUSD,GBPUSD' } });
    await openPosition();
    await openPosition({ symbol: 'GBPUSD' });
    expect((await flatten(key(), { symbol: 'GBPUSD' })).statusCode).toBe(200);
    expect((await harness.terminal.positions()).map((p) => p.symbol)).toEqual(['EURUSD']);
  });

  it('replays the same key and body without closing again, and refuses a changed body with 409', async () => {
    harness = await simulatedApp();
    await openPosition();
    const k = key();
    const first = await flatten(k);
    await openPosition();
    const again = await flatten(k);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(first.json());
    expect(harness.terminal.stats.closePositionCalls).toBe(1);
    expectEnvelope(await flatten(k, { symbol: 'EURUSD' }), 409, 'idempotency_conflict');
  });

  it('stores unknown for an ambiguous close of one position and never resends it on a retry', async () => {
    harness = await simulatedApp();
    await openPosition();
    await openPosition();
    harness.terminal.injectFault({ method: 'closePosition', kind: 'ambiguous', times: 1 });
    const k = key();
    const first = (await flatten(k)).json<{ positions: { state: string }[] }>();
    expect(first.positions.map((p) => p.state)).toEqual(['unknown', 'done']);
    const again = (await flatten(k)).json<{ positions: { state: string }[] }>();
    expect(again.positions.map((p) => p.state)).toEqual(['unknown', 'done']);
    expect(harness.terminal.stats.closePositionCalls).toBe(2);
  });

  it('resumed with the same key, closes only the positions not yet claimed', async () => {
    harness = await simulatedApp();
    const [claimed, rest] = [await openPosition(), await openPosition()];
    const k = key();
    // What a flatten cut off after claiming its first position leaves.
    await harness.store.actions.claim({
      actionId: flattenActionId(k, claimed),
      idempotencyKey: k,
      kind: 'close',
      ticket: claimed,
      payloadHash: actionHash('close_all', '', {}),
      requestJson: '{}',
      requestId: 'req-1',
      orderComment: 'close:0123456789abcdef',
      receivedAt: new Date(NOW).toISOString(),
      leaseExpiresAt: new Date(NOW + 60_000).toISOString(),
    });
    const res = (await flatten(k)).json<{ positions: { ticket: string; state: string }[] }>();
    expect(res.positions.map((p) => [p.ticket, p.state])).toEqual([
      [claimed, 'processing'],
      [rest, 'done'],
    ]);
    expect((await harness.terminal.positions()).map((p) => p.ticket)).toEqual([claimed]);
    expect(harness.terminal.stats.closePositionCalls).toBe(1);
  });

  it('answers 422 validation_error without an Idempotency-Key', async () => {
    harness = await simulatedApp();
    expectEnvelope(await flatten(undefined), 422, 'validation_error');
  });
});
