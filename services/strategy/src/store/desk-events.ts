import type { Database, Transaction } from '@fxdesk/core';

/** The kinds of event the desk's log keeps: what happened at the desk, as every replica shows it on /events. */
export type DeskEventName = 'signal' | 'order' | 'delivery' | 'candle' | 'lab';

/** An event of the desk's log: `seq` counts them 1, 2, 3… with no gap; `data` is the event's JSON, as it goes out. */
export type DeskEvent = {
  seq: number;
  name: DeskEventName;
  data: string;
};

/** An event to log; one with a `key` already logged (the same candle closed on two replicas leading at once) is logged once. */
export interface NewDeskEvent {
  name: DeskEventName;
  data: string;
  key?: string;
}

/** Events the log keeps: the oldest go as new ones come. */
export const EVENT_LOG_KEEP = 10_000;

/** What a write logs: its events, or undefined when it changed nothing (and logs nothing). */
export type LoggedWrite = (tx: Transaction) => Promise<readonly NewDeskEvent[] | undefined>;

/**
 * The desk's event log, the same on every replica: the events written with a record (a signal,
 * its order and its announcement: see `logged`) and those logged on their own (candles, lab jobs;
 * several in one write, in order). A write takes the log's turn first (the counter's row, locked
 * in PostgreSQL; SQLite's one writer holds the file), so events are numbered 1, 2, 3… with no gap
 * and each is readable only once every event before it is.
 */
export class DeskEventLog {
  private readonly turn: string;

  constructor(
    private readonly db: Database,
    /** Events kept (EVENT_LOG_KEEP; tests keep fewer). */
    private readonly keep = EVENT_LOG_KEEP,
  ) {
    this.turn = `SELECT last FROM strategy_event_seq WHERE id = 1 ${db.dialect.forUpdate}`;
  }

  /** Runs `write` and logs the events it returns, in one transaction; false when it changed nothing. */
  logged(write: LoggedWrite): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const { last } = (await tx.one<{ last: number }>(this.turn)) as { last: number };
      const events = await write(tx);
      if (!events) return false;
      await this.log(tx, events, last);
      return true;
    });
  }

  appendEvents(events: readonly NewDeskEvent[]): Promise<void> {
    return this.logged(async () => events).then(() => undefined);
  }

  /** The logged events after `seq`, oldest first, at most `limit`; undefined when some of them are no longer kept. */
  async eventsAfter(seq: number, limit: number): Promise<DeskEvent[] | undefined> {
    const events = await this.db.query<DeskEvent>('SELECT seq, name, data FROM strategy_events WHERE seq > @seq ORDER BY seq LIMIT @limit', { seq, limit });
    // The seqs have no gap: a first event that is not the one right after `seq` says those before it were pruned.
    return events.length > 0 && events[0]?.seq !== seq + 1 ? undefined : events;
  }

  /** The seq of the newest event logged (0 before the first). */
  async lastEventSeq(): Promise<number> {
    return ((await this.db.one<{ last: number }>('SELECT last FROM strategy_event_seq WHERE id = 1')) as { last: number }).last;
  }

  /** Numbers the events after `last` (one whose key is logged already is left out), stores them and drops those past `keep`. */
  private async log(tx: Transaction, events: readonly NewDeskEvent[], last: number): Promise<void> {
    const rows: Array<{ seq: number; name: DeskEventName; event_key: string | null; data: string }> = [];
    const keys = new Set<string>();
    for (const event of events) {
      if (event.key !== undefined) {
        if (keys.has(event.key) || (await tx.one('SELECT 1 AS logged FROM strategy_events WHERE event_key = @key', { key: event.key }))) continue;
        keys.add(event.key);
      }
      rows.push({ seq: ++last, name: event.name, event_key: event.key ?? null, data: event.data });
    }
    if (rows.length === 0) return;
    await tx.insertMany('strategy_events', ['seq', 'name', 'event_key', 'data'], rows);
    await tx.run('UPDATE strategy_event_seq SET last = @last WHERE id = 1', { last });
    await tx.run('DELETE FROM strategy_events WHERE seq <= @oldest', { oldest: last - this.keep });
  }
}
