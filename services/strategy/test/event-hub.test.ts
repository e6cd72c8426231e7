import type { ServerResponse } from 'node:http';
import { createLogger, MetricsRegistry } from '@fxdesk/core';
import { FakeResponse } from '@fxdesk/core/testing';
import { ManualClock } from '@fxdesk/primitives';
import { SseParser } from '@fxdesk/client';
import type { LabEvent, PairRecord, StrategyStatus } from '@fxdesk/schemas';
import { describe, expect, it } from 'vitest';
import { EventHub, HEARTBEAT_MS, LAB_EVERY_MS, PAIR_EVERY_MS, STATUS_EVERY_MS, STUCK_MS } from '../src/event-hub.js';
import type { DeskEvent, NewDeskEvent } from '../src/store/index.js';

/** An event id's parts: the desk position, the hub's name and the place in its ring. */
function partsOf(id: string): { desk: number; hub: string; local: number } {
  const [desk, hub, local] = id.split('.');
  return { desk: Number(desk), hub: hub as string, local: Number(local) };
}

/** The kit's fake response, reading back the events written to it. */
class EventsResponse extends FakeResponse {
  text = '';
  private readonly parser = new SseParser();
  readonly events: { event: string; id: string; data: unknown }[] = [];
  override write(chunk: string): boolean {
    this.text += chunk;
    for (const e of this.parser.push(chunk)) this.events.push({ event: e.event, id: e.id ?? '', data: JSON.parse(e.data) as unknown });
    return super.write(chunk);
  }
  /** The events' places in the hub's ring. */
  locals(): number[] {
    return this.events.map((e) => partsOf(e.id).local);
  }
}

/**
 * The desk's log as one store holds it for every replica, in memory: `record` logs and reads
 * back at once, `log` is another replica logging (this hub reads it at its next `pull`).
 */
class MemoryDesk {
  readonly events: DeskEvent[] = [];
  /** Events with a seq up to this one are no longer kept. */
  pruned = 0;
  /** The store does not answer. */
  isDown = false;
  private read = 0;
  hub: EventHub | undefined;

  get position(): number {
    return this.read;
  }

  log(event: NewDeskEvent): void {
    this.events.push({ seq: this.events.length + 1, name: event.name, data: event.data });
  }

  record(event: NewDeskEvent): Promise<void> {
    this.log(event);
    return this.pull();
  }

  pull(): Promise<void> {
    const fresh = this.events.slice(this.read);
    this.read = this.events.length;
    if (fresh.length > 0) this.hub?.publishDesk(fresh);
    return Promise.resolve();
  }

  async after(seq: number, limit: number): Promise<DeskEvent[] | undefined> {
    if (this.isDown) throw new Error('connection refused');
    return seq < this.pruned ? undefined : this.events.filter((e) => e.seq > seq).slice(0, limit);
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

function hubOf(options: { replay?: number; maxClients?: number; desk?: MemoryDesk } = {}) {
  const clock = new ManualClock();
  const records = new Map<string, PairRecord>();
  const desk = options.desk ?? new MemoryDesk();
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
    desk,
  });
  desk.hub = hub;
  const open = async (lastEventId?: string) => {
    const res = new EventsResponse();
    const stream = (await hub.open(res as unknown as ServerResponse, lastEventId))!;
    return { res, stream };
  };
  /** Logs `n` order events, numbered from 0, and publishes them. */
  const publish = (n: number) => {
    for (let i = 0; i < n; i++)
      void desk.record({ name: 'order', data: JSON.stringify({ signal_id: `s${i}`, instrument: 'EUR_USD', execution: { status: 'pending' } }) });
  };
  return { hub, clock, records, desk, open, publish, statusReads: () => statusReads };
}

describe('EventHub', () => {
  it('gives each event the id desk position . hub . place in its ring, the desk position of a desk event its own', async () => {
    const { hub, open, publish } = hubOf();
    const { res } = await open();
    await hub.whenIdle();
    publish(3);
    hub.statusChanged();
    await hub.whenIdle();
    expect(res.events.map((e) => [e.event, e.id])).toEqual([
      ['status', `0.${hub.name}.1`],
      ['order', `1.${hub.name}.2`],
      ['order', `2.${hub.name}.3`],
      ['order', `3.${hub.name}.4`],
      ['status', `3.${hub.name}.5`],
    ]);
    expect(hub.name).toMatch(/^[0-9a-f]{8}$/);
    expect(res.text.startsWith('retry: 2000\n\n')).toBe(true);
  });

  it('resumes a client back at this hub after its Last-Event-ID with every later event of the ring, none twice', async () => {
    const { hub, open, publish, records } = hubOf();
    const first = await open();
    await hub.whenIdle();
    publish(5);
    records.set('EUR_USD', pair('EUR_USD', 1.1));
    hub.pairChanged('EUR_USD');
    const seen = first.res.events[2]!.id;
    const { res } = await open(seen);
    await hub.whenIdle();
    expect(res.events.map((e) => e.event)).toEqual(['order', 'order', 'order', 'pair', 'status']);
    expect(res.events.slice(0, 3).map((e) => (e.data as { signal_id: string }).signal_id)).toEqual(['s2', 's3', 's4']);
    expect(res.locals()).toEqual([4, 5, 6, 7, 8]);
  });

  it('resumes a client from another replica with the desk events it missed, read from the log, then each pair as it is', async () => {
    const desk = new MemoryDesk();
    const a = hubOf({ desk });
    const client = await a.open();
    await a.hub.whenIdle();
    a.publish(2);
    const seen = client.res.events.at(-1)!.id;
    // Replica b reads the same log; two more desk events come while the client moves to it.
    const b = hubOf({ desk: new MemoryDesk() });
    b.desk.events.push(...desk.events);
    await b.desk.pull();
    b.publish(2);
    b.records.set('EUR_USD', pair('EUR_USD', 1.1));
    const { res } = await b.open(seen);
    await b.hub.whenIdle();
    expect(res.events.map((e) => e.event)).toEqual(['order', 'order', 'pair', 'status']);
    expect(res.events.map((e) => partsOf(e.id).desk)).toEqual([3, 4, 4, 4]);
    expect(res.events.slice(0, 2).map((e) => (e.data as { signal_id: string }).signal_id)).toEqual(['s0', 's1']);
  });

  it('reads the log first for a client from a replica that has read further than this one', async () => {
    const desk = new MemoryDesk();
    const { hub, open } = hubOf({ desk });
    await hub.whenIdle();
    // Another replica logged two events and gave them to the client; this hub has not read them yet.
    desk.log({ name: 'lab', data: '{"id":"b1"}' });
    desk.log({ name: 'lab', data: '{"id":"b2"}' });
    const { res } = await open('2.0badf00d.7');
    await hub.whenIdle();
    expect(res.events.map((e) => e.event)).toEqual(['status']);
    expect(partsOf(res.events[0]!.id).desk).toBe(2);
    expect(hub.desk).toBe(2);
  });

  it('sends reset first, with the newest id, when the log no longer keeps what was missed or does not answer, for an id never issued, or not an id', async () => {
    const desk = new MemoryDesk();
    const { hub, open, publish } = hubOf({ desk, replay: 10 });
    publish(25);
    desk.pruned = 20;
    // Another replica's client at desk 20: the log has every event after it.
    const resumed = (await open('20.0badf00d.3')).res.events.filter((e) => e.event === 'order');
    expect(resumed.map((e) => partsOf(e.id).desk)).toEqual([21, 22, 23, 24, 25]);
    await hub.whenIdle();
    desk.isDown = true;
    expect((await open('20.0badf00d.3')).res.events[0]?.event, 'the log not answering').toBe('reset');
    desk.isDown = false;
    for (const id of ['19.0badf00d.3', '14.0badf00d.3', '26.0badf00d.3', `26.${hub.name}.${hub.lastId}`, 'abc', '-3', '25']) {
      const before = hub.lastId;
      const { res } = await open(id);
      expect(res.events[0], id).toEqual({ event: 'reset', id: `25.${hub.name}.${before}`, data: {} });
      await hub.whenIdle();
      // The next event follows the reset's id, as after any event.
      expect(res.events[1]).toMatchObject({ event: 'status', id: `25.${hub.name}.${before + 1}` });
    }
  });

  it('sends at most one pair event a second per pair, the trailing one with the record as it is then', async () => {
    const { hub, clock, records, open } = hubOf();
    const { res } = await open();
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

  it("logs a lab job's every status at once and its progress at most once a second, the trailing event with the newest progress", async () => {
    const { hub, clock, open, desk } = hubOf();
    const { res } = await open();
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
    // Each went through the desk's log, where every replica reads it.
    expect(desk.events.filter((e) => e.name === 'lab').map((e) => JSON.parse(e.data) as LabEvent)).toEqual(labs());
  });

  it("skips a lab job's event logged after its end, live and in a resume from the log, as every replica does", async () => {
    const { hub, open, desk } = hubOf();
    const { res } = await open();
    const first = res.events[0]!.id;
    const job = (status: LabEvent['status'], progress: number): LabEvent => ({ kind: 'backtest', id: 'b1', status, progress, sweep_id: null });
    // Its runner's replica held a progress back while another replica cancelled the job.
    for (const event of [job('running', 0.2), job('cancelled', 0.2), job('running', 0.6)]) desk.log({ name: 'lab', data: JSON.stringify(event) });
    await desk.pull();
    const told = (events: typeof res.events) => events.filter((e) => e.event === 'lab').map((e) => (e.data as LabEvent).status);
    expect(told(res.events)).toEqual(['running', 'cancelled']);
    expect(hub.desk).toBe(3);
    expect(told((await open(first.replace(hub.name, '0badf00d'))).res.events)).toEqual(['running', 'cancelled']);
  });

  it("holds a timer for a running job's progress only until the job ends", async () => {
    const { hub, clock, open } = hubOf();
    const { res } = await open();
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
    const { res, stream } = await open();
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

  it('tells a pair that went stale by time alone at the next beat', async () => {
    const { hub, clock, records, open } = hubOf();
    records.set('EUR_USD', pair('EUR_USD', 1.1));
    const { res } = await open();
    hub.pairChanged('EUR_USD');
    records.set('EUR_USD', { ...pair('EUR_USD', 1.1), status: 'stale' });
    clock.advance(STATUS_EVERY_MS);
    expect(res.events.filter((e) => e.event === 'pair').map((e) => (e.data as PairRecord).status)).toEqual(['monitoring', 'stale']);
  });

  it('shares one status read among the asks made while one is in flight', async () => {
    const { hub, open, statusReads } = hubOf();
    await open();
    await hub.whenIdle();
    const reads = statusReads();
    for (let i = 0; i < 10; i++) hub.statusChanged();
    await hub.whenIdle();
    expect(statusReads()).toBe(reads + 2);
  });

  it('writes nothing to a socket that pushes back, then catches up from the ring on drain without a gap or a duplicate', async () => {
    const { hub, open, publish } = hubOf();
    const { res, stream } = await open();
    await hub.whenIdle();
    res.accepting = false;
    publish(1);
    const written = res.text.length;
    publish(20);
    expect(res.text.length).toBe(written);
    expect(stream.backpressured).toBe(true);
    res.drain();
    const ids = res.locals();
    expect(ids).toEqual(ids.map((_, i) => ids[0]! + i));
    expect(ids.at(-1)).toBe(hub.lastId);
  });

  it('ends a client that fell behind the events kept when it drains: it resumes from the log, or with a reset when that has gone on too', async () => {
    const { hub, open, publish, desk, records } = hubOf({ replay: 10 });
    const { res, stream } = await open();
    await hub.whenIdle();
    res.accepting = false;
    publish(3);
    for (let i = 0; i < 12; i++) {
      records.set(`P${i}_USD`, pair(`P${i}_USD`, 1));
      hub.pairChanged(`P${i}_USD`);
    }
    res.drain();
    expect(res.ended).toBe(true);
    expect(stream.closed).toBe(true);
    expect(hub.openStreams()).toHaveLength(0);
    // It read the first order before its socket pushed back; the ring has moved on past it, the log has not.
    const seen = res.events.at(-1)!.id;
    expect(partsOf(seen).desk).toBe(1);
    const again = (await open(seen)).res.events;
    expect(again.filter((e) => e.event === 'order').map((e) => partsOf(e.id).desk)).toEqual([2, 3]);
    expect(again.filter((e) => e.event === 'pair')).toHaveLength(12);
    publish(5);
    desk.pruned = 2;
    expect((await open(seen)).res.events[0]?.event).toBe('reset');
  });

  it('drops a client whose socket takes nothing for 30 s, not one that drains in time', async () => {
    const { hub, clock, open, publish } = hubOf();
    const slow = await open();
    const stuck = await open();
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

  it('refuses a client past EVENTS_MAX_CLIENTS with 503 TOO_MANY_CLIENTS', async () => {
    const { hub, open } = hubOf({ maxClients: 2 });
    await open();
    hub.admit();
    await open();
    expect(() => hub.admit()).toThrow(expect.objectContaining({ code: 'too_many_clients', statusCode: 503 }));
  });

  it('ends every stream at close and publishes nothing after', async () => {
    const { hub, clock, open, publish } = hubOf();
    const { res } = await open();
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
