import { openDatabase, StorageHealth, WatchedGroupCommit, type SqliteDatabase, type StorageHealthOptions } from '@fxdesk/core';
import type { DeliveryStatus, NotificationChannel, NotificationProvider, ProviderError } from '@fxdesk/schemas';
import { MemoryPacingBook } from './pacing.js';
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

const MIGRATIONS = [
  `
  CREATE TABLE requests (
    id TEXT PRIMARY KEY,
    source TEXT NOT NULL,
    idempotency_key TEXT,
    message TEXT NOT NULL,
    subject TEXT,
    content_type TEXT NOT NULL,
    channels TEXT NOT NULL,
    payload_hash TEXT NOT NULL,
    created_at INTEGER NOT NULL
  );
  -- The idempotency claim: one row per (source, key); NULL keys never collide.
  CREATE UNIQUE INDEX requests_idempotency ON requests(source, idempotency_key);

  CREATE TABLE deliveries (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    request_id TEXT NOT NULL REFERENCES requests(id),
    channel TEXT NOT NULL,
    recipient TEXT NOT NULL,
    source TEXT NOT NULL,
    subject TEXT,
    status TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    provider TEXT,
    provider_message_id TEXT,
    error TEXT,
    sandbox_request TEXT,
    next_attempt_at INTEGER,
    lease_until INTEGER,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    sent_at INTEGER,
    delivered_at INTEGER,
    read_at INTEGER
  );
  CREATE INDEX deliveries_request ON deliveries(request_id, seq);
  -- The outbox's queries name these partial indexes (INDEXED BY): the planner would rather take
  -- deliveries_status and sort every pending row.
  CREATE INDEX deliveries_due ON deliveries(next_attempt_at, seq) WHERE status = 'pending';
  CREATE INDEX deliveries_lease ON deliveries(lease_until) WHERE status = 'sending';
  CREATE INDEX deliveries_provider_message ON deliveries(provider_message_id) WHERE provider_message_id IS NOT NULL;
  CREATE INDEX deliveries_newest ON deliveries(created_at, seq);
  CREATE INDEX deliveries_source ON deliveries(source, created_at, seq);
  CREATE INDEX deliveries_recipient ON deliveries(recipient, created_at, seq);
  CREATE INDEX deliveries_status ON deliveries(status, created_at, seq);
  CREATE INDEX deliveries_channel ON deliveries(channel, created_at, seq);
  `,
  `
  -- Where a recipient's messages go now: a Telegram group upgraded to a supergroup has a new chat id.
  CREATE TABLE recipient_routes (
    channel TEXT NOT NULL,
    recipient TEXT NOT NULL,
    routed_to TEXT NOT NULL,
    changed_at INTEGER NOT NULL,
    PRIMARY KEY (channel, recipient)
  );
  -- The provider messages a delivery has sent so far (a long Telegram message goes in parts): a
  -- retry carries on after the last one recorded.
  CREATE TABLE delivery_parts (
    delivery_id TEXT NOT NULL REFERENCES deliveries(id),
    part INTEGER NOT NULL,
    parts INTEGER NOT NULL,
    address TEXT NOT NULL,
    provider_message_id TEXT,
    sent_at INTEGER NOT NULL,
    PRIMARY KEY (delivery_id, part)
  );
  `,
  `
  -- WhatsApp's customer service windows: when each user (by wa_id) last wrote to the business
  -- number. Free-form text reaches them for 24 hours after; the template any time.
  CREATE TABLE messenger_sessions (
    wa_id TEXT PRIMARY KEY,
    last_inbound_at INTEGER NOT NULL
  );
  -- MESSENGER_APP deliveries put back in the queue to go as the template after the platform
  -- failed their text with 131047 (at most once each), and that text's wamid: later reports about
  -- it are about a message the template replaced.
  CREATE TABLE messenger_template_resends (
    delivery_id TEXT PRIMARY KEY REFERENCES deliveries(id),
    text_wamid TEXT NOT NULL,
    failed_at INTEGER NOT NULL
  );
  CREATE INDEX messenger_template_resends_text ON messenger_template_resends(text_wamid);
  `,
  `
  -- The replica that claimed a delivery: only its owner records a retry or a failure on the claim.
  ALTER TABLE deliveries ADD COLUMN owner TEXT;
  `,
];

interface RequestRow extends RequestContent {
  id: string;
  source: string;
  idempotency_key: string | null;
  payload_hash: string;
}

interface PartRow {
  part: number;
  parts: number;
  address: string;
  provider_message_id: string | null;
}

/**
 * The notification store in SQLite (`DATA_DIR/notification.db`, WAL, synchronous=FULL), the
 * embedded default. Every write goes through the group committer: the writes of one event-loop
 * turn share one transaction and one fsync. Reads run at once on committed data. The pacing
 * calendars stay in this process's memory: one process sends for each account.
 */
export class SqliteNotificationStore implements NotificationStore {
  readonly db: SqliteDatabase;
  readonly pacing = new MemoryPacingBook();
  private readonly committer: WatchedGroupCommit;
  private readonly statements;
  /** One prepared statement per combination of list filters (at most 32). */
  private readonly listStatements = new Map<string, ReturnType<SqliteDatabase['prepare']>>();

  /** `health`: how readiness learns the file cannot write (its clock, in tests). */
  constructor(
    file: string,
    readonly replicaId: string,
    health: StorageHealthOptions = {},
  ) {
    this.db = openDatabase(file, { synchronous: 'FULL', migrations: MIGRATIONS });
    this.committer = new WatchedGroupCommit(this.db, new StorageHealth(this.db, health));
    const db = this.db;
    this.statements = {
      insertRequest: db.prepare(
        `INSERT INTO requests (id, source, idempotency_key, message, subject, content_type, channels, payload_hash, created_at)
         VALUES (@id, @source, @idempotencyKey, @message, @subject, @contentType, @channels, @payloadHash, @now)
         ON CONFLICT (source, idempotency_key) DO NOTHING`,
      ),
      requestByKey: db.prepare<[string, string], RequestRow>('SELECT * FROM requests WHERE source = ? AND idempotency_key = ?'),
      requestById: db.prepare<[string], RequestRow>('SELECT * FROM requests WHERE id = ?'),
      deliveryIdsOf: db.prepare<[string], { id: string }>('SELECT id FROM deliveries WHERE request_id = ? ORDER BY seq'),
      insertDelivery: db.prepare(
        `INSERT INTO deliveries (id, request_id, channel, recipient, source, subject, status, next_attempt_at, created_at, updated_at)
         VALUES (@id, @requestId, @channel, @recipient, @source, @subject, 'pending', @now, @now, @now)`,
      ),
      claim: db.prepare<{ now: number; limit: number; leaseUntil: number; owner: string }, DeliveryRow>(
        `UPDATE deliveries SET status = 'sending', attempts = attempts + 1, lease_until = @leaseUntil, owner = @owner, updated_at = @now
         WHERE seq IN (SELECT seq FROM deliveries INDEXED BY deliveries_due WHERE status = 'pending' AND next_attempt_at <= @now ORDER BY next_attempt_at, seq LIMIT @limit)
         RETURNING *`,
      ),
      failInDoubt: db.prepare<{ now: number; leaseBefore: number; error: string; atMostOnce: string; maxAttempts: number }, { id: string }>(
        `UPDATE deliveries INDEXED BY deliveries_lease SET status = 'failed', error = @error, lease_until = NULL, next_attempt_at = NULL, updated_at = @now
         WHERE status = 'sending' AND lease_until < @leaseBefore
           AND (channel IN (SELECT value FROM json_each(@atMostOnce)) OR attempts >= @maxAttempts)
         RETURNING id`,
      ),
      resendInDoubt: db.prepare<{ now: number; leaseBefore: number }, { id: string }>(
        `UPDATE deliveries INDEXED BY deliveries_lease SET status = 'pending', next_attempt_at = @now, lease_until = NULL, updated_at = @now
         WHERE status = 'sending' AND lease_until < @leaseBefore
         RETURNING id`,
      ),
      // @status is `sent`, or `queued` when the provider has only queued it (a status report that
      // got here first has already moved the record on, and is kept).
      markSent: db.prepare(
        `UPDATE deliveries SET
           status = CASE WHEN status IN ('pending', 'sending') OR (status = 'failed' AND json_extract(error, '$.code') = 'outcome_unknown') THEN @status ELSE status END,
           error = CASE WHEN status IN ('pending', 'sending') OR (status = 'failed' AND json_extract(error, '$.code') = 'outcome_unknown') THEN NULL ELSE error END,
           provider = @provider, provider_message_id = @providerMessageId, sandbox_request = @sandboxRequest,
           sent_at = CASE WHEN @status = 'sent' THEN COALESCE(sent_at, @now) ELSE sent_at END, lease_until = NULL, next_attempt_at = NULL, updated_at = @now
         WHERE id = @id`,
      ),
      markRetry: db.prepare(
        `UPDATE deliveries SET status = 'pending', error = @error, provider = @provider, next_attempt_at = @nextAttemptAt, lease_until = NULL,
           attempts = attempts - @refund, updated_at = @now
         WHERE id = @id AND status = 'sending' AND owner = @owner`,
      ),
      routeOf: db.prepare<[string, string], { routed_to: string }>('SELECT routed_to FROM recipient_routes WHERE channel = ? AND recipient = ?'),
      route: db.prepare(
        `INSERT INTO recipient_routes (channel, recipient, routed_to, changed_at) VALUES (@channel, @recipient, @routedTo, @now)
         ON CONFLICT (channel, recipient) DO UPDATE SET routed_to = excluded.routed_to, changed_at = excluded.changed_at`,
      ),
      partsOf: db.prepare<[string], PartRow>('SELECT part, parts, address, provider_message_id FROM delivery_parts WHERE delivery_id = ? ORDER BY part'),
      recordPart: db.prepare(
        `INSERT INTO delivery_parts (delivery_id, part, parts, address, provider_message_id, sent_at)
         VALUES (@deliveryId, @part, @parts, @address, @providerMessageId, @now)
         ON CONFLICT (delivery_id, part) DO NOTHING`,
      ),
      markFailed: db.prepare(
        `UPDATE deliveries SET status = 'failed', error = @error, provider = @provider, next_attempt_at = NULL, lease_until = NULL, updated_at = @now
         WHERE id = @id AND status IN ('pending', 'sending') AND owner = @owner`,
      ),
      byId: db.prepare<[string], DeliveryRow>('SELECT * FROM deliveries WHERE id = ?'),
      byProviderMessageId: db.prepare<[string, NotificationChannel], DeliveryRow>(
        `SELECT * FROM deliveries WHERE provider_message_id = ? AND channel = ? ORDER BY seq LIMIT 1`,
      ),
      updateTracking: db.prepare(
        `UPDATE deliveries SET status = @status, error = @error, sent_at = @sentAt, delivered_at = @deliveredAt, read_at = @readAt,
           next_attempt_at = CASE WHEN @status = 'pending' THEN next_attempt_at ELSE NULL END,
           lease_until = CASE WHEN @status = 'sending' THEN lease_until ELSE NULL END, updated_at = @now
         WHERE id = @id`,
      ),
      nextDue: db.prepare<[], { due: number | null }>(`SELECT MIN(next_attempt_at) AS due FROM deliveries INDEXED BY deliveries_due WHERE status = 'pending'`),
      countByStatus: db.prepare<[], { status: DeliveryStatus; n: number }>('SELECT status, COUNT(*) AS n FROM deliveries GROUP BY status'),
      noteInbound: db.prepare(
        `INSERT INTO messenger_sessions (wa_id, last_inbound_at) VALUES (@waId, @at)
         ON CONFLICT (wa_id) DO UPDATE SET last_inbound_at = MAX(last_inbound_at, excluded.last_inbound_at)`,
      ),
      lastInbound: db.prepare<[string], { last_inbound_at: number }>('SELECT last_inbound_at FROM messenger_sessions WHERE wa_id = ?'),
      closeSession: db.prepare('DELETE FROM messenger_sessions WHERE wa_id = @waId AND last_inbound_at <= @at'),
      claimTemplateResend: db.prepare(
        'INSERT INTO messenger_template_resends (delivery_id, text_wamid, failed_at) VALUES (@id, @wamid, @at) ON CONFLICT DO NOTHING',
      ),
      replacedText: db.prepare<[string], { delivery_id: string }>('SELECT delivery_id FROM messenger_template_resends WHERE text_wamid = ?'),
      // The text's attempt is given back: the template takes its place.
      requeueAsTemplate: db.prepare(
        `UPDATE deliveries SET status = 'pending', error = @error, next_attempt_at = @now, attempts = MAX(attempts - 1, 0), sent_at = NULL,
           lease_until = NULL, updated_at = @now
         WHERE id = @id AND status = 'sent'`,
      ),
    };
  }

  create(n: NewNotification): Promise<CreatedNotification> {
    const s = this.statements;
    return this.committer.run(() => {
      const inserted = s.insertRequest.run({
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
        const original = s.requestByKey.get(n.source, n.idempotencyKey as string) as RequestRow;
        return {
          replayed: true,
          requestId: original.id,
          deliveryIds: s.deliveryIdsOf.all(original.id).map((r) => r.id),
          samePayload: original.payload_hash === n.payloadHash,
        };
      }
      for (const d of n.deliveries) {
        s.insertDelivery.run({
          id: d.id,
          requestId: n.requestId,
          channel: d.channel,
          recipient: d.recipient,
          source: n.source,
          subject: n.subject ?? null,
          now: n.now,
        });
      }
      return { replayed: false, requestId: n.requestId, deliveryIds: n.deliveries.map((d) => d.id), samePayload: true };
    });
  }

  /** The UPDATE both checks and changes the status under SQLite's write lock: one worker gets each row. */
  claimDue(now: number, limit: number, leaseUntil: number): Promise<ClaimedDelivery[]> {
    const s = this.statements;
    return this.committer.run(() => {
      const rows = s.claim.all({ now, limit, leaseUntil, owner: this.replicaId });
      const requests = new Map<string, RequestRow>();
      return rows
        .sort((a, b) => a.seq - b.seq)
        .map((row) => {
          let request = requests.get(row.request_id);
          if (!request) {
            request = s.requestById.get(row.request_id);
            // The foreign key keeps every delivery's request; a miss is a broken database.
            if (!request) throw new Error(`delivery ${row.id} names request ${row.request_id}, which is not stored`);
            requests.set(row.request_id, request);
          }
          return claimedOf(row, request);
        });
    });
  }

  recoverInDoubt(now: number, atMostOnce: NotificationChannel[], maxAttempts: number, atStart = false): Promise<Recovered> {
    const s = this.statements;
    // At start every claim in the file is a dead process's: this one holds the DATA_DIR lock.
    const leaseBefore = atStart ? Number.MAX_SAFE_INTEGER : now;
    return this.committer.run(() => ({
      failed: s.failInDoubt.all({ now, leaseBefore, error: IN_DOUBT_ERROR, atMostOnce: JSON.stringify(atMostOnce), maxAttempts }).map((r) => r.id),
      resent: s.resendInDoubt.all({ now, leaseBefore }).map((r) => r.id),
    }));
  }

  markSent(id: string, result: SentResult, now: number): Promise<void> {
    return this.committer.run(() => {
      this.statements.markSent.run(sentColumns(id, result, now));
    });
  }

  markRetry(id: string, error: ProviderError, provider: NotificationProvider, nextAttemptAt: number, now: number, refundAttempt = false): Promise<void> {
    return this.committer.run(() => {
      this.statements.markRetry.run({ id, error: JSON.stringify(error), provider, nextAttemptAt, now, refund: refundAttempt ? 1 : 0, owner: this.replicaId });
    });
  }

  markFailed(id: string, error: ProviderError, provider: NotificationProvider, now: number): Promise<void> {
    return this.committer.run(() => {
      this.statements.markFailed.run({ id, error: JSON.stringify(error), provider, now, owner: this.replicaId });
    });
  }

  routeOf(channel: NotificationChannel, recipient: string): Promise<string | undefined> {
    return followRoutes(recipient, async (at) => this.statements.routeOf.get(channel, at)?.routed_to);
  }

  reroute(channel: NotificationChannel, recipient: string, routedTo: string, now: number): Promise<void> {
    return this.committer.run(() => {
      this.statements.route.run({ channel, recipient, routedTo, now });
    });
  }

  async partsSent(deliveryId: string): Promise<SentPart[]> {
    return this.statements.partsOf.all(deliveryId).map((r) => ({ part: r.part, parts: r.parts, address: r.address, providerMessageId: r.provider_message_id }));
  }

  recordPart(deliveryId: string, sent: SentPart, now: number): Promise<void> {
    return this.committer.run(() => {
      this.statements.recordPart.run({ deliveryId, ...sent, now });
    });
  }

  applyPlatformStatus(
    providerMessageId: string,
    callbackData: string | undefined,
    update: PlatformUpdate,
    now: number,
    channel: NotificationChannel = 'MESSENGER_APP',
  ): Promise<'applied' | 'unchanged' | 'unknown'> {
    const s = this.statements;
    return this.committer.run(() => {
      let row = s.byProviderMessageId.get(providerMessageId, channel);
      if (!row && callbackData) {
        const byId = s.byId.get(callbackData);
        if (byId?.channel === channel) row = byId;
      }
      if (!row) return 'unknown';
      const columns = trackingColumns(row, update, now);
      if (!columns) return 'unchanged';
      s.updateTracking.run(columns);
      return 'applied';
    });
  }

  noteInbound(messages: { waId: string; at: number }[]): Promise<void> {
    return this.committer.run(() => {
      for (const m of messages) this.statements.noteInbound.run(m);
    });
  }

  async lastInboundAt(waId: string): Promise<number | undefined> {
    return this.statements.lastInbound.get(waId)?.last_inbound_at;
  }

  closeSession(waId: string, at: number): Promise<void> {
    return this.committer.run(() => {
      this.statements.closeSession.run({ waId, at });
    });
  }

  requeueAsTemplate(providerMessageId: string, callbackData: string | undefined, error: ProviderError, at: number, now: number): Promise<'queued' | 'refused'> {
    const s = this.statements;
    return this.committer.run(() => {
      const row = s.byProviderMessageId.get(providerMessageId, 'MESSENGER_APP') ?? (callbackData ? s.byId.get(callbackData) : undefined);
      if (row?.channel !== 'MESSENGER_APP' || row.status !== 'sent') return 'refused';
      if (s.claimTemplateResend.run({ id: row.id, wamid: providerMessageId, at }).changes === 0) return 'refused';
      s.requeueAsTemplate.run({ id: row.id, error: JSON.stringify(error), now });
      return 'queued';
    });
  }

  async isReplacedText(wamid: string): Promise<boolean> {
    return this.statements.replacedText.get(wamid) !== undefined;
  }

  async get(id: string) {
    const row = this.statements.byId.get(id);
    return row ? toRecord(row) : undefined;
  }

  async list(filters: ListFilters, limit: number, cursor: Cursor | undefined): Promise<DeliveryPage> {
    const params: Record<string, string | number> = { limit: limit + 1 };
    const where = listConditions(filters, cursor, (name, value) => {
      params[name] = value;
      return `@${name}`;
    });
    const sql = `SELECT * FROM deliveries ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at DESC, seq DESC LIMIT @limit`;
    let statement = this.listStatements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.listStatements.set(sql, statement);
    }
    return pageOf(statement.all(params) as DeliveryRow[], limit);
  }

  async nextDueAt(): Promise<number | undefined> {
    return this.statements.nextDue.get()?.due ?? undefined;
  }

  async countByStatus(): Promise<Record<string, number>> {
    return Object.fromEntries(this.statements.countByStatus.all().map((r) => [r.status, r.n]));
  }

  commitStats(): { commits: number; operations: number } {
    return { commits: this.committer.stats.commits, operations: this.committer.stats.operations };
  }

  /** Not ok when the file does not answer, or once a write failed for want of storage (see StorageHealth). */
  async health(): Promise<{ ok: boolean; detail: string }> {
    try {
      this.db.prepare('SELECT 1').get();
      const writable = this.committer.health.check();
      return writable.ok ? { ok: true, detail: 'SQLite' } : writable;
    } catch (err) {
      return { ok: false, detail: `SQLite does not answer: ${err instanceof Error ? err.message : String(err)}` };
    }
  }

  async close(): Promise<void> {
    if (!this.db.open) return;
    void this.committer.close();
    this.db.close();
  }
}
