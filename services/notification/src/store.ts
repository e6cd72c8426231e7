import type { DeliveryRecord, DeliveryStatus, NotificationChannel, NotificationContentType, NotificationProvider, ProviderError } from '@fxdesk/schemas';
import type { PacingBook } from './pacing.js';
import type { PlatformUpdate } from './status.js';

export interface NewNotification {
  requestId: string;
  source: string;
  idempotencyKey: string | undefined;
  message: string;
  subject: string | undefined;
  contentType: NotificationContentType;
  channels: NotificationChannel[];
  payloadHash: string;
  deliveries: { id: string; channel: NotificationChannel; recipient: string }[];
  now: number;
}

export interface CreatedNotification {
  replayed: boolean;
  requestId: string;
  deliveryIds: string[];
  /** On a replay: whether the repeated request carried the same payload as the original. */
  samePayload: boolean;
}

/** A delivery claimed for sending, with the request content it carries. */
export interface ClaimedDelivery {
  id: string;
  requestId: string;
  channel: NotificationChannel;
  recipient: string;
  attempts: number;
  message: string;
  subject: string | null;
  contentType: NotificationContentType;
}

/** One provider message of a delivery: part `part` (from 0) of `parts`, sent to `address`. */
export interface SentPart {
  part: number;
  parts: number;
  address: string;
  providerMessageId: string | null;
}

/** What a transport reported when the provider took a delivery. */
export interface SentResult {
  provider: NotificationProvider;
  providerMessageId: string | null;
  sandboxRequest?: unknown;
  /** Taken into the provider's own send queue, not sent yet (Twilio's 201): recorded `queued`. */
  queued?: boolean;
}

export interface ListFilters {
  source?: string;
  recipient?: string;
  status?: DeliveryStatus;
  channel?: NotificationChannel;
}

export interface Cursor {
  createdAt: number;
  seq: number;
}

/** One page of the list, newest first, and where the next one starts when more follow. */
export interface DeliveryPage {
  items: DeliveryRecord[];
  next: Cursor | undefined;
}

/** What the outbox's lease recovery did: deliveries failed as `outcome_unknown`, and deliveries to be sent again. */
export interface Recovered {
  failed: string[];
  resent: string[];
}

/**
 * The notification service's repository: requests, their deliveries (the outbox), what the
 * channels keep (moved chats, parts of split messages, WhatsApp windows and template resends, the
 * pacing calendars), and the queries the routes and the outbox make.
 *
 * One implementation over the database port (database-store.ts), on either engine, keeps the
 * contract (test/notification-store.contract.ts, run on both): SQLite, the embedded default, one
 * file, writes grouped into one commit per event-loop turn; and PostgreSQL, for several replicas
 * on one database, where everything the replicas coordinate on lives in the database: the
 * idempotency claim, the outbox's leases (claimed with FOR UPDATE SKIP LOCKED), the webhooks'
 * status moves and the pacing calendars. Times are epoch ms from the caller's clock on both.
 *
 * The store is opened as one replica (`replicaId`): the deliveries it claims are its own until
 * their lease ends, and only the owner of a claim records a retry or a failure on it.
 */
export interface NotificationStore {
  /** This replica's name on the deliveries it claims. */
  readonly replicaId: string;
  /** Where the Telegram and WhatsApp pacers keep their calendars. */
  readonly pacing: PacingBook;
  /**
   * Stores a request and its deliveries in one transaction, or, when (source, idempotencyKey)
   * is already claimed, returns the original. The unique index decides, inside the transaction:
   * concurrent twins, on any replica, can never both insert.
   */
  create(n: NewNotification): Promise<CreatedNotification>;
  /**
   * Claims up to `limit` due deliveries in one statement: status `sending`, one more attempt,
   * this replica as owner, a lease until `leaseUntil`. A delivery is claimed by exactly one
   * worker, whatever the number of workers, processes or replicas.
   */
  claimDue(now: number, limit: number, leaseUntil: number): Promise<ClaimedDelivery[]>;
  /**
   * Deliveries left `sending` past their lease (their worker died mid-call, on any replica): the
   * outcome is unknown. At-most-once channels, and deliveries out of attempts, fail with
   * `outcome_unknown`; the others go back to `pending` to be sent again.
   *
   * `atStart`, before this process has claimed anything: also, whatever their lease, the claims
   * no running worker can hold: in PostgreSQL those under this replica's own name (an earlier
   * process of it died with them), in SQLite every one (one process holds the file, by the
   * DATA_DIR lock). So a restarted replica takes its own in-flight deliveries back at once instead
   * of after their lease.
   */
  recoverInDoubt(now: number, atMostOnce: NotificationChannel[], maxAttempts: number, atStart?: boolean): Promise<Recovered>;
  /** The provider took it: `sent` (or `queued`), whoever holds the claim now; a status report that came first is kept. */
  markSent(id: string, result: SentResult, now: number): Promise<void>;
  /**
   * Back to `pending` until `nextAttemptAt`, if this replica's claim still holds it; `refundAttempt`:
   * the attempt did not count (a pacing hold).
   */
  markRetry(id: string, error: ProviderError, provider: NotificationProvider, nextAttemptAt: number, now: number, refundAttempt?: boolean): Promise<void>;
  /** `failed` with the provider's error, if this replica's claim still holds it. */
  markFailed(id: string, error: ProviderError, provider: NotificationProvider, now: number): Promise<void>;
  /** Where a channel's recipient is sent now, following every recorded move (undefined: where it says). */
  routeOf(channel: NotificationChannel, recipient: string): Promise<string | undefined>;
  /** Records that `recipient`'s messages go to `routedTo` from now on. */
  reroute(channel: NotificationChannel, recipient: string, routedTo: string, now: number): Promise<void>;
  /** The parts of a split message a delivery has sent, in order. */
  partsSent(deliveryId: string): Promise<SentPart[]>;
  /** Records one part the provider accepted, so that a retry does not send it again. */
  recordPart(deliveryId: string, sent: SentPart, now: number): Promise<void>;
  /**
   * Applies a platform status report to the delivery of `channel` it names: by the provider's
   * message id, else by our delivery id echoed back (WhatsApp's `biz_opaque_callback_data`, the
   * query of Twilio's StatusCallback). Read and written as one step: reports racing on two
   * replicas never undo each other.
   */
  applyPlatformStatus(
    providerMessageId: string,
    callbackData: string | undefined,
    update: PlatformUpdate,
    now: number,
    channel?: NotificationChannel,
  ): Promise<'applied' | 'unchanged' | 'unknown'>;
  /** WhatsApp users wrote to the business number at these times (epoch ms): their windows open or move on. */
  noteInbound(messages: { waId: string; at: number }[]): Promise<void>;
  /** When `waId` last wrote to the business number (epoch ms), if it ever did. */
  lastInboundAt(waId: string): Promise<number | undefined>;
  /** `waId`'s window is closed at `at` (the platform answered 131047): what it wrote before then no longer counts. */
  closeSession(waId: string, at: number): Promise<void>;
  /**
   * After the platform failed a MESSENGER_APP text with 131047: puts the delivery it names (by
   * wamid, else by the delivery id echoed back) back in the queue, due now, with the 131047 as its
   * last error and the attempt given back. Once per delivery, and only from `sent`: otherwise
   * (`refused`) the failure is applied as any other.
   */
  requeueAsTemplate(providerMessageId: string, callbackData: string | undefined, error: ProviderError, at: number, now: number): Promise<'queued' | 'refused'>;
  /** Whether `wamid` is a text that a template replaced (requeueAsTemplate): its reports no longer apply. */
  isReplacedText(wamid: string): Promise<boolean>;
  get(id: string): Promise<DeliveryRecord | undefined>;
  /** Newest first; `cursor` continues after the last row of the previous page. */
  list(filters: ListFilters, limit: number, cursor: Cursor | undefined): Promise<DeliveryPage>;
  /** When the earliest pending delivery falls due (epoch ms), if any. */
  nextDueAt(): Promise<number | undefined>;
  countByStatus(): Promise<Record<string, number>>;
  /** Whether the database answers now, for /health/ready. */
  health(): Promise<{ ok: boolean; detail: string }>;
  /** Writes what is queued and lets the database go. */
  close(): Promise<void>;
}

/** Opaque to clients: base64url of the position of the last row of a page. */
export function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify([cursor.createdAt, cursor.seq])).toString('base64url');
}

export function decodeCursor(text: string): Cursor | undefined {
  try {
    const value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(value) && value.length === 2 && value.every((n) => Number.isSafeInteger(n) && n >= 0)) {
      return { createdAt: value[0] as number, seq: value[1] as number };
    }
  } catch {
    // falls through
  }
  return undefined;
}
