import type { Logger } from 'pino';
import type { DeskEvent, DeskEventLog, NewDeskEvent } from './store/index.js';

export interface DeskFeedOptions {
  log: Pick<DeskEventLog, 'appendEvents' | 'eventsAfter' | 'lastEventSeq'>;
  logger: Logger;
  /** Each event the log gains after the feed starts, in the log's order, once. */
  onEvents: (events: DeskEvent[]) => void;
}

/** Events read from the log at a time. */
const BATCH = 500;

/**
 * This replica's reader of the desk's event log (the store's): what happened at the desk, as
 * every replica shows it. An event is logged where it happens, in the write that makes it (a
 * signal, its order, its announcement) or on its own (a candle, a lab job); every replica reads
 * the log after the last event it read, at once after a write of its own and at each check of
 * the election for the others' (the way a follower learns of the leader's signals), and hands
 * on what it read in the log's order, so every replica's /events carries the same events with
 * the same numbers.
 */
export class DeskFeed {
  private cursor = 0;
  private started: Promise<void> | undefined;
  private reading: Promise<void> | undefined;
  private isReadWanted = false;
  /** Events recorded since the last append began, and the append that will take them. */
  private readonly queued: NewDeskEvent[] = [];
  private batch: Promise<void> | undefined;
  /** Appends one after another, so batches keep the order they were recorded in. */
  private appends: Promise<void> = Promise.resolve();

  constructor(private readonly o: DeskFeedOptions) {}

  /** The seq of the last event handed on (the log's newest when the feed started, before any). */
  get position(): number {
    return this.cursor;
  }

  /** Starts after the log's newest event: what was logged before is history, not news. */
  start(): Promise<void> {
    this.started ??= this.o.log.lastEventSeq().then(
      (last) => {
        this.cursor = last;
      },
      (err: unknown) => {
        this.started = undefined;
        throw err;
      },
    );
    return this.started;
  }

  /**
   * Logs an event that no record's write logs, then reads it back with the rest. The events
   * recorded in one turn of the event loop go in one write (a sweep's backtests ending together:
   * one fsync, not one each). A failure is logged, not thrown: the desk goes on.
   */
  record(event: NewDeskEvent): Promise<void> {
    this.queued.push(event);
    this.batch ??= new Promise<void>((resolve) => setImmediate(resolve)).then(async () => {
      this.batch = undefined;
      const events = this.queued.splice(0);
      this.appends = this.appends.then(() =>
        this.o.log.appendEvents(events).catch((err: unknown) => {
          this.o.logger.warn({ err, events: events.length }, 'logging desk events failed; /events goes without them');
        }),
      );
      await this.appends;
      await this.pull();
    });
    return this.batch;
  }

  /**
   * Reads what the log gained and hands it on; resolves once every event logged before the call
   * has been handed on (reads asked while one runs share the next one).
   */
  pull(): Promise<void> {
    if (this.reading) {
      this.isReadWanted = true;
      return this.reading;
    }
    this.reading = this.drain().finally(() => {
      this.reading = undefined;
    });
    return this.reading;
  }

  /** The logged events after `seq` (a client resuming /events), oldest first, at most `limit`; undefined when no longer kept. */
  after(seq: number, limit: number): Promise<DeskEvent[] | undefined> {
    return this.o.log.eventsAfter(seq, limit);
  }

  private async drain(): Promise<void> {
    try {
      await this.start();
      do {
        this.isReadWanted = false;
        await this.readToEnd();
      } while (this.isReadWanted);
    } catch (err) {
      this.o.logger.warn({ err }, 'reading the desk events failed; reading them again at the next check');
    }
  }

  private async readToEnd(): Promise<void> {
    for (;;) {
      const events = await this.o.log.eventsAfter(this.cursor, BATCH);
      if (events === undefined) {
        // This replica fell further behind than the log keeps: it goes on from the newest.
        const last = await this.o.log.lastEventSeq();
        this.o.logger.warn({ from: this.cursor, to: last }, 'desk events were pruned before this replica read them; /events goes on without them');
        this.cursor = last;
        return;
      }
      const newest = events.at(-1);
      if (!newest) return;
      this.cursor = newest.seq;
      this.o.onEvents(events);
      if (events.length < BATCH) return;
    }
  }
}
