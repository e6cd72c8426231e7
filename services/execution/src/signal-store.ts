import type { Database, GroupCommitStats } from '@fxdesk/core';
import type { BrokerTickets, Reconciliation, SignalFailure, SignalRecord, SignalState, TradeOutcome } from '@fxdesk/schemas';
import { DatabaseActionStore } from './action-store.js';
import { NO_TICKETS } from './outcome.js';
import type {
  AbandonedAnswer,
  ClaimResult,
  ExistingSignal,
  InterruptedSignal,
  SignalClaim,
  SignalFilter,
  SignalOutcome,
  SignalPage,
  SignalStore,
} from './store.js';

/**
 * The columns a record is read from, named rather than `*`: the owner and lease a row also holds
 * would be two more properties on every row read (a page of 50 read about 20 % slower with them).
 */
const RECORD_COLUMNS =
  'signal_id, payload_hash, state, request_json, request_id, order_comment, http_status, response_body, order_ticket, deal_ticket, position_ticket, result_json, error_json, reconciliation_json, received_at, completed_at, updated_at';

/** One INSERT keyed by signal_id: the unique key lets exactly one of any number of concurrent claims through, on any replica. */
const CLAIM = `INSERT INTO signals (signal_id, payload_hash, state, request_json, request_id, order_comment, symbol, source, received_at, updated_at, owner, lease_expires_at)
  VALUES (@signalId, @payloadHash, 'processing', @requestJson, @requestId, @orderComment, @symbol, @source, @receivedAt, @receivedAt, @owner, @leaseExpiresAt)
  ON CONFLICT (signal_id) DO NOTHING`;
const EXISTING = 'SELECT payload_hash, state, http_status, response_body FROM signals WHERE signal_id = @signalId';
const COMPLETE = `UPDATE signals SET state = @state, http_status = @httpStatus, response_body = @responseBody,
    order_ticket = @order, deal_ticket = @deal, position_ticket = @position,
    result_json = @resultJson, error_json = @errorJson, completed_at = @completedAt, updated_at = @completedAt
  WHERE signal_id = @signalId AND state = 'processing'`;
const RELEASE = "DELETE FROM signals WHERE signal_id = @signalId AND state = 'processing' AND owner = @owner";
const FIND = `SELECT ${RECORD_COLUMNS} FROM signals WHERE signal_id = @signalId`;
const ABANDONED = `SELECT signal_id, request_id, order_comment FROM signals
  WHERE state = 'processing' AND ((owner = @owner AND @includeOwn = 1) OR (owner <> @owner AND lease_expires_at <= @at))`;
const LATE_RESULT = `UPDATE signals SET order_ticket = @order, deal_ticket = @deal, position_ticket = @position, result_json = @resultJson, updated_at = @at
  WHERE signal_id = @signalId AND state = 'unknown' AND result_json IS NULL`;
const RECONCILIATION = "UPDATE signals SET reconciliation_json = @json, updated_at = @at WHERE signal_id = @signalId AND state = 'unknown'";

/** A claim lost and then found gone (released in between) is tried again, this many times at most. */
const CLAIM_ATTEMPTS = 5;

/** A row of `signals`, as both engines return it (a type, not an interface: a row is a Row, indexed by column name). */
type SignalRow = {
  signal_id: string;
  payload_hash: string;
  state: SignalState;
  request_json: string;
  request_id: string;
  order_comment: string;
  http_status: number | null;
  response_body: string | null;
  order_ticket: string | null;
  deal_ticket: string | null;
  position_ticket: string | null;
  result_json: string | null;
  error_json: string | null;
  reconciliation_json: string | null;
  received_at: string;
  completed_at: string | null;
  updated_at: string;
};

type ExistingRow = Pick<SignalRow, 'payload_hash' | 'state' | 'http_status' | 'response_body'>;
type AbandonedRow = Pick<SignalRow, 'signal_id' | 'request_id' | 'order_comment'>;

/**
 * The signals in the database the port opened: SQLite (`execution.db`, the embedded default, one
 * process on the file) or PostgreSQL (DATABASE_URL, several replicas on one database). Each write
 * is one statement, atomic and durable when it settles (SQLite: group-committed with the other
 * writes of its event-loop turn; PostgreSQL: its own transaction, the server grouping concurrent
 * commits' WAL flushes), except the recovery of abandoned claims, one transaction.
 */
export class DatabaseSignalStore implements SignalStore {
  /**
   * Whether the store can write, known without a round trip: the SQLite file's StorageHealth,
   * which learns it from failed writes. PostgreSQL's is only known by asking (`health()`), too
   * dear before every claim, so it is absent there. The port has no call for it yet.
   */
  readonly writable: (() => { ok: boolean; detail: string }) | undefined;
  readonly actions: DatabaseActionStore;
  /** The claim of abandoned rows: SKIP LOCKED where replicas share the rows, so a row another replica is completing or recovering right now is not taken. */
  private readonly abandoned: string;

  constructor(
    private readonly db: Database,
    readonly replicaId: string,
  ) {
    this.writable = db.writable?.bind(db);
    this.actions = new DatabaseActionStore(db, replicaId);
    this.abandoned = `${ABANDONED} ${db.dialect.skipLocked}`;
  }

  get commitStats(): GroupCommitStats | undefined {
    return this.db.commitStats;
  }

  async claim(claim: SignalClaim): Promise<ClaimResult> {
    const columns = claimColumns(claim, this.replicaId);
    for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt++) {
      if ((await this.db.run(CLAIM, columns)).changes === 1) return { claimed: true };
      // Read in a statement of its own, once the insert lost: on PostgreSQL the insert's snapshot
      // may predate the row it conflicted with.
      const existing = await this.existing(claim.signalId);
      if (existing) return { claimed: false, existing };
    }
    throw new Error(`signal ${claim.signalId} neither inserted nor found after ${CLAIM_ATTEMPTS} attempts`);
  }

  async existing(signalId: string): Promise<ExistingSignal | undefined> {
    const row = await this.db.one<ExistingRow>(EXISTING, { signalId });
    return row ? existingOf(row) : undefined;
  }

  async complete(signalId: string, outcome: SignalOutcome): Promise<void> {
    if ((await this.db.run(COMPLETE, outcomeColumns(signalId, outcome))).changes !== 1) throw new Error(`signal ${signalId} was not processing`);
  }

  async release(signalId: string): Promise<void> {
    await this.db.run(RELEASE, { signalId, owner: this.replicaId });
  }

  async find(signalId: string): Promise<SignalRecord | undefined> {
    const row = await this.db.one<SignalRow>(FIND, { signalId });
    return row ? recordOf(row) : undefined;
  }

  async list(filter: SignalFilter, limit: number): Promise<SignalPage> {
    const { sql, params } = listQuery(filter, limit);
    return pageOf(await this.db.query<SignalRow>(sql, params), limit);
  }

  failAbandoned(at: string, answer: AbandonedAnswer, { includeOwn }: { includeOwn: boolean }): Promise<InterruptedSignal[]> {
    return this.db.transaction(async (tx) => {
      const signals = (await tx.query<AbandonedRow>(this.abandoned, { owner: this.replicaId, at, includeOwn })).map(interruptedOf);
      for (const signal of signals) await tx.run(COMPLETE, outcomeColumns(signal.signalId, abandonedOutcome(signal, answer, at)));
      return signals;
    });
  }

  async recordLateResult(signalId: string, tickets: BrokerTickets, result: TradeOutcome, at: string): Promise<void> {
    await this.db.run(LATE_RESULT, { signalId, order: tickets.order, deal: tickets.deal, position: tickets.position, resultJson: JSON.stringify(result), at });
  }

  async recordReconciliation(signalId: string, reconciliation: Reconciliation): Promise<void> {
    await this.db.run(RECONCILIATION, { signalId, json: JSON.stringify(reconciliation), at: reconciliation.checked_at });
  }

  /** SQLite: not ok once a write failed for want of storage, until a probe write commits (see StorageHealth); PostgreSQL: whether it answers `SELECT 1`. */
  health(): Promise<{ ok: boolean; detail: string }> {
    return this.db.health();
  }

  close(): Promise<void> {
    return this.db.close();
  }
}

/**
 * The SELECT of one page, newest first; one row past `limit` tells whether more follow. Equality
 * on the filtered columns, then a range on (received_at, signal_id), which one index per filter
 * serves in order (keyset paging: the cost of a page does not grow with its depth, unlike OFFSET).
 * The text depends only on which filters are given, so each combination is prepared once.
 */
export function listQuery(filter: SignalFilter, limit: number): { sql: string; params: Record<string, string | number> } {
  const params: Record<string, string | number> = { limit: limit + 1 };
  const where: string[] = [];
  for (const column of ['state', 'symbol', 'source'] as const) {
    const value = filter[column];
    if (value === undefined) continue;
    params[column] = value;
    where.push(`${column} = @${column}`);
  }
  if (filter.receivedFrom !== undefined) {
    params.receivedFrom = filter.receivedFrom;
    where.push('received_at >= @receivedFrom');
  }
  if (filter.receivedBefore !== undefined) {
    params.receivedBefore = filter.receivedBefore;
    where.push('received_at < @receivedBefore');
  }
  if (filter.after !== undefined) {
    params.afterReceivedAt = filter.after.receivedAt;
    params.afterSignalId = filter.after.signalId;
    where.push('(received_at, signal_id) < (@afterReceivedAt, @afterSignalId)');
  }
  const condition = where.length > 0 ? `WHERE ${where.join(' AND ')} ` : '';
  return { sql: `SELECT ${RECORD_COLUMNS} FROM signals ${condition}ORDER BY received_at DESC, signal_id DESC LIMIT @limit`, params };
}

function existingOf(row: ExistingRow): ExistingSignal {
  return { payloadHash: row.payload_hash, state: row.state, httpStatus: row.http_status, responseBody: row.response_body };
}

function interruptedOf(row: AbandonedRow): InterruptedSignal {
  return { signalId: row.signal_id, requestId: row.request_id, orderComment: row.order_comment };
}

/** What an abandoned claim is completed with: `unknown`, no tickets, and the answer given for it. */
function abandonedOutcome(signal: InterruptedSignal, answer: AbandonedAnswer, at: string): SignalOutcome {
  const { httpStatus, responseBody, error } = answer(signal);
  return { state: 'unknown', httpStatus, responseBody, error, tickets: NO_TICKETS, result: null, completedAt: at };
}

function parseJson<T>(text: string | null): T | null {
  return text === null ? null : (JSON.parse(text) as T);
}

function recordOf(row: SignalRow): SignalRecord {
  return {
    signal_id: row.signal_id,
    state: row.state,
    request: JSON.parse(row.request_json) as Record<string, unknown>,
    order_comment: row.order_comment,
    tickets: { order: row.order_ticket, deal: row.deal_ticket, position: row.position_ticket },
    result: parseJson<TradeOutcome>(row.result_json),
    error: parseJson<SignalFailure>(row.error_json),
    http_status: row.http_status,
    reconciliation: parseJson<Reconciliation>(row.reconciliation_json),
    received_at: row.received_at,
    completed_at: row.completed_at,
    updated_at: row.updated_at,
  };
}

/** A page of `limit` rows from a query that read one more: the extra row tells that more follow. */
function pageOf(rows: SignalRow[], limit: number): SignalPage {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return { records: page.map(recordOf), next: rows.length > limit && last ? { receivedAt: last.received_at, signalId: last.signal_id } : undefined };
}

/**
 * The parameters of a claim's insert. One literal naming every field: on Node 20, a spread
 * followed by a new key gives each object a hidden class of its own (see c53262b).
 */
function claimColumns(claim: SignalClaim, owner: string) {
  return {
    signalId: claim.signalId,
    payloadHash: claim.payloadHash,
    requestJson: claim.requestJson,
    requestId: claim.requestId,
    orderComment: claim.orderComment,
    symbol: claim.symbol,
    source: claim.source,
    receivedAt: claim.receivedAt,
    owner,
    leaseExpiresAt: claim.leaseExpiresAt,
  };
}

/** The parameters of an outcome's update, JSON encoded where the row keeps JSON (one literal, as above). */
function outcomeColumns(signalId: string, outcome: SignalOutcome) {
  return {
    signalId,
    state: outcome.state,
    httpStatus: outcome.httpStatus,
    responseBody: outcome.responseBody,
    order: outcome.tickets.order,
    deal: outcome.tickets.deal,
    position: outcome.tickets.position,
    resultJson: outcome.result === null ? null : JSON.stringify(outcome.result),
    errorJson: outcome.error === null ? null : JSON.stringify(outcome.error),
    completedAt: outcome.completedAt,
  };
}
