import type { GroupCommitStats } from '@fxdesk/core';
import type { ActionStore } from './action-store.js';
import type { BrokerTickets, Reconciliation, SignalFailure, SignalRecord, SignalState, TradeOutcome } from '@fxdesk/schemas';

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

/**
 * The durable record of every signal, as one replica sees it: the replica id it was opened with
 * owns the claims it makes. The row of a signal_id is created by one atomic insert (the
 * idempotency claim) in state `processing` and moves once to its final state with the exact HTTP
 * answer to replay. Every write settles only once it is durable.
 *
 * One implementation, written once against the database port (signal-store.ts), passes the
 * contract (test/signal-store.contract.ts) on both engines: SQLite, the embedded default, and
 * PostgreSQL for several replicas on one database. Timestamps are ISO-8601 text on both, so the
 * list's order and its cursor are the same.
 */
export interface SignalStore {
  /** The replica whose claims this store makes and recovers. */
  readonly replicaId: string;
  /** The actions on positions and orders, in the same database, claimed as this replica. */
  readonly actions: ActionStore;
  /** Commits of writes since open, where the database groups many writes in one (SQLite); absent elsewhere. */
  readonly commitStats?: GroupCommitStats;
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
