import { openStoreDatabase, type Database, type Dialect, type Row } from '@fxdesk/core';
import type { DeliveryRecord, DeliveryStatus, NotificationChannel, NotificationContentType, NotificationProvider, ProviderError } from '@fxdesk/schemas';
import { DatabasePacingBook, MemoryPacingBook, type PacingBook } from './pacing.js';
import { NOTIFICATION_SCHEMA } from './schema.js';
import { applyPlatformUpdate, type PlatformUpdate } from './status.js';
import type {
  ClaimedDelivery,
  CreatedNotification,
  Cursor,
  DeliveryPage,
  ListFilters,
  NewNotification,
  NotificationStore,
  Recovered,
  SentPart,
  SentResult,
} from './store.js';

/** A row of `notification_deliveries`. */
interface DeliveryRow extends Row {
  seq: number;
  id: string;
  request_id: string;
  channel: NotificationChannel;
  recipient: string;
  source: string;
  subject: string | null;
  status: DeliveryStatus;
  attempts: number;
  provider: NotificationProvider | null;
  provider_message_id: string | null;
  error: string | null;
  sandbox_request: string | null;
  next_attempt_at: number | null;
  lease_until: number | null;
  created_at: number;
  updated_at: number;
  sent_at: number | null;
  delivered_at: number | null;
  read_at: number | null;
}

/** A claimed delivery with its request's content. */
interface ClaimedRow extends DeliveryRow {
  message: string;
  content_type: NotificationContentType;
}

/** The error of a delivery whose worker stopped during the provider call, on an at-most-once channel (or out of attempts). */
const IN_DOUBT_ERROR = JSON.stringify({
  code: 'outcome_unknown',
  message: 'the worker stopped during the provider call; not sent again, the message may or may not have gone out',
} satisfies ProviderError);

/** A chat moves once (a group becomes a supergroup); the bound only guards against a cycle. */
const MAX_ROUTE_HOPS = 8;

const DELIVERY_COLUMNS = ['id', 'request_id', 'channel', 'recipient', 'source', 'subject', 'status', 'next_attempt_at', 'created_at', 'updated_at'];

/** The statements, written once; what the engines spell differently comes from the dialect. */
function statements(d: Dialect) {
  // A send replaces what the claim left, and an unknown outcome; a status report that got here first is kept.
  const sendable = `status IN ('pending', 'sending') OR (status = 'failed' AND ${d.jsonText('error', 'code')} = 'outcome_unknown')`;
  const requestOf = (column: string) => `(SELECT ${column} FROM notification_requests r WHERE r.id = notification_deliveries.request_id)`;
  return {
    insertRequest: `INSERT INTO notification_requests (id, source, idempotency_key, message, subject, content_type, channels, payload_hash, created_at)
      VALUES (@id, @source, @idempotencyKey, @message, @subject, @contentType, @channels, @payloadHash, @now)
      ON CONFLICT (source, idempotency_key) DO NOTHING`,
    requestByKey: 'SELECT id, payload_hash FROM notification_requests WHERE source = @source AND idempotency_key = @idempotencyKey',
    deliveryIdsOf: 'SELECT id FROM notification_deliveries WHERE request_id = @requestId ORDER BY seq',
    // One statement: the due rows (on PostgreSQL, those no other transaction holds: rows another
    // replica is claiming are skipped, not waited for) are claimed and returned with their request's content.
    claim: `WITH due AS MATERIALIZED (
        SELECT seq FROM notification_deliveries ${d.indexedBy('deliveries_due')}
        WHERE status = 'pending' AND next_attempt_at <= @now ORDER BY next_attempt_at, seq LIMIT @limit ${d.skipLocked}
      )
      UPDATE notification_deliveries SET status = 'sending', attempts = attempts + 1, lease_until = @leaseUntil, owner = @owner, updated_at = @now
      WHERE seq IN (SELECT seq FROM due)
      RETURNING *, ${requestOf('message')} AS message, ${requestOf('content_type')} AS content_type`,
    // `inDoubt`: the condition under which a lapsed claim fails rather than goes back to pending.
    recover: (inDoubt: string) => `WITH lapsed AS MATERIALIZED (
        SELECT seq FROM notification_deliveries ${d.indexedBy('deliveries_lease')}
        WHERE status = 'sending' AND (lease_until < @leaseBefore OR owner = @own) ${d.skipLocked}
      )
      UPDATE notification_deliveries SET
        status = CASE WHEN ${inDoubt} THEN 'failed' ELSE 'pending' END,
        error = CASE WHEN ${inDoubt} THEN @error ELSE error END,
        -- A typed NULL: beside it, PostgreSQL would take @now for text.
        next_attempt_at = CASE WHEN ${inDoubt} THEN CAST(NULL AS ${d.types.bigint}) ELSE @now END,
        lease_until = NULL, updated_at = @now
      WHERE seq IN (SELECT seq FROM lapsed)
      RETURNING seq, id, status`,
    // @status is `sent`, or `queued` when the provider has only queued it.
    markSent: `UPDATE notification_deliveries SET
        status = CASE WHEN ${sendable} THEN @status ELSE status END,
        error = CASE WHEN ${sendable} THEN NULL ELSE error END,
        provider = @provider, provider_message_id = @providerMessageId, sandbox_request = @sandboxRequest,
        sent_at = CASE WHEN @status = 'sent' THEN COALESCE(sent_at, @now) ELSE sent_at END, lease_until = NULL, next_attempt_at = NULL, updated_at = @now
      WHERE id = @id`,
    markRetry: `UPDATE notification_deliveries SET status = 'pending', error = @error, provider = @provider, next_attempt_at = @nextAttemptAt, lease_until = NULL,
        attempts = attempts - @refund, updated_at = @now
      WHERE id = @id AND status = 'sending' AND owner = @owner`,
    markFailed: `UPDATE notification_deliveries SET status = 'failed', error = @error, provider = @provider, next_attempt_at = NULL, lease_until = NULL, updated_at = @now
      WHERE id = @id AND status IN ('pending', 'sending') AND owner = @owner`,
    routeOf: 'SELECT routed_to FROM notification_recipient_routes WHERE channel = @channel AND recipient = @recipient',
    reroute: `INSERT INTO notification_recipient_routes (channel, recipient, routed_to, changed_at) VALUES (@channel, @recipient, @routedTo, @now)
      ON CONFLICT (channel, recipient) DO UPDATE SET routed_to = excluded.routed_to, changed_at = excluded.changed_at`,
    partsOf: 'SELECT part, parts, address, provider_message_id FROM notification_delivery_parts WHERE delivery_id = @deliveryId ORDER BY part',
    recordPart: `INSERT INTO notification_delivery_parts (delivery_id, part, parts, address, provider_message_id, sent_at)
      VALUES (@deliveryId, @part, @parts, @address, @providerMessageId, @now)
      ON CONFLICT (delivery_id, part) DO NOTHING`,
    byId: 'SELECT * FROM notification_deliveries WHERE id = @id',
    // Locked (on PostgreSQL): a status report reads and writes its delivery as one step, however many replicas take reports at once.
    lockById: `SELECT * FROM notification_deliveries WHERE id = @id ${d.forUpdate}`,
    lockByProviderMessageId: `SELECT * FROM notification_deliveries WHERE provider_message_id = @providerMessageId AND channel = @channel
      ORDER BY seq LIMIT 1 ${d.forUpdate}`,
    updateTracking: `UPDATE notification_deliveries SET status = @status, error = @error, sent_at = @sentAt, delivered_at = @deliveredAt, read_at = @readAt,
        next_attempt_at = CASE WHEN @status = 'pending' THEN next_attempt_at ELSE NULL END,
        lease_until = CASE WHEN @status = 'sending' THEN lease_until ELSE NULL END, updated_at = @now
      WHERE id = @id`,
    nextDue: `SELECT MIN(next_attempt_at) AS due FROM notification_deliveries ${d.indexedBy('deliveries_due')} WHERE status = 'pending'`,
    countByStatus: 'SELECT status, COUNT(*) AS n FROM notification_deliveries GROUP BY status',
    // A window only moves on: an older report changes nothing.
    inboundConflict: `ON CONFLICT (wa_id) DO UPDATE SET last_inbound_at = excluded.last_inbound_at
      WHERE excluded.last_inbound_at > notification_messenger_sessions.last_inbound_at`,
    lastInbound: 'SELECT last_inbound_at FROM notification_messenger_sessions WHERE wa_id = @waId',
    closeSession: 'DELETE FROM notification_messenger_sessions WHERE wa_id = @waId AND last_inbound_at <= @at',
    claimTemplateResend: 'INSERT INTO notification_template_resends (delivery_id, text_wamid, failed_at) VALUES (@id, @wamid, @at) ON CONFLICT DO NOTHING',
    replacedText: 'SELECT 1 AS replaced FROM notification_template_resends WHERE text_wamid = @wamid LIMIT 1',
    // The text's attempt is given back: the template takes its place.
    requeueAsTemplate: `UPDATE notification_deliveries SET status = 'pending', error = @error, next_attempt_at = @now,
        attempts = CASE WHEN attempts > 0 THEN attempts - 1 ELSE 0 END, sent_at = NULL, lease_until = NULL, updated_at = @now
      WHERE id = @id AND status = 'sent'`,
  };
}

export interface OpenNotificationStoreOptions {
  /** DATABASE_URL: PostgreSQL when set, else the SQLite `file`. */
  databaseUrl: string | undefined;
  /** The SQLite file (`DATA_DIR/notification.db`), or `:memory:`. */
  file: string;
  replicaId: string;
}

/** The notification store in PostgreSQL when DATABASE_URL names one, else in the SQLite file; migrated first. */
export async function openNotificationStore({ databaseUrl, file, replicaId }: OpenNotificationStoreOptions): Promise<DatabaseNotificationStore> {
  const db = await openStoreDatabase({ databaseUrl, file, schema: NOTIFICATION_SCHEMA });
  return new DatabaseNotificationStore(db, { replicaId });
}

/**
 * The notification store, one for both engines (see NotificationStore): requests, their
 * deliveries (the outbox), and what the channels keep, in the tables of schema.ts.
 *
 * On SQLite (`DATA_DIR/notification.db`, WAL, synchronous=FULL, the embedded default) every write
 * goes through the port's group commit: the writes of one event-loop turn share one transaction
 * and one fsync; reads run at once on committed data. On PostgreSQL (DATABASE_URL), for several
 * replicas on one database, each write is one statement or one transaction, durable when it
 * returns, and what the replicas coordinate on is decided in the database: the idempotency claim
 * by the unique index, the outbox's claims by FOR UPDATE SKIP LOCKED, status reports by a row
 * lock, the pacing calendars by their row's lock.
 */
export class DatabaseNotificationStore implements NotificationStore {
  readonly replicaId: string;
  /**
   * Where one process holds the data (SQLite, by the DATA_DIR lock), the calendars stay in its
   * memory, as nothing else sends for the account; else in the database, shared by the replicas.
   */
  readonly pacing: PacingBook;
  /** One process holds the data: at start, every claim in it is a dead process's. */
  private readonly soleProcess: boolean;
  private readonly sql: ReturnType<typeof statements>;

  constructor(
    /** The database, for what reads the engine itself (the benchmark, tests). */
    readonly db: Database,
    options: { replicaId: string },
  ) {
    this.replicaId = options.replicaId;
    this.soleProcess = db.dialect.soleProcess;
    this.pacing = this.soleProcess ? new MemoryPacingBook() : new DatabasePacingBook(db);
    this.sql = statements(db.dialect);
  }

  /**
   * The unique index decides, inside the transaction. On PostgreSQL a conflicting insert waits
   * for its twin's commit, so the read that follows sees the original.
   */
  create(n: NewNotification): Promise<CreatedNotification> {
    const s = this.sql;
    return this.db.transaction(async (tx) => {
      const inserted = await tx.run(s.insertRequest, {
        id: n.requestId,
        source: n.source,
        idempotencyKey: n.idempotencyKey ?? null,
        message: n.message,
        subject: n.subject ?? null,
        contentType: n.contentType,
        channels: JSON.stringify(n.channels),
        payloadHash: n.payloadHash,
        now: n.now,
      });
      if (inserted.changes === 0) {
        const original = await tx.one<{ id: string; payload_hash: string }>(s.requestByKey, { source: n.source, idempotencyKey: n.idempotencyKey ?? null });
        if (!original) throw new Error(`request (${n.source}, ${n.idempotencyKey}) conflicted, yet is not stored`);
        const ids = await tx.query<{ id: string }>(s.deliveryIdsOf, { requestId: original.id });
        return { replayed: true, requestId: original.id, deliveryIds: ids.map((r) => r.id), samePayload: original.payload_hash === n.payloadHash };
      }
      const rows = n.deliveries.map((d) => ({
        id: d.id,
        request_id: n.requestId,
        channel: d.channel,
        recipient: d.recipient,
        source: n.source,
        subject: n.subject ?? null,
        status: 'pending',
        next_attempt_at: n.now,
        created_at: n.now,
        updated_at: n.now,
      }));
      if (rows.length > 0) await tx.insertMany('notification_deliveries', DELIVERY_COLUMNS, rows);
      return { replayed: false, requestId: n.requestId, deliveryIds: n.deliveries.map((d) => d.id), samePayload: true };
    });
  }

  /** One statement both checks and changes the status (SQLite: under the write lock; PostgreSQL: SKIP LOCKED): one worker gets each row. */
  async claimDue(now: number, limit: number, leaseUntil: number): Promise<ClaimedDelivery[]> {
    const rows = await this.db.write<ClaimedRow>(this.sql.claim, { now, limit, leaseUntil, owner: this.replicaId });
    return rows
      .sort((a, b) => a.seq - b.seq)
      .map((row) => ({
        id: row.id,
        requestId: row.request_id,
        channel: row.channel,
        recipient: row.recipient,
        attempts: row.attempts,
        message: row.message,
        subject: row.subject,
        contentType: row.content_type,
      }));
  }

  async recoverInDoubt(now: number, atMostOnce: NotificationChannel[], maxAttempts: number, atStart = false): Promise<Recovered> {
    const params: Record<string, string | number | null> = {
      now,
      maxAttempts,
      error: IN_DOUBT_ERROR,
      // At start, the claims no running worker can hold: every one where this process holds the
      // data alone, else those under this replica's name (an earlier process of it died with them).
      leaseBefore: atStart && this.soleProcess ? Number.MAX_SAFE_INTEGER : now,
      own: atStart ? this.replicaId : null,
    };
    const channels = atMostOnce.map((channel, i) => {
      params[`atMostOnce${i}`] = channel;
      return `@atMostOnce${i}`;
    });
    const inDoubt = channels.length > 0 ? `(channel IN (${channels.join(', ')}) OR attempts >= @maxAttempts)` : 'attempts >= @maxAttempts';
    const rows = await this.db.write<{ seq: number; id: string; status: DeliveryStatus }>(this.sql.recover(inDoubt), params);
    rows.sort((a, b) => a.seq - b.seq);
    return { failed: rows.filter((r) => r.status === 'failed').map((r) => r.id), resent: rows.filter((r) => r.status === 'pending').map((r) => r.id) };
  }

  async markSent(id: string, result: SentResult, now: number): Promise<void> {
    await this.db.run(this.sql.markSent, {
      id,
      status: result.queued ? 'queued' : 'sent',
      provider: result.provider,
      providerMessageId: result.providerMessageId,
      sandboxRequest: result.sandboxRequest === undefined ? null : JSON.stringify(result.sandboxRequest),
      now,
    });
  }

  async markRetry(id: string, error: ProviderError, provider: NotificationProvider, nextAttemptAt: number, now: number, refundAttempt = false): Promise<void> {
    await this.db.run(this.sql.markRetry, {
      id,
      error: JSON.stringify(error),
      provider,
      nextAttemptAt,
      now,
      refund: refundAttempt ? 1 : 0,
      owner: this.replicaId,
    });
  }

  async markFailed(id: string, error: ProviderError, provider: NotificationProvider, now: number): Promise<void> {
    await this.db.run(this.sql.markFailed, { id, error: JSON.stringify(error), provider, now, owner: this.replicaId });
  }

  async routeOf(channel: NotificationChannel, recipient: string): Promise<string | undefined> {
    let to: string | undefined;
    for (let at = recipient, hops = 0; hops < MAX_ROUTE_HOPS; hops++) {
      const next = (await this.db.one<{ routed_to: string }>(this.sql.routeOf, { channel, recipient: at }))?.routed_to;
      if (next === undefined || next === at) break;
      to = at = next;
    }
    return to;
  }

  async reroute(channel: NotificationChannel, recipient: string, routedTo: string, now: number): Promise<void> {
    await this.db.run(this.sql.reroute, { channel, recipient, routedTo, now });
  }

  async partsSent(deliveryId: string): Promise<SentPart[]> {
    const rows = await this.db.query<{ part: number; parts: number; address: string; provider_message_id: string | null }>(this.sql.partsOf, { deliveryId });
    return rows.map((r) => ({ part: r.part, parts: r.parts, address: r.address, providerMessageId: r.provider_message_id }));
  }

  async recordPart(deliveryId: string, sent: SentPart, now: number): Promise<void> {
    await this.db.run(this.sql.recordPart, { deliveryId, ...sent, now });
  }

  applyPlatformStatus(
    providerMessageId: string,
    callbackData: string | undefined,
    update: PlatformUpdate,
    now: number,
    channel: NotificationChannel = 'MESSENGER_APP',
  ): Promise<'applied' | 'unchanged' | 'unknown'> {
    return this.db.transaction(async (tx) => {
      let row = await tx.one<DeliveryRow>(this.sql.lockByProviderMessageId, { providerMessageId, channel });
      if (!row && callbackData) {
        const byId = await tx.one<DeliveryRow>(this.sql.lockById, { id: callbackData });
        if (byId?.channel === channel) row = byId;
      }
      if (!row) return 'unknown';
      const next = applyPlatformUpdate(
        { status: row.status, error: errorOf(row), sentAt: row.sent_at, deliveredAt: row.delivered_at, readAt: row.read_at },
        update,
      );
      if (!next) return 'unchanged';
      await tx.run(this.sql.updateTracking, {
        id: row.id,
        status: next.status,
        error: next.error === null ? null : JSON.stringify(next.error),
        sentAt: next.sentAt,
        deliveredAt: next.deliveredAt,
        readAt: next.readAt,
        now,
      });
      return 'applied';
    });
  }

  /** One statement: each user once, at their latest time, in wa_id order (two reports locking the same users never wait on each other in a circle). */
  async noteInbound(messages: { waId: string; at: number }[]): Promise<void> {
    const latest = new Map<string, number>();
    for (const m of messages) latest.set(m.waId, Math.max(m.at, latest.get(m.waId) ?? m.at));
    if (latest.size === 0) return;
    const rows = [...latest].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([waId, at]) => ({ wa_id: waId, last_inbound_at: at }));
    await this.db.insertMany('notification_messenger_sessions', ['wa_id', 'last_inbound_at'], rows, this.sql.inboundConflict);
  }

  async lastInboundAt(waId: string): Promise<number | undefined> {
    return (await this.db.one<{ last_inbound_at: number }>(this.sql.lastInbound, { waId }))?.last_inbound_at;
  }

  async closeSession(waId: string, at: number): Promise<void> {
    await this.db.run(this.sql.closeSession, { waId, at });
  }

  requeueAsTemplate(providerMessageId: string, callbackData: string | undefined, error: ProviderError, at: number, now: number): Promise<'queued' | 'refused'> {
    const s = this.sql;
    return this.db.transaction(async (tx) => {
      const row =
        (await tx.one<DeliveryRow>(s.lockByProviderMessageId, { providerMessageId, channel: 'MESSENGER_APP' })) ??
        (callbackData ? await tx.one<DeliveryRow>(s.lockById, { id: callbackData }) : undefined);
      if (row?.channel !== 'MESSENGER_APP' || row.status !== 'sent') return 'refused';
      if ((await tx.run(s.claimTemplateResend, { id: row.id, wamid: providerMessageId, at })).changes === 0) return 'refused';
      await tx.run(s.requeueAsTemplate, { id: row.id, error: JSON.stringify(error), now });
      return 'queued';
    });
  }

  async isReplacedText(wamid: string): Promise<boolean> {
    return (await this.db.one(this.sql.replacedText, { wamid })) !== undefined;
  }

  async get(id: string): Promise<DeliveryRecord | undefined> {
    const row = await this.db.one<DeliveryRow>(this.sql.byId, { id });
    return row ? toRecord(row) : undefined;
  }

  /** Equality on the filtered columns, then a range on (created_at, seq) after the cursor; one row past `limit` tells whether more follow. */
  async list(filters: ListFilters, limit: number, cursor: Cursor | undefined): Promise<DeliveryPage> {
    const params: Record<string, string | number> = { limit: limit + 1 };
    const where: string[] = [];
    for (const key of ['source', 'recipient', 'status', 'channel'] as const) {
      const value = filters[key];
      if (value === undefined) continue;
      params[key] = value;
      where.push(`${key} = @${key}`);
    }
    if (cursor) {
      params.cursorAt = cursor.createdAt;
      params.cursorSeq = cursor.seq;
      where.push('(created_at < @cursorAt OR (created_at = @cursorAt AND seq < @cursorSeq))');
    }
    const condition = where.length > 0 ? `WHERE ${where.join(' AND ')} ` : '';
    const rows = await this.db.query<DeliveryRow>(`SELECT * FROM notification_deliveries ${condition}ORDER BY created_at DESC, seq DESC LIMIT @limit`, params);
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return { items: page.map(toRecord), next: rows.length > limit && last ? { createdAt: last.created_at, seq: last.seq } : undefined };
  }

  async nextDueAt(): Promise<number | undefined> {
    return (await this.db.one<{ due: number | null }>(this.sql.nextDue))?.due ?? undefined;
  }

  async countByStatus(): Promise<Record<string, number>> {
    const rows = await this.db.query<{ status: DeliveryStatus; n: number }>(this.sql.countByStatus);
    return Object.fromEntries(rows.map((r) => [r.status, r.n]));
  }

  /** The engine's name while it answers (and, on SQLite, can write); else why not. */
  async health(): Promise<{ ok: boolean; detail: string }> {
    const health = await this.db.health();
    return health.ok ? { ok: true, detail: this.db.dialect.engine } : health;
  }

  close(): Promise<void> {
    return this.db.close();
  }
}

function errorOf(row: DeliveryRow): ProviderError | null {
  return row.error === null ? null : (JSON.parse(row.error) as ProviderError);
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

function toRecord(row: DeliveryRow): DeliveryRecord {
  const record: DeliveryRecord = {
    id: row.id,
    requestId: row.request_id,
    channel: row.channel,
    recipient: row.recipient,
    source: row.source,
    status: row.status,
    attempts: row.attempts,
    provider: row.provider,
    providerMessageId: row.provider_message_id,
    error: errorOf(row),
    subject: row.subject,
    createdAt: iso(row.created_at) as string,
    updatedAt: iso(row.updated_at) as string,
    nextAttemptAt: row.status === 'pending' ? iso(row.next_attempt_at) : null,
    sentAt: iso(row.sent_at),
    deliveredAt: iso(row.delivered_at),
    readAt: iso(row.read_at),
  };
  if (row.sandbox_request !== null) record.sandboxRequest = JSON.parse(row.sandbox_request);
  return record;
}
