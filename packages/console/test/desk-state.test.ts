import { describe, expect, it } from 'vitest';
import { deskReducer, initialDeskState, pairList, type DeskState } from '../src/desk-state.js';
import { candle, downstream, pair, signal, status } from './fixtures.js';

function loaded(): DeskState {
  return deskReducer(initialDeskState, { type: 'snapshot', status: status(), pairs: [pair('EUR_USD'), pair('USD_JPY')], signals: [], profiles: {}, at: 1 });
}

describe('the desk state', () => {
  it('lists the pairs in the order the strategy sent them', () => {
    expect(pairList(loaded()).map((p) => p.instrument)).toEqual(['EUR_USD', 'USD_JPY']);
  });

  it('takes a pair event as the pair record, adding a pair it did not list', () => {
    let state = deskReducer(loaded(), { type: 'pair', pair: pair('USD_JPY', { current_price: 155.2 }), at: 2 });
    expect(state.pairs.USD_JPY?.current_price).toBe(155.2);
    state = deskReducer(state, { type: 'pair', pair: pair('GBP_USD'), at: 3 });
    expect(state.order).toEqual(['EUR_USD', 'USD_JPY', 'GBP_USD']);
  });

  it('puts a live signal first and on its pair as the latest signal', () => {
    const older = signal({ signal_id: 'older', generated_at: '2026-01-07T12:00:01.000Z' });
    let state = deskReducer(loaded(), { type: 'signal', signal: older, at: 2 });
    const newer = signal({ signal_id: 'newer', type: 'SHORT', entry_price: 1.2 });
    state = deskReducer(state, { type: 'signal', signal: newer, at: 3 });
    expect(state.signals.map((s) => s.signal_id)).toEqual(['newer', 'older']);
    expect(state.pairs.EUR_USD?.last_signal).toEqual({ type: 'SHORT', time: newer.generated_at, entry_price: 1.2 });
  });

  it('counts the desk as read only from a whole snapshot: events before it, or a failed read, leave it unread', () => {
    let state = deskReducer(initialDeskState, { type: 'status', status: status({ total_signals_today: 2 }), at: 1 });
    state = deskReducer(state, { type: 'pair', pair: pair('USD_JPY'), at: 2 });
    state = deskReducer(state, { type: 'load_failed', failure: { message: 'too many requests', retryAt: 60_000 } });
    expect(state.snapshotAt).toBeNull();
    state = deskReducer(state, { type: 'snapshot', status: status(), pairs: [pair('EUR_USD'), pair('USD_JPY')], signals: [], profiles: {}, at: 3 });
    expect(state).toMatchObject({ snapshotAt: 3, loadError: null, order: ['EUR_USD', 'USD_JPY'] });
  });

  it('keeps the last whole snapshot when a later read fails', () => {
    const state = deskReducer(loaded(), { type: 'load_failed', failure: { message: 'not answering', retryAt: 10 } });
    expect(state).toMatchObject({ snapshotAt: 1, loadError: { message: 'not answering', retryAt: 10 } });
    expect(pairList(state).map((p) => p.instrument)).toEqual(['EUR_USD', 'USD_JPY']);
  });

  it('keeps signals that arrived live while a snapshot was read', () => {
    const live = signal({ signal_id: 'live' });
    let state = deskReducer(initialDeskState, { type: 'signal', signal: live, at: 1 });
    state = deskReducer(state, {
      type: 'snapshot',
      status: status(),
      pairs: [],
      signals: [signal({ signal_id: 'stored', generated_at: '2026-01-07T11:00:00.000Z' })],
      profiles: {},
      at: 2,
    });
    expect(state.signals.map((s) => s.signal_id)).toEqual(['live', 'stored']);
  });

  it("moves a signal's order and announcement with order and delivery events", () => {
    const s = signal();
    let state = deskReducer(loaded(), { type: 'signal', signal: s, at: 2 });
    const execution = {
      status: 'filled' as const,
      code: null,
      message: null,
      tickets: { order: '1', deal: '2', position: '1' },
      attempts: 1,
      updated_at: null,
    };
    state = deskReducer(state, { type: 'order', event: { signal_id: s.signal_id, instrument: s.instrument, execution }, at: 3 });
    const notification = { status: 'sent' as const, request_id: 'r', delivery_ids: ['d'], message: null, attempts: 1, updated_at: null };
    state = deskReducer(state, { type: 'delivery', event: { signal_id: s.signal_id, instrument: s.instrument, notification }, at: 4 });
    expect(state.signals[0]?.execution.status).toBe('filled');
    expect(state.signals[0]?.notification.status).toBe('sent');
  });

  it("takes a downstream event into the status's downstream record", () => {
    const state = deskReducer(loaded(), { type: 'downstream', event: { service: 'market_data', state: downstream('failing', 'connection refused') }, at: 2 });
    expect(state.status?.downstream.market_data.state).toBe('failing');
    expect(state.status?.downstream.execution.state).toBe('ok');
  });

  it("keeps a pair's volume profile from its closed candles", () => {
    const state = deskReducer(loaded(), {
      type: 'candle',
      event: { instrument: 'EUR_USD', timeframe: 'M5', candle: candle('2026-01-07T12:30:00.000Z', { volume_profile: { poc: 1.2, vah: 1.3, val: 1.1 } }) },
      at: 2,
    });
    expect(state.profiles.EUR_USD).toEqual({ poc: 1.2, vah: 1.3, val: 1.1 });
  });
});
