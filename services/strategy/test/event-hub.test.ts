import type { ServerResponse } from 'node:http';
import { createLogger, MetricsRegistry } from '@fxdesk/core';
import { FakeResponse } from '@fxdesk/core/testing';
import { ManualClock } from '@fxdesk/primitives';
import { SseParser } from '@fxdesk/client';
import type { LabEvent, PairRecord, StrategyStatus } from '@fxdesk/schemas';
import { describe, expect, it } from 'vitest';
import { EventHub, HEARTBEAT_MS, LAB_EVERY_MS, PAIR_EVERY_MS, STATUS_EVERY_MS, STUCK_MS } from '../src/event-hub.js';

/** The kit's fake response, reading back the events written to it. */
class EventsResponse extends FakeResponse {
  text = '';
  private readonly parser = new SseParser();
  readonly events: { event: string; id: number; data: unknown }[] = [];
  override write(chunk: string): boolean {
    this.text += chunk;
    for (const e of this.parser.push(chunk)) this.events.push({ event: e.event, id: Number(e.id), data: JSON.parse(e.data) as unknown });
    return super.write(chunk);
  }
  ids(): number[] {
    return this.events.map((e) => e.id);
  }
}

const STATUS = { running: false } as StrategyStatus;

function pair(instrument: string, price: number): PairRecord {
  return {
    instrument,
    symbol: instrument.replace('_', ''),
    status: 'monitoring',
    current_price: price,
    supertrend: null,
    stochrsi: null,
    last_signal: null,
    last_candle_time: null,
    last_data_at: null,
  };
}

function hubOf(options: { replay?: number; maxClients?: number } = {}) {
  const clock = new ManualClock();
  const records = new Map<string, PairRecord>();
  let statusReads = 0;
  const hub = new EventHub({
    clock,
    logger: createLogger({ name: 'strategy', level: 'silent' }),
    metrics: new MetricsRegistry(),
    replay: options.replay ?? 100,
    maxClients: options.maxClients ?? 10,
    status: async () => {
      statusReads++;
      return STATUS;
    },
    pairRecord: (instrument) => records.get(instrument),
    pairRecords: () => [...records.values()],
  });
  const open = (lastEventId?: string) => {
    const res = new EventsResponse();
    const stream = hub.open(res as unknown as ServerResponse, lastEventId);
    return { res, stream };
  };
  /** Publishes `n` order events, numbered from 0. */
  const publish = (n: number) => {
    for (let i = 0; i < n; i++) hub.order({ signal_id: `s${i}`, instrument: 'EUR_USD', execution: { status: 'pending' } as never });
  };
  return { hub, clock, records, open, publish, statusReads: () => statusReads };
}

describe('EventHub', () => {
  it('numbers events one more than the last, starting at its creation time in ms', async () => {
    const { hub, clock, open, publish } = hubOf();
    const { res } = open();
    await hub.whenIdle();
    publish(3);
    expect(res.ids()).toEqual([clock.now(), clock.now() + 1, clock.now() + 2, clock.now() + 3]);
    expect(res.events.map((e) => e.event)).toEqual(['status', 'order', 'order', 'order']);
    expect(res.text.startsWith('retry: 2000\n\n')).toBe(true);
  });

  it('resumes after a Last-Event-ID it still keeps with every later event, none twice', async () => {
    const { hub, open, publish } = hubOf();
    publish(5);
    const first = hub.lastId - 4;
    const { res } = open(String(first + 1));
    await hub.whenIdle();
    expect(res.ids()).toEqual([first + 2, first + 3, first + 4, first + 5]);
    expect(res.events.at(-1)?.event).toBe('status');
    expect(res.events.slice(0, 3).map((e) => (e.data as { signal_id: string }).signal_id)).toEqual(['s2', 's3', 's4']);
  });

  it('sends reset first, with the newest id, for an id older than the events kept, one never issued, or not a number', async () => {
    const { hub, open, publish } = hubOf({ replay: 10 });
    publish(25);
    // The oldest kept event's predecessor is still a resumable id; one before it is not.
    expect(open(String(hub.lastId - 10)).res.events[0]?.event).toBe('order');
    await hub.whenIdle();
    for (const make of [(lastId: number) => lastId - 11, (lastId: number) => lastId + 1, () => 'abc', () => '-3']) {
      const lastId = hub.lastId;
      const { res } = open(String(make(lastId)));
      expect(res.events[0]).toEqual({ event: 'reset', id: lastId, data: {} });
      await hub.whenIdle();
      // The next event is one more than the reset's id, as after any event.
      expect(res.events[1]).toMatchObject({ event: 'status', id: lastId + 1 });
    }
  });

  it('sends at most one pair event a second per pair, the trailing one with the record as it is then', () => {
    const { hub, clock, records, open } = hubOf();
    const { res } = open();
    records.set('EUR_USD', pair('EUR_USD', 1.1));
    records.set('USD_JPY', pair('USD_JPY', 150));
    for (let i = 1; i <= 50; i++) {
      records.set('EUR_USD', pair('EUR_USD', Number((1.1 + i / 10_000).toFixed(4))));
      hub.pairChanged('EUR_USD');
      clock.advance(10);
    }
    hub.pairChanged('USD_JPY');
    const pairs = () => res.events.filter((e) => e.event === 'pair').map((e) => e.data as PairRecord);
    expect(pairs().map((p) => [p.instrument, p.current_price])).toEqual([
      ['EUR_USD', 1.1001],
      ['USD_JPY', 150],
    ]);
    clock.advance(PAIR_EVERY_MS - 500 - 1);
    expect(pairs()).toHaveLength(2);
    clock.advance(1);
    expect(pairs().map((p) => [p.instrument, p.current_price])).toEqual([
      ['EUR_USD', 1.1001],
      ['USD_JPY', 150],
      ['EUR_USD', 1.105],
    ]);
  });

  it("tells a lab job's every status at once and its progress at most once a second, the trailing event with the newest progress", () => {
    const { hub, clock, open } = hubOf();
    const { res } = open();
    const job = (status: LabEvent['status'], progress: number, id = 'b1'): LabEvent => ({ kind: 'backtest', id, status, progress, sweep_id: null });
    const labs = () => res.events.filter((e) => e.event === 'lab').map((e) => e.data as LabEvent);
    hub.labChanged(job('queued', 0));
    hub.labChanged(job('running', 0));
    for (let i = 1; i <= 30; i++) {
      hub.labChanged(job('running', i / 100));
      clock.advance(10);
    }
    // Another job is throttled on its own.
    hub.labChanged(job('running', 0.5, 'b2'));
    expect(labs().map((e) => [e.id, e.status, e.progress])).toEqual([
      ['b1', 'queued', 0],
      ['b1', 'running', 0],
      ['b2', 'running', 0.5],
    ]);
    clock.advance(LAB_EVERY_MS - 300 - 1);
    expect(labs()).toHaveLength(3);
    clock.advance(1);
    expect(labs().at(-1)).toEqual(job('running', 0.3));

    // A status change is told at once, whatever the progress waiting; the held progress is dropped.
    hub.labChanged(job('running', 0.4));
    hub.labChanged(job('done', 1));
    expect(
      labs()
        .slice(4)
        .map((e) => [e.status, e.progress]),
    ).toEqual([['done', 1]]);
    clock.advance(LAB_EVERY_MS * 3);
    expect(labs()).toHaveLength(5);
  });

  it("holds a timer for a running job's progress only until the job ends", () => {
    const { hub, clock, open } = hubOf();
    const { res } = open();
    const sweep = (status: LabEvent['status'], progress: number): LabEvent => ({ kind: 'sweep', id: 's1', status, progress, sweep_id: null });
    const timers = clock.pendingTimers();
    hub.labChanged(sweep('running', 0.1));
    hub.labChanged(sweep('running', 0.2));
    expect(clock.pendingTimers()).toBe(timers + 1);
    hub.labChanged(sweep('cancelled', 0.2));
    expect(clock.pendingTimers()).toBe(timers);
    clock.advance(LAB_EVERY_MS * 2);
    expect(res.events.filter((e) => e.event === 'lab').map((e) => (e.data as LabEvent).status)).toEqual(['running', 'cancelled']);
  });

  it('sends a status every 5 s and a heartbeat every 15 s while a client listens, and neither with none', async () => {
    const { hub, clock, open, statusReads } = hubOf();
    clock.advance(STATUS_EVERY_MS * 4);
    expect(statusReads()).toBe(0);
    const { res, stream } = open();
    await hub.whenIdle();
    clock.advance(STATUS_EVERY_MS);
    await hub.whenIdle();
    expect(res.events.filter((e) => e.event === 'status')).toHaveLength(2);
    clock.advance(HEARTBEAT_MS);
    expect(res.text).toContain(': heartbeat\n\n');
    res.emit('close');
    expect(stream.closed).toBe(true);
    const reads = statusReads();
    clock.advance(STATUS_EVERY_MS * 4);
    expect(statusReads()).toBe(reads);
  });

  it('tells a pair that went stale by time alone at the next beat', () => {
    const { hub, clock, records, open } = hubOf();
    records.set('EUR_USD', pair('EUR_USD', 1.1));
    const { res } = open();
    hub.pairChanged('EUR_USD');
    records.set('EUR_USD', { ...pair('EUR_USD', 1.1), status: 'stale' });
    clock.advance(STATUS_EVERY_MS);
    expect(res.events.filter((e) => e.event === 'pair').map((e) => (e.data as PairRecord).status)).toEqual(['monitoring', 'stale']);
  });

  it('shares one status read among the asks made while one is in flight', async () => {
    const { hub, open, statusReads } = hubOf();
    open();
    for (let i = 0; i < 10; i++) hub.statusChanged();
    await hub.whenIdle();
    expect(statusReads()).toBe(2);
  });

  it('writes nothing to a socket that pushes back, then catches up from the ring on drain without a gap or a duplicate', async () => {
    const { hub, open, publish } = hubOf();
    const { res, stream } = open();
    await hub.whenIdle();
    res.accepting = false;
    publish(1);
    const written = res.text.length;
    publish(20);
    expect(res.text.length).toBe(written);
    expect(stream.backpressured).toBe(true);
    res.drain();
    const ids = res.ids();
    expect(ids).toEqual(ids.map((_, i) => ids[0]! + i));
    expect(ids.at(-1)).toBe(hub.lastId);
  });

  it('ends a client that fell behind the events kept when it drains: it resumes with a reset', async () => {
    const { hub, open, publish } = hubOf({ replay: 10 });
    const { res, stream } = open();
    await hub.whenIdle();
    res.accepting = false;
    publish(1);
    publish(30);
    res.drain();
    expect(res.ended).toBe(true);
    expect(stream.closed).toBe(true);
    expect(hub.openStreams()).toHaveLength(0);
    const again = open(String(stream.lastSentId)).res;
    expect(again.events[0]?.event).toBe('reset');
  });

  it('drops a client whose socket takes nothing for 30 s, not one that drains in time', async () => {
    const { hub, clock, open, publish } = hubOf();
    const slow = open();
    const stuck = open();
    await hub.whenIdle();
    slow.res.accepting = false;
    stuck.res.accepting = false;
    publish(1);
    clock.advance(STUCK_MS - 1);
    slow.res.drain();
    clock.advance(1);
    expect(stuck.res.destroyed).toBe(true);
    expect(slow.res.destroyed).toBe(false);
    expect(hub.openStreams()).toEqual([slow.stream]);
  });

  it('refuses a client past EVENTS_MAX_CLIENTS with 503 TOO_MANY_CLIENTS', () => {
    const { hub, open } = hubOf({ maxClients: 2 });
    open();
    hub.admit();
    open();
    expect(() => hub.admit()).toThrow(expect.objectContaining({ code: 'too_many_clients', statusCode: 503 }));
  });

  it('ends every stream at close and publishes nothing after', async () => {
    const { hub, clock, open, publish } = hubOf();
    const { res } = open();
    await hub.whenIdle();
    hub.close();
    expect(res.ended).toBe(true);
    const count = res.events.length;
    publish(3);
    hub.statusChanged();
    clock.advance(STATUS_EVERY_MS * 2);
    expect(res.events).toHaveLength(count);
    expect(clock.pendingTimers()).toBe(0);
  });
});
