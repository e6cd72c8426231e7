import type { ServerResponse } from 'node:http';
import { commentFrame, eventFrame, retryFrame, type MetricsRegistry } from '@fxdesk/core';
import { RingBuffer, type Clock, type TimerHandle } from '@fxdesk/primitives';
import type {
  CandleEvent,
  DeliveryEvent,
  DownstreamEvent,
  LabEvent,
  OrderEvent,
  PairRecord,
  PairStatus,
  StrategyEventName,
  StrategySignal,
  StrategyStatus,
} from '@fxdesk/schemas';
import type { Logger } from 'pino';
import { errors } from './errors.js';
import { EventStream, type EventLog, type FramedEvent } from './event-stream.js';

export interface EventHubOptions {
  clock: Clock;
  logger: Logger;
  metrics: MetricsRegistry;
  /** Events kept for a Last-Event-ID resume (EVENTS_REPLAY). */
  replay: number;
  /** Most streams open at once (EVENTS_MAX_CLIENTS). */
  maxClients: number;
  /** The record each `status` event carries. */
  status: () => Promise<StrategyStatus>;
  /** The current record of a monitored pair; undefined once it is no longer monitored. */
  pairRecord: (instrument: string) => PairRecord | undefined;
  /** The monitored pairs' current records. */
  pairRecords: () => PairRecord[];
}

/** A `status` event this often while a client listens, which also catches pairs going stale without a quote. */
export const STATUS_EVERY_MS = 5000;
/** At most one `pair` event per pair in this time: quotes arrive many times a second. */
export const PAIR_EVERY_MS = 1000;
/** At most one `lab` event per job in this time while only its progress moves. */
export const LAB_EVERY_MS = 1000;
/** A comment this often keeps proxies from closing a quiet stream (§9.2.7 advises about 15 s). */
export const HEARTBEAT_MS = 15_000;
/** A client whose socket takes nothing for this long is dropped. */
export const STUCK_MS = 30_000;
/** How long an EventSource waits before it reconnects. */
export const RETRY_MS = 2000;

/**
 * The console's live events (GET /events). The engine, the signal dispatcher, the paper account,
 * the downstream health and the lab's jobs tell it what changed; it frames each event once, with
 * an id one more than the last, keeps the newest `replay` of them in a ring, and hands each to
 * every open stream.
 * Ids start at the hub's creation time in ms, so an id a client kept from before a restart is
 * older than anything kept and is answered with `reset` rather than misread.
 */
export class EventHub implements EventLog {
  private readonly ring: RingBuffer<FramedEvent>;
  private readonly streams = new Set<EventStream>();
  private nextId: number;
  private readonly pairThrottle = new Map<string, { lastAt: number; timer: TimerHandle | undefined }>();
  /** The status each pair's last `pair` event carried, to tell when one changes by time alone (stale). */
  private readonly pairStatuses = new Map<string, PairStatus>();
  /** Per lab job (kind/id) while it has not ended: the status it was last told with, and its progress held back. */
  private readonly labThrottle = new Map<string, LabThrottle>();
  private statusRun: Promise<void> | undefined;
  private isStatusWanted = false;
  private timers: TimerHandle[] = [];
  private isClosed = false;
  private readonly published;
  private readonly dropped;

  constructor(private readonly o: EventHubOptions) {
    this.ring = new RingBuffer(o.replay);
    this.nextId = o.clock.now();
    this.published = o.metrics.counter('strategy_events_total', 'Events published on GET /events, by event.');
    this.dropped = o.metrics.counter('strategy_event_clients_dropped_total', 'Event streams ended by the service, by reason (stuck, behind).');
    o.metrics.gauge('strategy_event_clients', 'Open GET /events streams.', () => this.streams.size);
  }

  /** The id of the newest event (one less than the first id before any event). */
  get lastId(): number {
    return this.nextId - 1;
  }

  /** The open streams (tests read their state). */
  openStreams(): readonly EventStream[] {
    return [...this.streams];
  }

  after(id: number): readonly FramedEvent[] | undefined {
    if (id > this.lastId) return undefined;
    const oldest = this.ring.oldest?.id ?? this.nextId;
    if (id < oldest - 1) return undefined;
    return this.ring.last(this.lastId - id);
  }

  /** A new status record is due (a start, stop, signal, a paper trade…); concurrent asks share one read. */
  statusChanged(): void {
    if (this.isClosed) return;
    if (this.statusRun) {
      this.isStatusWanted = true;
      return;
    }
    this.statusRun = this.o
      .status()
      .then(
        (status) => this.publish('status', status),
        (err: unknown) => this.o.logger.error({ err }, 'reading the status for /events failed'),
      )
      .finally(() => {
        this.statusRun = undefined;
        if (!this.isStatusWanted) return;
        this.isStatusWanted = false;
        this.statusChanged();
      });
  }

  /** A pair's record changed: sent now, or when its second is up, with the record as it is then. */
  pairChanged(instrument: string): void {
    if (this.isClosed) return;
    let throttle = this.pairThrottle.get(instrument);
    if (!throttle) {
      throttle = { lastAt: -Infinity, timer: undefined };
      this.pairThrottle.set(instrument, throttle);
    }
    if (throttle.timer) return;
    const waitMs = throttle.lastAt + PAIR_EVERY_MS - this.o.clock.now();
    if (waitMs <= 0) {
      this.sendPair(instrument);
      return;
    }
    const state = throttle;
    state.timer = this.o.clock
      .setTimeout(() => {
        state.timer = undefined;
        this.sendPair(instrument);
      }, waitMs)
      .unref();
  }

  /** Every monitored pair changed (a start, a stop). */
  pairsChanged(): void {
    for (const record of this.o.pairRecords()) this.pairChanged(record.instrument);
  }

  candle(event: CandleEvent): void {
    this.publish('candle', event);
  }

  signal(signal: StrategySignal): void {
    this.publish('signal', signal);
  }

  order(event: OrderEvent): void {
    this.publish('order', event);
  }

  delivery(event: DeliveryEvent): void {
    this.publish('delivery', event);
  }

  downstream(event: DownstreamEvent): void {
    this.publish('downstream', event);
  }

  /**
   * A lab job changed: a new status is sent at once (a job that ended is forgotten); a change of
   * progress alone at most once a second per job, the newest when its second is up.
   */
  labChanged(event: LabEvent): void {
    if (this.isClosed) return;
    const key = `${event.kind}/${event.id}`;
    let throttle = this.labThrottle.get(key);
    if (!throttle) {
      throttle = { status: null, lastAt: -Infinity, held: null, timer: undefined };
      this.labThrottle.set(key, throttle);
    }
    if (event.status !== throttle.status) {
      if (throttle.timer) this.o.clock.clearTimer(throttle.timer);
      throttle.timer = undefined;
      this.sendLab(key, throttle, event);
      return;
    }
    throttle.held = event;
    if (throttle.timer) return;
    const waitMs = throttle.lastAt + LAB_EVERY_MS - this.o.clock.now();
    if (waitMs <= 0) {
      this.sendLab(key, throttle, event);
      return;
    }
    const state = throttle;
    state.timer = this.o.clock
      .setTimeout(() => {
        state.timer = undefined;
        if (state.held) this.sendLab(key, state, state.held);
      }, waitMs)
      .unref();
  }

  /** Refuses a new stream when EVENTS_MAX_CLIENTS are open (before the response is turned into a stream). */
  admit(): void {
    if (this.isClosed) throw errors.create('too_many_clients', 'the service is shutting down');
    if (this.streams.size >= this.o.maxClients) {
      throw errors.create('too_many_clients', `${this.o.maxClients} event streams are open (EVENTS_MAX_CLIENTS); retry later`, {
        headers: { 'retry-after': '5' },
      });
    }
  }

  /**
   * Streams the events on a response whose headers are written: the retry hint; then, for a
   * `Last-Event-ID` still in the ring, every event after it, else (an id given but too old, from
   * the future or not a number) a `reset`; then live events, starting with a `status`.
   */
  open(res: ServerResponse, lastEventId: string | undefined): EventStream {
    const requested = lastEventId !== undefined && /^\d{1,16}$/.test(lastEventId) ? Number(lastEventId) : undefined;
    const resumes = requested !== undefined && this.after(requested) !== undefined;
    const stream = new EventStream({
      res,
      events: this,
      lastSentId: resumes ? requested : this.lastId,
      clock: this.o.clock,
      stuckMs: STUCK_MS,
      onGone: (gone, why) => this.drop(gone, why),
    });
    this.streams.add(stream);
    res.once('close', () => this.remove(stream));
    // A failed socket write surfaces here; the client is gone either way.
    res.on('error', () => this.remove(stream));
    stream.sendRaw(retryFrame(RETRY_MS));
    if (lastEventId !== undefined && !resumes) stream.sendRaw(eventFrame('reset', this.lastId, '{}'), this.lastId);
    else stream.catchUp();
    if (this.streams.size === 1) this.startTimers();
    this.statusChanged();
    return stream;
  }

  /** Waits until no status read is in flight (tests; shutdown). */
  async whenIdle(): Promise<void> {
    while (this.statusRun) await this.statusRun;
  }

  /** Ends every stream (service shutdown) and stops every timer; later events are dropped. */
  close(): void {
    this.isClosed = true;
    this.stopTimers();
    for (const throttle of [...this.pairThrottle.values(), ...this.labThrottle.values()]) if (throttle.timer) this.o.clock.clearTimer(throttle.timer);
    this.pairThrottle.clear();
    this.labThrottle.clear();
    for (const stream of [...this.streams]) {
      stream.close();
      this.remove(stream);
    }
  }

  private publish(event: StrategyEventName, data: unknown): void {
    if (this.isClosed) return;
    const framed = { id: this.nextId++, frame: '' };
    framed.frame = eventFrame(event, framed.id, JSON.stringify(data));
    this.ring.push(framed);
    this.published.inc({ event });
    for (const stream of this.streams) stream.offer(framed);
  }

  private sendPair(instrument: string): void {
    const record = this.o.pairRecord(instrument);
    const throttle = this.pairThrottle.get(instrument);
    if (!record || !throttle) return;
    throttle.lastAt = this.o.clock.now();
    this.pairStatuses.set(instrument, record.status);
    this.publish('pair', record);
  }

  private sendLab(key: string, throttle: LabThrottle, event: LabEvent): void {
    throttle.status = event.status;
    throttle.lastAt = this.o.clock.now();
    throttle.held = null;
    if (!isActiveJob(event.status)) this.labThrottle.delete(key);
    this.publish('lab', event);
  }

  /** The 5-second beat: a status, and a pair event for each pair whose status changed with time alone. */
  private beat(): void {
    this.statusChanged();
    for (const record of this.o.pairRecords()) {
      if (this.pairStatuses.get(record.instrument) !== record.status) this.pairChanged(record.instrument);
    }
  }

  private startTimers(): void {
    const { clock } = this.o;
    this.timers = [
      clock.setInterval(() => this.beat(), STATUS_EVERY_MS).unref(),
      clock
        .setInterval(() => {
          const frame = commentFrame('heartbeat');
          for (const stream of this.streams) stream.sendRaw(frame);
        }, HEARTBEAT_MS)
        .unref(),
    ];
  }

  private stopTimers(): void {
    for (const timer of this.timers) this.o.clock.clearTimer(timer);
    this.timers = [];
  }

  private drop(stream: EventStream, why: 'stuck' | 'behind'): void {
    this.dropped.inc({ reason: why });
    this.o.logger.warn(
      { why, lastSentId: stream.lastSentId, lastId: this.lastId, socketBytes: stream.socketWritableLength },
      why === 'stuck'
        ? `ending an /events stream whose socket took nothing for ${STUCK_MS / 1000} s`
        : 'ending an /events stream that fell behind the events kept (EVENTS_REPLAY); it resumes with a reset',
    );
    stream.close();
    this.remove(stream);
  }

  private remove(stream: EventStream): void {
    if (!this.streams.delete(stream)) return;
    stream.markClosed();
    if (this.streams.size === 0) this.stopTimers();
  }
}

interface LabThrottle {
  status: LabEvent['status'] | null;
  lastAt: number;
  /** The newest event not sent yet (its progress only moved). */
  held: LabEvent | null;
  timer: TimerHandle | undefined;
}

function isActiveJob(status: LabEvent['status']): boolean {
  return status === 'queued' || status === 'running';
}
