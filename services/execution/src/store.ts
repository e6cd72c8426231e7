import type { GroupCommitStats } from '@fxdesk/core';
import type { BrokerTickets, Reconciliation, SignalFailure, SignalRecord, SignalState, TradeOutcome } from '@fxdesk/schemas';
import { NO_TICKETS } from './outcome.js';

/** A signal about to be claimed. */
export interface SignalClaim {
  signalId: string;
  payloadHash: string;
  /** The body as received, JSON. */
  requestJson: string;
  requestId: string;
  orderComment: string;
  symbol: string;
  source: string;
  receivedAt: string;
  /**
   * Until when the claiming replica answers for the signal (ISO text): past it, a claim still
   * `processing` is abandoned and any replica may mark it `unknown`.
   */
  leaseExpiresAt: string;
}

/** What an earlier claim of the same signal_id left. */
export interface ExistingSignal {
  payloadHash: string;
  state: SignalState;
  httpStatus: number | null;
  responseBody: string | null;
}

/** Where a page of the list ends: its last row, in (received_at, signal_id) order. */
export interface ListPosition {
  receivedAt: string;
  signalId: string;
}

/** The rows GET /v1/signals selects: each filter given must hold. */
export interface SignalFilter {
  state?: SignalState;
  symbol?: string;
  source?: string;
  /** received_at at or after this (ISO text, as stored). */
  receivedFrom?: string;
  /** received_at before this (ISO text, as stored). */
  receivedBefore?: string;
  /** Only rows older than this position: the page after the one that ended there. */
  after?: ListPosition;
}

/** One page of the list, newest received first, and where the next one starts when more follow. */
export interface SignalPage {
  records: SignalRecord[];
  next: ListPosition | undefined;
}

export type ClaimResult = { claimed: true } | { claimed: false; existing: ExistingSignal };

/** The final state of a signal and the exact answer to replay. */
export interface SignalOutcome {
  state: Exclude<SignalState, 'processing'>;
  httpStatus: number;
  responseBody: string;
  tickets: BrokerTickets;
  result: TradeOutcome | null;
  error: SignalFailure | null;
  completedAt: string;
}

/** A claim left `processing` by a replica that stopped: the answer it gets is built by the caller. */
export interface InterruptedSignal {
  signalId: string;
  requestId: string;
  orderComment: string;
}

/** The stored answer of an abandoned claim. */
export type AbandonedAnswer = (signal: InterruptedSignal) => { httpStatus: number; responseBody: string; error: SignalFailure };

/** The columns that name an abandoned claim. */
export type AbandonedRow = Pick<SignalRow, 'signal_id' | 'request_id' | 'order_comment'>;

export function interruptedOf(row: AbandonedRow): InterruptedSignal {
  return { signalId: row.signal_id, requestId: row.request_id, orderComment: row.order_comment };
}

/** What an abandoned claim is completed with: `unknown`, no tickets, and the answer given for it. */
export function abandonedOutcome(signal: InterruptedSignal, answer: AbandonedAnswer, at: string): SignalOutcome {
  const { httpStatus, responseBody, error } = answer(signal);
  return { state: 'unknown', httpStatus, responseBody, error, tickets: NO_TICKETS, result: null, completedAt: at };
}

/**
 * The durable record of every signal, as one replica sees it: the replica id it was opened with
 * owns the claims it makes. The row of a signal_id is created by one atomic insert (the
 * idempotency claim) in state `processing` and moves once to its final state with the exact HTTP
 * answer to replay. Every write settles only once it is durable.
 *
 * Two implementations pass the same contract (test/signal-store.contract.ts): SQLite, the
 * embedded default (sqlite-store.ts), and PostgreSQL for several replicas on one database
 * (postgres-store.ts). Timestamps are ISO-8601 text in both, so the list's order and its cursor
 * are the same.
 */
export interface SignalStore {
  /** The replica whose claims this store makes and recovers. */
  readonly replicaId: string;
  /** Commits of writes since open (SQLite groups many writes in one). */
  readonly commitStats: GroupCommitStats;
  /**
   * The idempotency claim: exactly one caller, across every replica on the store, ever gets
   * `claimed: true` for an id; the others get the row as it stands.
   */
  claim(claim: SignalClaim): Promise<ClaimResult>;
  /** What is stored under a signal_id, without claiming it. */
  existing(signalId: string): Promise<ExistingSignal | undefined>;
  /** Moves this replica's claim to its final state; rejects when it is not (or no longer) processing. */
  complete(signalId: string, outcome: SignalOutcome): Promise<void>;
  /** Drops this replica's claim of a signal whose order was never sent (a retryable failure before order_send). */
  release(signalId: string): Promise<void>;
  find(signalId: string): Promise<SignalRecord | undefined>;
  /** One page of records, newest received first (then signal_id), and the position to continue from. */
  list(filter: SignalFilter, limit: number): Promise<SignalPage>;
  /**
   * The claims still `processing` of other replicas whose lease ended at or before `at` (their
   * owner died, or is stuck past every bound) become `unknown` with the answer `answer` builds;
   * they are never sent again. With `includeOwn` (at start-up, when this replica has nothing in
   * flight), every claim this replica left `processing` too. A live replica's claim within its
   * lease is left alone.
   */
  failAbandoned(at: string, answer: AbandonedAnswer, options: { includeOwn: boolean }): Promise<InterruptedSignal[]>;
  /** Keeps the answer order_send gave after its outcome was already stored as `unknown`. */
  recordLateResult(signalId: string, tickets: BrokerTickets, result: TradeOutcome, at: string): Promise<void>;
  recordReconciliation(signalId: string, reconciliation: Reconciliation): Promise<void>;
  /** Whether the database answers and can write now, for /health/ready. */
  health(): Promise<{ ok: boolean; detail: string }>;
  /**
   * Whether the store can write, known without a round trip (an embedded file learns it from its
   * failed writes): a new signal is not claimed while it cannot. Absent: assumed it can.
   */
  writable?(): { ok: boolean; detail: string };
  /** Writes what is queued and lets the database go. */
  close(): Promise<void>;
}

/**
 * The columns a record is read from, named rather than `*`: the owner and lease a row also holds
 * would be two more properties on every row read (a page of 50 read about 20 % slower with them).
 */
export const RECORD_COLUMNS =
  'signal_id, payload_hash, state, request_json, request_id, order_comment, http_status, response_body, order_ticket, deal_ticket, position_ticket, result_json, error_json, reconciliation_json, received_at, completed_at, updated_at';

/** A row of `signals`, as both databases return it. */
export interface SignalRow {
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
}

export type ExistingRow = Pick<SignalRow, 'payload_hash' | 'state' | 'http_status' | 'response_body'>;

export function existingOf(row: ExistingRow): ExistingSignal {
  return { payloadHash: row.payload_hash, state: row.state, httpStatus: row.http_status, responseBody: row.response_body };
}

function parseJson<T>(text: string | null): T | null {
  return text === null ? null : (JSON.parse(text) as T);
}

export function recordOf(row: SignalRow): SignalRecord {
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
export function pageOf(rows: SignalRow[], limit: number): SignalPage {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return { records: page.map(recordOf), next: rows.length > limit && last ? { receivedAt: last.received_at, signalId: last.signal_id } : undefined };
}

/**
 * The parameters of a claim's insert. One literal naming every field: on Node 20, a spread
 * followed by a new key gives each object a hidden class of its own (see c53262b).
 */
export function claimColumns(claim: SignalClaim, owner: string) {
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
export function outcomeColumns(signalId: string, outcome: SignalOutcome) {
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

/**
 * The conditions of one page of the list: equality on the filtered columns, then a range on
 * (received_at, signal_id), which one index per filter serves in order (keyset paging: the cost of
 * a page does not grow with its depth, unlike OFFSET). `param` binds a value and gives its placeholder.
 */
export function listConditions(filter: SignalFilter, param: (name: string, value: string) => string): string[] {
  const where: string[] = [];
  for (const column of ['state', 'symbol', 'source'] as const) {
    const value = filter[column];
    if (value !== undefined) where.push(`${column} = ${param(column, value)}`);
  }
  if (filter.receivedFrom !== undefined) where.push(`received_at >= ${param('receivedFrom', filter.receivedFrom)}`);
  if (filter.receivedBefore !== undefined) where.push(`received_at < ${param('receivedBefore', filter.receivedBefore)}`);
  if (filter.after !== undefined) {
    where.push(`(received_at, signal_id) < (${param('afterReceivedAt', filter.after.receivedAt)}, ${param('afterSignalId', filter.after.signalId)})`);
  }
  return where;
}
