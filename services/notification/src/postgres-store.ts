import { inTransaction, openPostgres, postgresHealth, type PostgresClient, type PostgresPool } from '@fxdesk/core';
import type { DeliveryRecord, DeliveryStatus, NotificationChannel, NotificationProvider, ProviderError } from '@fxdesk/schemas';
import pg, { type QueryResultRow } from 'pg';
import { parsePacing, serializePacing, type PacingBook, type PacingState } from './pacing.js';
import type { PlatformUpdate } from './status.js';
import {
  claimedOf,
  IN_DOUBT_ERROR,
  listConditions,
  followRoutes,
  pageOf,
  sentColumns,
  toRecord,
  trackingColumns,
  type ClaimedDelivery,
  type CreatedNotification,
  type Cursor,
  type DeliveryPage,
  type DeliveryRow,
  type ListFilters,
  type NewNotification,
  type NotificationStore,
  type Recovered,
  type RequestContent,
  type SentPart,
  type SentResult,
} from './store.js';

/**
 * The schema in PostgreSQL (counted as store `notification` in fxdesk_schema): notification.db's
 * tables and indexes under names of their own, so that services can share one database. Times are
 * epoch ms in BIGINT columns (read back as numbers), as notification.db keeps them; `seq` orders
 * the deliveries as SQLite's rowid does. `notification_pacing` holds each pacer's calendar, which
 * SQLite keeps in memory.
 */
export const POSTGRES_MIGRATIONS = [
  `CREATE TABLE notification_requests (
     id              TEXT PRIMARY KEY,
     source          TEXT NOT NULL,
     idempotency_key TEXT,
     message         TEXT NOT NULL,
     subject         TEXT,
     content_type    TEXT NOT NULL,
     channels        TEXT NOT NULL,
     payload_hash    TEXT NOT NULL,
     created_at      BIGINT NOT NULL
   );
   -- The idempotency claim: one row per (source, key); NULL keys never collide.
   CREATE UNIQUE INDEX notification_requests_idempotency ON notification_requests (source, idempotency_key);

   CREATE TABLE notification_deliveries (
     seq                 BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
     id                  TEXT NOT NULL UNIQUE,
     request_id          TEXT NOT NULL REFERENCES notification_requests (id),
     channel             TEXT NOT NULL,
     recipient           TEXT NOT NULL,
     source              TEXT NOT NULL,
     subject             TEXT,
     status              TEXT NOT NULL,
     attempts            INTEGER NOT NULL DEFAULT 0,
     provider            TEXT,
     provider_message_id TEXT,
     error               TEXT,
     sandbox_request     TEXT,
     next_attempt_at     BIGINT,
     lease_until         BIGINT,
     owner               TEXT,
     created_at          BIGINT NOT NULL,
     updated_at          BIGINT NOT NULL,
     sent_at             BIGINT,
     delivered_at        BIGINT,
     read_at             BIGINT
   );
   CREATE INDEX notification_deliveries_request ON notification_deliveries (request_id, seq);
   CREATE INDEX notification_deliveries_due ON notification_deliveries (next_attempt_at, seq) WHERE status = 'pending';
   CREATE INDEX notification_deliveries_lease ON notification_deliveries (lease_until) WHERE status = 'sending';
   CREATE INDEX notification_deliveries_provider_message ON notification_deliveries (provider_message_id) WHERE provider_message_id IS NOT NULL;
   CREATE INDEX notification_deliveries_newest ON notification_deliveries (created_at, seq);
   CREATE INDEX notification_deliveries_source ON notification_deliveries (source, created_at, seq);
   CREATE INDEX notification_deliveries_recipient ON notification_deliveries (recipient, created_at, seq);
   CREATE INDEX notification_deliveries_status ON notification_deliveries (status, created_at, seq);
   CREATE INDEX notification_deliveries_channel ON notification_deliveries (channel, created_at, seq);

   CREATE TABLE notification_recipient_routes (
     channel    TEXT NOT NULL,
     recipient  TEXT NOT NULL,
     routed_to  TEXT NOT NULL,
     changed_at BIGINT NOT NULL,
     PRIMARY KEY (channel, recipient)
   );
   CREATE TABLE notification_delivery_parts (
     delivery_id         TEXT NOT NULL REFERENCES notification_deliveries (id),
     part                INTEGER NOT NULL,
     parts               INTEGER NOT NULL,
     address             TEXT NOT NULL,
     provider_message_id TEXT,
     sent_at             BIGINT NOT NULL,
     PRIMARY KEY (delivery_id, part)
   );
   CREATE TABLE notification_messenger_sessions (
     wa_id           TEXT PRIMARY KEY,
     last_inbound_at BIGINT NOT NULL
   );
   CREATE TABLE notification_template_resends (
     delivery_id TEXT PRIMARY KEY REFERENCES notification_deliveries (id),
     text_wamid  TEXT NOT NULL,
     failed_at   BIGINT NOT NULL
   );
   CREATE INDEX notification_template_resends_text ON notification_template_resends (text_wamid);

   -- Each pacer's calendar and holds (pacing.ts, as JSON): a decision locks the row, so replicas take turns.
   CREATE TABLE notification_pacing (
     name  TEXT PRIMARY KEY,
     state TEXT
   );`,
];

const INSERT_REQUEST = `INSERT INTO notification_requests (id, source, idempotency_key, message, subject, content_type, channels, payload_hash, created_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (source, idempotency_key) DO NOTHING RETURNING id`;
const INSERT_DELIVERIES = `INSERT INTO notification_deliveries (id, request_id, channel, recipient, source, subject, status, next_attempt_at, created_at, updated_at)
  SELECT d.id, $4, d.channel, d.recipient, $5, $6, 'pending', $7, $7, $7
  FROM unnest($1::text[], $2::text[], $3::text[]) WITH ORDINALITY AS d (id, channel, recipient, n) ORDER BY d.n`;
const REQUEST_BY_KEY = 'SELECT id, payload_hash FROM notification_requests WHERE source = $1 AND idempotency_key = $2';
const DELIVERY_IDS = 'SELECT id FROM notification_deliveries WHERE request_id = $1 ORDER BY seq';
// One statement: the due rows no other transaction holds are locked, claimed and returned with
// their request's content; rows another replica is claiming at this moment are skipped, not waited for.
const CLAIM = `WITH due AS (
    SELECT seq FROM notification_deliveries WHERE status = 'pending' AND next_attempt_at <= $1
    ORDER BY next_attempt_at, seq LIMIT $2 FOR UPDATE SKIP LOCKED
  ), claimed AS (
    UPDATE notification_deliveries d SET status = 'sending', attempts = d.attempts + 1, lease_until = $3, owner = $4, updated_at = $1
    FROM due WHERE d.seq = due.seq RETURNING d.*
  )
  SELECT claimed.*, r.message, r.content_type FROM claimed JOIN notification_requests r ON r.id = claimed.request_id ORDER BY claimed.seq`;
// A lapsed claim of an at-most-once channel, or one out of attempts, fails in doubt; the others go
// back to pending. $5: this replica's name at its start (its own claims are an earlier process's), else NULL.
const RECOVER = `UPDATE notification_deliveries d SET
    status = CASE WHEN d.channel = ANY ($2::text[]) OR d.attempts >= $3 THEN 'failed' ELSE 'pending' END,
    error = CASE WHEN d.channel = ANY ($2::text[]) OR d.attempts >= $3 THEN $4 ELSE d.error END,
    next_attempt_at = CASE WHEN d.channel = ANY ($2::text[]) OR d.attempts >= $3 THEN NULL ELSE $1 END,
    lease_until = NULL, updated_at = $1
  FROM (SELECT seq FROM notification_deliveries WHERE status = 'sending' AND (lease_until < $1 OR owner = $5) FOR UPDATE SKIP LOCKED) lapsed
  WHERE d.seq = lapsed.seq RETURNING d.id, d.status`;
// $2 is `sent`, or `queued` when the provider has only queued it (a status report that got here
// first has already moved the record on, and is kept).
const MARK_SENT = `UPDATE notification_deliveries SET
    status = CASE WHEN status IN ('pending', 'sending') OR (status = 'failed' AND (error::jsonb ->> 'code') = 'outcome_unknown') THEN $2 ELSE status END,
    error = CASE WHEN status IN ('pending', 'sending') OR (status = 'failed' AND (error::jsonb ->> 'code') = 'outcome_unknown') THEN NULL ELSE error END,
    provider = $3, provider_message_id = $4, sandbox_request = $5,
    sent_at = CASE WHEN $2 = 'sent' THEN COALESCE(sent_at, $6) ELSE sent_at END, lease_until = NULL, next_attempt_at = NULL, updated_at = $6
  WHERE id = $1`;
const MARK_RETRY = `UPDATE notification_deliveries SET status = 'pending', error = $2, provider = $3, next_attempt_at = $4, lease_until = NULL,
    attempts = attempts - $6, updated_at = $5
  WHERE id = $1 AND status = 'sending' AND owner = $7`;
const MARK_FAILED = `UPDATE notification_deliveries SET status = 'failed', error = $2, provider = $3, next_attempt_at = NULL, lease_until = NULL, updated_at = $4
  WHERE id = $1 AND status IN ('pending', 'sending') AND owner = $5`;
const ROUTE_OF = 'SELECT routed_to FROM notification_recipient_routes WHERE channel = $1 AND recipient = $2';
const REROUTE = `INSERT INTO notification_recipient_routes (channel, recipient, routed_to, changed_at) VALUES ($1, $2, $3, $4)
  ON CONFLICT (channel, recipient) DO UPDATE SET routed_to = EXCLUDED.routed_to, changed_at = EXCLUDED.changed_at`;
const PARTS = 'SELECT part, parts, address, provider_message_id FROM notification_delivery_parts WHERE delivery_id = $1 ORDER BY part';
const RECORD_PART = `INSERT INTO notification_delivery_parts (delivery_id, part, parts, address, provider_message_id, sent_at)
  VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (delivery_id, part) DO NOTHING`;
const BY_ID = 'SELECT * FROM notification_deliveries WHERE id = $1';
// FOR UPDATE: a status report reads and writes its delivery as one step, however many replicas take reports at once.
const LOCK_BY_ID = 'SELECT * FROM notification_deliveries WHERE id = $1 FOR UPDATE';
const LOCK_BY_PROVIDER_ID = 'SELECT * FROM notification_deliveries WHERE provider_message_id = $1 AND channel = $2 ORDER BY seq LIMIT 1 FOR UPDATE';
const UPDATE_TRACKING = `UPDATE notification_deliveries SET status = $2, error = $3, sent_at = $4, delivered_at = $5, read_at = $6,
    next_attempt_at = CASE WHEN $2 = 'pending' THEN next_attempt_at ELSE NULL END,
    lease_until = CASE WHEN $2 = 'sending' THEN lease_until ELSE NULL END, updated_at = $7
  WHERE id = $1`;
const NEXT_DUE = "SELECT MIN(next_attempt_at) AS due FROM notification_deliveries WHERE status = 'pending'";
const COUNT_BY_STATUS = 'SELECT status, COUNT(*) AS n FROM notification_deliveries GROUP BY status';
const NOTE_INBOUND = `INSERT INTO notification_messenger_sessions (wa_id, last_inbound_at) VALUES ($1, $2)
  ON CONFLICT (wa_id) DO UPDATE SET last_inbound_at = GREATEST(notification_messenger_sessions.last_inbound_at, EXCLUDED.last_inbound_at)`;
const LAST_INBOUND = 'SELECT last_inbound_at FROM notification_messenger_sessions WHERE wa_id = $1';
const CLOSE_SESSION = 'DELETE FROM notification_messenger_sessions WHERE wa_id = $1 AND last_inbound_at <= $2';
const CLAIM_TEMPLATE_RESEND = `INSERT INTO notification_template_resends (delivery_id, text_wamid, failed_at) VALUES ($1, $2, $3)
  ON CONFLICT DO NOTHING RETURNING delivery_id`;
const REPLACED_TEXT = 'SELECT 1 FROM notification_template_resends WHERE text_wamid = $1 LIMIT 1';
// The text's attempt is given back: the template takes its place.
const REQUEUE_AS_TEMPLATE = `UPDATE notification_deliveries SET status = 'pending', error = $2, next_attempt_at = $3, attempts = GREATEST(attempts - 1, 0),
    sent_at = NULL, lease_until = NULL, updated_at = $3
  WHERE id = $1 AND status = 'sent'`;
const PACING_STATE = 'SELECT state FROM notification_pacing WHERE name = $1 FOR UPDATE';
const PACING_CREATE = 'INSERT INTO notification_pacing (name, state) VALUES ($1, NULL) ON CONFLICT (name) DO NOTHING';
const PACING_SAVE = 'UPDATE notification_pacing SET state = $2 WHERE name = $1';

const INT8 = 20;
/** BIGINT (times, seq, counts) read as numbers: epoch ms and row counts stay far below 2^53. */
const TYPES: pg.CustomTypesConfig = {
  getTypeParser: (oid: number, format?: 'text' | 'binary'): unknown => (oid === INT8 ? Number : pg.types.getTypeParser(oid, format)),
};

type Queryable = Pick<PostgresPool, 'query'> | PostgresClient;

/** A named statement (each connection prepares it once), its BIGINT columns read as numbers. */
async function run<R extends QueryResultRow>(on: Queryable, name: string, text: string, values: unknown[] = []): Promise<{ rows: R[]; rowCount: number }> {
  const result = await on.query<R>({ name, text, values, types: TYPES });
  return { rows: result.rows, rowCount: result.rowCount ?? 0 };
}

/**
 * The pacers' state in the database, one row per pacer: a decision locks its row (SELECT … FOR
 * UPDATE), reads the calendar, decides and writes it back in one transaction, so every replica
 * sending for the account takes its turns on one calendar.
 */
class PostgresPacingBook implements PacingBook {
  constructor(private readonly pool: PostgresPool) {}

  decide<T>(name: string, decide: (state: PacingState) => T): Promise<T> {
    return inTransaction(this.pool, async (client) => {
      let { rows } = await run<{ state: string | null }>(client, 'pacing_state', PACING_STATE, [name]);
      if (rows.length === 0) {
        await run(client, 'pacing_create', PACING_CREATE, [name]);
        ({ rows } = await run<{ state: string | null }>(client, 'pacing_state', PACING_STATE, [name]));
      }
      const before = rows[0]?.state ?? null;
      const state = parsePacing(before);
      const result = decide(state);
      const after = serializePacing(state);
      if (after !== before) await run(client, 'pacing_save', PACING_SAVE, [name, after]);
      return result;
    });
  }
}

/**
 * The notification store in PostgreSQL (DATABASE_URL), for several replicas on one database.
 * Each write is one statement or one transaction, durable when it returns (the server's
 * synchronous_commit); the server groups concurrent commits' WAL flushes itself. What the
 * replicas coordinate on is decided in the database: the idempotency claim by the unique index,
 * the outbox's claims by FOR UPDATE SKIP LOCKED, status reports by a row lock, the pacing
 * calendars by their row's lock.
 */
export class PostgresNotificationStore implements NotificationStore {
  readonly pacing: PacingBook;
  private readonly stats = { commits: 0, operations: 0 };
  /** The statement name of each combination of list filters met so far (at most 32). */
  private readonly listNames = new Map<string, string>();

  constructor(
    private readonly pool: PostgresPool,
    readonly replicaId: string,
  ) {
    this.pacing = new PostgresPacingBook(pool);
  }

  /** Connects to the database and brings its schema up to date (safe when replicas start at once). */
  static async open(url: string, replicaId: string): Promise<PostgresNotificationStore> {
    const pool = await openPostgres({ url, store: 'notification', migrations: POSTGRES_MIGRATIONS });
    return new PostgresNotificationStore(pool, replicaId);
  }

  /** A write (one statement, or a transaction), counted as one commit. */
  private async write<T>(work: () => Promise<T>): Promise<T> {
    const result = await work();
    this.stats.commits += 1;
    this.stats.operations += 1;
    return result;
  }

  private transaction<T>(work: (client: PostgresClient) => Promise<T>): Promise<T> {
    return this.write(() => inTransaction(this.pool, work));
  }

  create(n: NewNotification): Promise<CreatedNotification> {
    return this.transaction(async (client) => {
      const request = [
        n.requestId,
        n.source,
        n.idempotencyKey ?? null,
        n.message,
        n.subject ?? null,
        n.contentType,
        JSON.stringify(n.channels),
        n.payloadHash,
        n.now,
      ];
      const inserted = await run(client, 'insert_request', INSERT_REQUEST, request);
      if (inserted.rowCount === 0) {
        // The conflicting insert has committed (ON CONFLICT waited for it); this statement sees it.
        const { rows } = await run<{ id: string; payload_hash: string }>(client, 'request_by_key', REQUEST_BY_KEY, [n.source, n.idempotencyKey]);
        const original = rows[0] as { id: string; payload_hash: string };
        const ids = await run<{ id: string }>(client, 'delivery_ids', DELIVERY_IDS, [original.id]);
        return { replayed: true, requestId: original.id, deliveryIds: ids.rows.map((r) => r.id), samePayload: original.payload_hash === n.payloadHash };
      }
      if (n.deliveries.length > 0) {
        const d = n.deliveries;
        await run(client, 'insert_deliveries', INSERT_DELIVERIES, [
          d.map((x) => x.id),
          d.map((x) => x.channel),
          d.map((x) => x.recipient),
          n.requestId,
          n.source,
          n.subject ?? null,
          n.now,
        ]);
      }
      return { replayed: false, requestId: n.requestId, deliveryIds: n.deliveries.map((x) => x.id), samePayload: true };
    });
  }

  async claimDue(now: number, limit: number, leaseUntil: number): Promise<ClaimedDelivery[]> {
    const { rows } = await this.write(() => run<DeliveryRow & RequestContent>(this.pool, 'claim', CLAIM, [now, limit, leaseUntil, this.replicaId]));
    return rows.map((row) => claimedOf(row, row));
  }

  async recoverInDoubt(now: number, atMostOnce: NotificationChannel[], maxAttempts: number, atStart = false): Promise<Recovered> {
    const own = atStart ? this.replicaId : null;
    const { rows } = await this.write(() =>
      run<{ id: string; status: DeliveryStatus }>(this.pool, 'recover', RECOVER, [now, atMostOnce, maxAttempts, IN_DOUBT_ERROR, own]),
    );
    return { failed: rows.filter((r) => r.status === 'failed').map((r) => r.id), resent: rows.filter((r) => r.status === 'pending').map((r) => r.id) };
  }

  async markSent(id: string, result: SentResult, now: number): Promise<void> {
    const c = sentColumns(id, result, now);
    await this.write(() => run(this.pool, 'mark_sent', MARK_SENT, [c.id, c.status, c.provider, c.providerMessageId, c.sandboxRequest, c.now]));
  }

  async markRetry(id: string, error: ProviderError, provider: NotificationProvider, nextAttemptAt: number, now: number, refundAttempt = false): Promise<void> {
    const values = [id, JSON.stringify(error), provider, nextAttemptAt, now, refundAttempt ? 1 : 0, this.replicaId];
    await this.write(() => run(this.pool, 'mark_retry', MARK_RETRY, values));
  }

  async markFailed(id: string, error: ProviderError, provider: NotificationProvider, now: number): Promise<void> {
    await this.write(() => run(this.pool, 'mark_failed', MARK_FAILED, [id, JSON.stringify(error), provider, now, this.replicaId]));
  }

  routeOf(channel: NotificationChannel, recipient: string): Promise<string | undefined> {
    return followRoutes(recipient, async (at) => (await run<{ routed_to: string }>(this.pool, 'route_of', ROUTE_OF, [channel, at])).rows[0]?.routed_to);
  }

  async reroute(channel: NotificationChannel, recipient: string, routedTo: string, now: number): Promise<void> {
    await this.write(() => run(this.pool, 'reroute', REROUTE, [channel, recipient, routedTo, now]));
  }

  async partsSent(deliveryId: string): Promise<SentPart[]> {
    const { rows } = await run<{ part: number; parts: number; address: string; provider_message_id: string | null }>(this.pool, 'parts', PARTS, [deliveryId]);
    return rows.map((r) => ({ part: r.part, parts: r.parts, address: r.address, providerMessageId: r.provider_message_id }));
  }

  async recordPart(deliveryId: string, sent: SentPart, now: number): Promise<void> {
    await this.write(() => run(this.pool, 'record_part', RECORD_PART, [deliveryId, sent.part, sent.parts, sent.address, sent.providerMessageId, now]));
  }

  /** The delivery of `channel` a report names, locked until the transaction ends. */
  private async lockNamed(client: PostgresClient, providerMessageId: string, callbackData: string | undefined, channel: NotificationChannel) {
    const byProvider = await run<DeliveryRow>(client, 'lock_by_provider_id', LOCK_BY_PROVIDER_ID, [providerMessageId, channel]);
    if (byProvider.rows[0]) return byProvider.rows[0];
    if (!callbackData) return undefined;
    const byId = await run<DeliveryRow>(client, 'lock_by_id', LOCK_BY_ID, [callbackData]);
    return byId.rows[0]?.channel === channel ? byId.rows[0] : undefined;
  }

  applyPlatformStatus(
    providerMessageId: string,
    callbackData: string | undefined,
    update: PlatformUpdate,
    now: number,
    channel: NotificationChannel = 'MESSENGER_APP',
  ): Promise<'applied' | 'unchanged' | 'unknown'> {
    return this.transaction(async (client) => {
      const row = await this.lockNamed(client, providerMessageId, callbackData, channel);
      if (!row) return 'unknown';
      const c = trackingColumns(row, update, now);
      if (!c) return 'unchanged';
      await run(client, 'update_tracking', UPDATE_TRACKING, [c.id, c.status, c.error, c.sentAt, c.deliveredAt, c.readAt, c.now]);
      return 'applied';
    });
  }

  async noteInbound(messages: { waId: string; at: number }[]): Promise<void> {
    // In wa_id order, so that two reports locking the same users never wait on each other in a circle.
    const ordered = [...messages].sort((a, b) => (a.waId < b.waId ? -1 : a.waId > b.waId ? 1 : 0));
    await this.transaction(async (client) => {
      for (const m of ordered) await run(client, 'note_inbound', NOTE_INBOUND, [m.waId, m.at]);
    });
  }

  async lastInboundAt(waId: string): Promise<number | undefined> {
    const { rows } = await run<{ last_inbound_at: number }>(this.pool, 'last_inbound', LAST_INBOUND, [waId]);
    return rows[0]?.last_inbound_at;
  }

  async closeSession(waId: string, at: number): Promise<void> {
    await this.write(() => run(this.pool, 'close_session', CLOSE_SESSION, [waId, at]));
  }

  requeueAsTemplate(providerMessageId: string, callbackData: string | undefined, error: ProviderError, at: number, now: number): Promise<'queued' | 'refused'> {
    return this.transaction(async (client) => {
      const row = await this.lockNamed(client, providerMessageId, callbackData, 'MESSENGER_APP');
      if (row?.status !== 'sent') return 'refused';
      if ((await run(client, 'claim_template_resend', CLAIM_TEMPLATE_RESEND, [row.id, providerMessageId, at])).rowCount === 0) return 'refused';
      await run(client, 'requeue_as_template', REQUEUE_AS_TEMPLATE, [row.id, JSON.stringify(error), now]);
      return 'queued';
    });
  }

  async isReplacedText(wamid: string): Promise<boolean> {
    return (await run(this.pool, 'replaced_text', REPLACED_TEXT, [wamid])).rowCount > 0;
  }

  async get(id: string): Promise<DeliveryRecord | undefined> {
    const { rows } = await run<DeliveryRow>(this.pool, 'by_id', BY_ID, [id]);
    return rows[0] ? toRecord(rows[0]) : undefined;
  }

  /** The SELECT of one page, newest first; one row past `limit` tells whether more follow. */
  static listStatement(filters: ListFilters, limit: number, cursor: Cursor | undefined): { text: string; values: unknown[] } {
    const values: unknown[] = [];
    const where = listConditions(filters, cursor, (_name, value) => {
      values.push(value);
      return `$${values.length}`;
    });
    values.push(limit + 1);
    const condition = where.length > 0 ? `WHERE ${where.join(' AND ')} ` : '';
    return { text: `SELECT * FROM notification_deliveries ${condition}ORDER BY created_at DESC, seq DESC LIMIT $${values.length}`, values };
  }

  async list(filters: ListFilters, limit: number, cursor: Cursor | undefined): Promise<DeliveryPage> {
    const { text, values } = PostgresNotificationStore.listStatement(filters, limit, cursor);
    let name = this.listNames.get(text);
    if (name === undefined) {
      name = `list_${this.listNames.size}`;
      this.listNames.set(text, name);
    }
    return pageOf((await run<DeliveryRow>(this.pool, name, text, values)).rows, limit);
  }

  async nextDueAt(): Promise<number | undefined> {
    const { rows } = await run<{ due: number | null }>(this.pool, 'next_due', NEXT_DUE);
    return rows[0]?.due ?? undefined;
  }

  async countByStatus(): Promise<Record<string, number>> {
    const { rows } = await run<{ status: DeliveryStatus; n: number }>(this.pool, 'count_by_status', COUNT_BY_STATUS);
    return Object.fromEntries(rows.map((r) => [r.status, r.n]));
  }

  commitStats(): { commits: number; operations: number } {
    return { ...this.stats };
  }

  health(): Promise<{ ok: boolean; detail: string }> {
    return postgresHealth(this.pool);
  }

  async close(): Promise<void> {
    if (!this.pool.ending) await this.pool.end();
  }
}
