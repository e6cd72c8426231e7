import type { Database } from '@fxdesk/core';
import type { ActionKind, ActionReconciliation, ActionRecord, ActionResult, ActionState } from '@fxdesk/schemas';

export type { ActionKind, ActionReconciliation, ActionRecord, ActionResult, ActionState };

/** A record under an Idempotency-Key, as a flatten reads it back. */
export interface KeyedAction extends ExistingAction {
  actionId: string;
  kind: ActionKind;
  ticket: string;
  requestJson: string;
}

/** An action about to be claimed. */
export interface ActionClaim {
  /** The Idempotency-Key, or for a flatten's position the key and the ticket (see flattenActionId). */
  actionId: string;
  idempotencyKey: string;
  kind: ActionKind;
  ticket: string;
  payloadHash: string;
  requestJson: string;
  requestId: string;
  orderComment: string;
  receivedAt: string;
  /** Until when the claiming replica answers for it; past it, any replica may mark it `unknown`. */
  leaseExpiresAt: string;
}

/** What an earlier claim of the same action id left. */
export interface ExistingAction {
  payloadHash: string;
  state: ActionState;
  httpStatus: number | null;
  responseBody: string | null;
}

export type ActionClaimResult = { claimed: true } | { claimed: false; existing: ExistingAction };

/** The final state of an action and the exact answer to replay. */
export interface ActionOutcome {
  state: Exclude<ActionState, 'processing'>;
  httpStatus: number;
  responseBody: string;
  result: ActionResult | null;
  error: { code: string; message: string; details?: unknown } | null;
  completedAt: string;
}

/** Where a page of the list ends: its last row, in (received_at, action_id) order. */
export interface ActionPosition {
  receivedAt: string;
  actionId: string;
}

export interface InterruptedAction {
  actionId: string;
  kind: Exclude<ActionKind, 'close_all'>;
  ticket: string;
  requestId: string;
  orderComment: string;
}

/**
 * The durable record of every action on a position or an order, as one replica sees it: like the
 * signals (store.ts), a row is created by one atomic insert (the claim) in state `processing`,
 * before the terminal is called, and moves once to its final state with the exact answer to replay.
 */
export interface ActionStore {
  claim(claim: ActionClaim): Promise<ActionClaimResult>;
  existing(actionId: string): Promise<ExistingAction | undefined>;
  /** Moves this replica's claim to its final state; rejects when it is not (or no longer) processing. */
  complete(actionId: string, outcome: ActionOutcome): Promise<void>;
  /** Every record under an Idempotency-Key (one action, or a flatten's positions), oldest first. */
  byKey(idempotencyKey: string): Promise<KeyedAction[]>;
  /** Drops this replica's claim of an action that was never sent. */
  release(actionId: string): Promise<void>;
  /** One page, newest received first (of one ticket's actions, when given), and the position to continue from. */
  list(after: ActionPosition | undefined, limit: number, ticket?: string): Promise<{ records: ActionRecord[]; next: ActionPosition | undefined }>;
  /** As SignalStore.failAbandoned: abandoned claims become `unknown` with the answer `answer` builds; never sent again. */
  failAbandoned(
    at: string,
    answer: (action: InterruptedAction) => { httpStatus: number; responseBody: string; error: { code: string; message: string } },
    options: { includeOwn: boolean },
  ): Promise<InterruptedAction[]>;
  /** Keeps what the terminal showed of an `unknown` action on its record. */
  recordReconciliation(actionId: string, reconciliation: ActionReconciliation): Promise<void>;
}

const CLAIM = `INSERT INTO actions (action_id, idempotency_key, kind, ticket, payload_hash, state, request_json, request_id, order_comment, received_at, updated_at, owner, lease_expires_at)
  VALUES (@actionId, @idempotencyKey, @kind, @ticket, @payloadHash, 'processing', @requestJson, @requestId, @orderComment, @receivedAt, @receivedAt, @owner, @leaseExpiresAt)
  ON CONFLICT (action_id) DO NOTHING`;
const EXISTING = 'SELECT payload_hash, state, http_status, response_body FROM actions WHERE action_id = @actionId';
const COMPLETE = `UPDATE actions SET state = @state, http_status = @httpStatus, response_body = @responseBody, result_json = @resultJson,
    error_json = @errorJson, completed_at = @completedAt, updated_at = @completedAt
  WHERE action_id = @actionId AND state = 'processing'`;
const BY_KEY =
  'SELECT action_id, kind, ticket, request_json, payload_hash, state, http_status, response_body FROM actions WHERE idempotency_key = @idempotencyKey ORDER BY received_at, action_id';
const RELEASE = "DELETE FROM actions WHERE action_id = @actionId AND state = 'processing' AND owner = @owner";
const COLUMNS =
  'action_id, idempotency_key, kind, ticket, state, request_json, order_comment, http_status, result_json, error_json, reconciliation_json, received_at, completed_at, updated_at';
const ABANDONED = `SELECT action_id, kind, ticket, request_id, order_comment FROM actions
  WHERE state = 'processing' AND kind <> 'close_all' AND ((owner = @owner AND @includeOwn = 1) OR (owner <> @owner AND lease_expires_at <= @at))`;
const RECONCILIATION = "UPDATE actions SET reconciliation_json = @json, updated_at = @at WHERE action_id = @actionId AND state = 'unknown'";
const CLAIM_ATTEMPTS = 5;

type ExistingRow = { payload_hash: string; state: ActionState; http_status: number | null; response_body: string | null };
type ActionRow = {
  action_id: string;
  idempotency_key: string;
  kind: ActionKind;
  ticket: string;
  state: ActionState;
  request_json: string;
  order_comment: string;
  http_status: number | null;
  result_json: string | null;
  error_json: string | null;
  reconciliation_json: string | null;
  received_at: string;
  completed_at: string | null;
  updated_at: string;
};
type AbandonedRow = { action_id: string; kind: InterruptedAction['kind']; ticket: string; request_id: string; order_comment: string };

function parseJson<T>(text: string | null): T | null {
  return text === null ? null : (JSON.parse(text) as T);
}

function recordOf(row: ActionRow): ActionRecord {
  return {
    action_id: row.action_id,
    idempotency_key: row.idempotency_key,
    kind: row.kind,
    ticket: row.ticket,
    state: row.state,
    request: JSON.parse(row.request_json) as unknown,
    order_comment: row.order_comment,
    http_status: row.http_status,
    result: parseJson<ActionResult>(row.result_json),
    error: parseJson<ActionRecord['error']>(row.error_json),
    reconciliation: parseJson<ActionReconciliation>(row.reconciliation_json),
    received_at: row.received_at,
    completed_at: row.completed_at,
    updated_at: row.updated_at,
  };
}

function outcomeColumns(actionId: string, outcome: ActionOutcome) {
  return {
    actionId,
    state: outcome.state,
    httpStatus: outcome.httpStatus,
    responseBody: outcome.responseBody,
    resultJson: outcome.result === null ? null : JSON.stringify(outcome.result),
    errorJson: outcome.error === null ? null : JSON.stringify(outcome.error),
    completedAt: outcome.completedAt,
  };
}

/** The action store over the database port, for both engines (it shares the signals' database). */
export class DatabaseActionStore implements ActionStore {
  private readonly abandoned: string;

  constructor(
    private readonly db: Database,
    private readonly replicaId: string,
  ) {
    this.abandoned = `${ABANDONED} ${db.dialect.skipLocked}`;
  }

  async claim(claim: ActionClaim): Promise<ActionClaimResult> {
    const columns = {
      actionId: claim.actionId,
      idempotencyKey: claim.idempotencyKey,
      kind: claim.kind,
      ticket: claim.ticket,
      payloadHash: claim.payloadHash,
      requestJson: claim.requestJson,
      requestId: claim.requestId,
      orderComment: claim.orderComment,
      receivedAt: claim.receivedAt,
      owner: this.replicaId,
      leaseExpiresAt: claim.leaseExpiresAt,
    };
    for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt++) {
      if ((await this.db.run(CLAIM, columns)).changes === 1) return { claimed: true };
      const existing = await this.existing(claim.actionId);
      if (existing) return { claimed: false, existing };
    }
    throw new Error(`action ${claim.actionId} neither inserted nor found after ${CLAIM_ATTEMPTS} attempts`);
  }

  async existing(actionId: string): Promise<ExistingAction | undefined> {
    const row = await this.db.one<ExistingRow>(EXISTING, { actionId });
    return row ? { payloadHash: row.payload_hash, state: row.state, httpStatus: row.http_status, responseBody: row.response_body } : undefined;
  }

  async complete(actionId: string, outcome: ActionOutcome): Promise<void> {
    if ((await this.db.run(COMPLETE, outcomeColumns(actionId, outcome))).changes !== 1) throw new Error(`action ${actionId} was not processing`);
  }

  async byKey(idempotencyKey: string): Promise<KeyedAction[]> {
    const rows = await this.db.query<ExistingRow & { action_id: string; kind: ActionKind; ticket: string; request_json: string }>(BY_KEY, { idempotencyKey });
    return rows.map((r) => ({
      actionId: r.action_id,
      kind: r.kind,
      ticket: r.ticket,
      requestJson: r.request_json,
      payloadHash: r.payload_hash,
      state: r.state,
      httpStatus: r.http_status,
      responseBody: r.response_body,
    }));
  }

  async release(actionId: string): Promise<void> {
    await this.db.run(RELEASE, { actionId, owner: this.replicaId });
  }

  async list(after: ActionPosition | undefined, limit: number, ticket?: string): Promise<{ records: ActionRecord[]; next: ActionPosition | undefined }> {
    const params: Record<string, string | number> = { limit: limit + 1 };
    const conditions: string[] = [];
    if (ticket !== undefined) {
      params.ticket = ticket;
      conditions.push('ticket = @ticket');
    }
    if (after) {
      params.afterReceivedAt = after.receivedAt;
      params.afterActionId = after.actionId;
      conditions.push('(received_at, action_id) < (@afterReceivedAt, @afterActionId)');
    }
    const where = conditions.length === 0 ? '' : `WHERE ${conditions.join(' AND ')} `;
    const rows = await this.db.query<ActionRow>(`SELECT ${COLUMNS} FROM actions ${where}ORDER BY received_at DESC, action_id DESC LIMIT @limit`, params);
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return { records: page.map(recordOf), next: rows.length > limit && last ? { receivedAt: last.received_at, actionId: last.action_id } : undefined };
  }

  failAbandoned(
    at: string,
    answer: (action: InterruptedAction) => { httpStatus: number; responseBody: string; error: { code: string; message: string } },
    { includeOwn }: { includeOwn: boolean },
  ): Promise<InterruptedAction[]> {
    return this.db.transaction(async (tx) => {
      const rows = await tx.query<AbandonedRow>(this.abandoned, { owner: this.replicaId, at, includeOwn });
      const actions = rows.map((r) => ({ actionId: r.action_id, kind: r.kind, ticket: r.ticket, requestId: r.request_id, orderComment: r.order_comment }));
      for (const action of actions) {
        const { httpStatus, responseBody, error } = answer(action);
        await tx.run(COMPLETE, outcomeColumns(action.actionId, { state: 'unknown', httpStatus, responseBody, error, result: null, completedAt: at }));
      }
      return actions;
    });
  }

  async recordReconciliation(actionId: string, reconciliation: ActionReconciliation): Promise<void> {
    await this.db.run(RECONCILIATION, { actionId, json: JSON.stringify(reconciliation), at: reconciliation.checked_at });
  }
}
