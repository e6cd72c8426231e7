import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { commentFrame, eventFrame, retryFrame, type MetricsRegistry } from '@fxdesk/core';
import { RingBuffer, type Clock, type TimerHandle } from '@fxdesk/primitives';
import type { CandleEvent, DownstreamEvent, LabEvent, PairRecord, PairStatus, StrategyEventName, StrategyStatus } from '@fxdesk/schemas';
import type { Logger } from 'pino';
import type { DeskFeed } from './desk-feed.js';
import { errors } from './errors.js';
import { EventStream, type EventLog, type FramedEvent } from './event-stream.js';
import type { DeskEvent } from './store/index.js';

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
  /** The desk's event log as this replica reads it: where the `signal`, `order`, `delivery`, `candle` and `lab` events come from. */
  desk: Pick<DeskFeed, 'position' | 'record' | 'pull' | 'after'>;
}

/** An event as the ring keeps it: with the desk position it carries (its own seq for a desk event). */
interface HubEvent extends FramedEvent {
  desk: number;
}

/** What a Last-Event-ID says: the desk position, and the hub and place in its ring it came from. */
interface EventCursor {
  desk: number;
  hub: string;
  local: number;
}

/** Where a new stream starts: after a place in the ring, with frames to write first; or with a `reset`. */
type StreamStart = { after: number; frames: string[] } | 'reset';

const EVENT_ID = /^(\d{1,15})\.([0-9a-f]{8})\.(\d{1,15})$/;

function cursorOf(id: string): EventCursor | undefined {
  const m = EVENT_ID.exec(id);
  return m ? { desk: Number(m[1]), hub: m[2] as string, local: Number(m[3]) } : undefined;
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
/** Lab jobs whose end is remembered, to skip their stale events. */
const ENDED_JOBS_KEPT = 10_000;

/**
 * The console's live events (GET /events). The desk's events (`signal`, `order`, `delivery`,
 * `candle`, `lab`) come from the desk's log (desk-feed.ts), the same on every replica; this
 * replica's own view (`status`, `pair`, `downstream`) from the engine, the paper account and the
 * downstream health. It frames each event once, keeps the newest `replay` of them in a ring, and
 * hands each to every open stream.
 *
 * An event's id is `<desk>.<hub>.<n>`: the seq of the newest desk event up to it (the event's own
 * for a desk event), this hub's random name, and its place in this hub's ring. A client that
 * comes back to this hub resumes in the ring, exactly; one that comes back to another replica
 * (or after a restart) gets the desk events it missed from the log, then each pair as it is now,
 * then live events (a `status` first, as on any connect).
 */
export class EventHub implements EventLog {
  private readonly ring: RingBuffer<HubEvent>;
  private readonly streams = new Set<EventStream>();
  /** This hub's name in its events' ids: another replica's, or a restart's, never matches it. */
  readonly name = randomBytes(4).toString('hex');
  private nextId = 1;
  /** The seq of the newest desk event published; undefined before the first. */
  private lastDesk: number | undefined;
  /** The desk position just before the oldest event kept. */
  private evictedDesk: number | undefined;
  /** Desk reads and records this hub started (whenIdle waits for them). */
  private readonly deskWork = new Set<Promise<void>>();
  /** Per lab job that ended, the seq of the desk event that said so: a later one is stale. */
  private readonly endedJobs = new Map<string, number>();
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

  /** The seq of the newest desk event this hub published (the log's position when it started, before any). */
  get desk(): number {
    return this.lastDesk ?? this.o.desk.position;
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

  /** A candle closed (on the leader): logged once for every replica, then published as the log has it. */
  candle(event: CandleEvent): Promise<void> {
    if (this.isClosed) return Promise.resolve();
    const key = `${event.instrument}|${event.timeframe}|${event.candle.time}`;
    return this.track(this.o.desk.record({ name: 'candle', key, data: JSON.stringify(event) }));
  }

  /** A desk event was logged (a signal stored, an order's or announcement's outcome): published once read back. */
  deskChanged(): void {
    if (!this.isClosed) void this.track(this.o.desk.pull());
  }

  /**
   * Desk events read from the log, in its order. A lab job's event logged after its end (the
   * progress its replica held back while another replica cancelled it) is stale and skipped, by
   * every replica alike.
   */
  publishDesk(events: readonly DeskEvent[]): void {
    for (const event of events) {
      this.lastDesk = event.seq;
      if (event.name === 'lab' && this.isStaleLab(event)) continue;
      this.publishText(event.name, event.data);
    }
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
   * `Last-Event-ID`, what the client missed (from the ring when it comes back to this hub, else
   * the desk events from the log and each pair as it is now) or, when that cannot be told (an id
   * older than what is kept, never issued, or not an id), a `reset`; then live events, starting
   * with a `status`. Undefined when the client left while the log was read.
   */
  async open(res: ServerResponse, lastEventId: string | undefined): Promise<EventStream | undefined> {
    const cursor = lastEventId === undefined ? undefined : cursorOf(lastEventId);
    let start: StreamStart;
    if (lastEventId === undefined) start = { after: this.lastId, frames: [] };
    else if (!cursor) start = 'reset';
    else start = this.fromRing(cursor) ?? (await this.fromLog(cursor));
    if (res.destroyed || this.isClosed) return undefined;
    const stream = new EventStream({
      res,
      events: this,
      lastSentId: start === 'reset' ? this.lastId : start.after,
      clock: this.o.clock,
      stuckMs: STUCK_MS,
      onGone: (gone, why) => this.drop(gone, why),
    });
    this.streams.add(stream);
    res.once('close', () => this.remove(stream));
    // A failed socket write surfaces here; the client is gone either way.
    res.on('error', () => this.remove(stream));
    stream.sendRaw(retryFrame(RETRY_MS));
    if (start === 'reset') stream.sendRaw(eventFrame('reset', this.idOf(this.desk, this.lastId), '{}'), this.lastId);
    else {
      stream.sendAll(start.frames);
      if (!stream.backpressured) stream.catchUp();
    }
    if (this.streams.size === 1) this.startTimers();
    this.statusChanged();
    return stream;
  }

  /** Waits until no status read, desk read or desk record this hub started is in flight (tests; shutdown). */
  async whenIdle(): Promise<void> {
    while (this.statusRun || this.deskWork.size > 0) await Promise.all([this.statusRun, ...this.deskWork]);
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

  /** A client back at this hub, at a place its ring still holds (with the desk position it had there): every event after it. */
  private fromRing(cursor: EventCursor): StreamStart | undefined {
    if (cursor.hub !== this.name || this.after(cursor.local) === undefined || this.deskAt(cursor.local) !== cursor.desk) return undefined;
    return { after: cursor.local, frames: [] };
  }

  /**
   * A client from another replica (or from before a restart, or behind the ring): the desk
   * events after its position, read from the log (at most `replay` of them), and each pair as
   * it is now; `reset` when the log no longer keeps them or the position was never issued.
   */
  private async fromLog(cursor: EventCursor): Promise<StreamStart> {
    // Another replica may have read the log further than this one has yet.
    if (cursor.desk > this.desk) await this.track(this.o.desk.pull());
    const desk = this.desk;
    const after = this.lastId;
    if (cursor.desk > desk || desk - cursor.desk > this.o.replay) return 'reset';
    let missed: DeskEvent[] | undefined;
    try {
      missed = desk === cursor.desk ? [] : await this.o.desk.after(cursor.desk, desk - cursor.desk);
    } catch (err) {
      // The stream has begun: a client that cannot be told what it missed refetches.
      this.o.logger.warn({ err }, 'reading the desk events a resumed /events stream missed failed; it gets a reset');
      return 'reset';
    }
    if (!missed) return 'reset';
    const id = this.idOf(desk, after);
    return {
      after,
      frames: [
        ...missed
          .filter((event) => event.name !== 'lab' || !this.isStaleLab(event))
          .map((event) => eventFrame(event.name, this.idOf(event.seq, after), event.data)),
        ...this.o.pairRecords().map((record) => eventFrame('pair', id, JSON.stringify(record))),
      ],
    };
  }

  /** Whether a lab job's desk event comes after the one that ended the job (a job's first end is remembered). */
  private isStaleLab(event: DeskEvent): boolean {
    const { kind, id, status } = JSON.parse(event.data) as LabEvent;
    const key = `${kind}/${id}`;
    const endedAt = this.endedJobs.get(key);
    if (endedAt !== undefined) return endedAt < event.seq;
    if (isActiveJob(status)) return false;
    this.endedJobs.set(key, event.seq);
    // Jobs are few; the oldest ended ones are forgotten past a bound all the same.
    if (this.endedJobs.size > ENDED_JOBS_KEPT) this.endedJobs.delete(this.endedJobs.keys().next().value as string);
    return false;
  }

  /** The desk position at a place of the ring (the one just before the oldest kept included). */
  private deskAt(id: number): number | undefined {
    if (id === this.lastId) return this.desk;
    const oldest = this.ring.oldest;
    if (!oldest || id < oldest.id - 1 || id > this.lastId) return undefined;
    if (id === oldest.id - 1) return this.evictedDesk;
    return this.ring.last(this.lastId - id + 1)[0]?.desk;
  }

  private idOf(desk: number, local: number): string {
    return `${desk}.${this.name}.${local}`;
  }

  private track(work: Promise<void>): Promise<void> {
    this.deskWork.add(work);
    void work.finally(() => this.deskWork.delete(work));
    return work;
  }

  private publish(event: StrategyEventName, data: unknown): void {
    this.publishText(event, JSON.stringify(data));
  }

  private publishText(event: StrategyEventName, data: string): void {
    if (this.isClosed) return;
    const desk = this.desk;
    const id = this.nextId++;
    const framed = { id, desk, frame: eventFrame(event, this.idOf(desk, id), data) };
    const evicted = this.ring.size === this.ring.capacity ? this.ring.oldest : undefined;
    if (this.ring.size === 0 && this.evictedDesk === undefined) this.evictedDesk = desk;
    if (evicted) this.evictedDesk = evicted.desk;
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

  /** A lab job's event, logged for every replica (a console may follow the job on another), then published as the log has it. */
  private sendLab(key: string, throttle: LabThrottle, event: LabEvent): void {
    throttle.status = event.status;
    throttle.lastAt = this.o.clock.now();
    throttle.held = null;
    if (!isActiveJob(event.status)) this.labThrottle.delete(key);
    void this.track(this.o.desk.record({ name: 'lab', data: JSON.stringify(event) }));
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
