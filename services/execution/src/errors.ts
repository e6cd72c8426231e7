import { defineErrors } from '@fxdesk/core';

/**
 * The execution service's error catalog (spec 001 A, "Errors", and DESIGN.md §4), code → status.
 * The kit's own codes (validation_error, unauthorized, not_found, not_ready…) keep theirs.
 */
export const errors = defineErrors({
  // Before the claim: nothing is stored.
  source_not_allowed: 422,
  symbol_not_allowed: 422,
  not_ready: 503,
  idempotency_conflict: 409,
  signal_in_progress: 409,
  // After the claim: stored as `rejected` and replayed on an identical retry.
  signal_too_old: 422,
  signal_in_future: 422,
  signal_expired: 422,
  invalid_volume: 422,
  invalid_price: 422,
  invalid_stops: 422,
  invalid_deviation: 422,
  preflight_rejected: 422,
  broker_rejected: 422,
  // Stored as `unknown`: the order may or may not exist at the broker.
  execution_outcome_unknown: 503,
  // A terminal call that cannot have traded failed: nothing is stored, retrying is safe.
  broker_unavailable: 503,
  // The outcome could not be written to the database.
  storage_unavailable: 503,
  signal_not_found: 404,
  // Actions on positions and orders (actions.ts): a retry while one runs; then, stored and
  // replayed, the venue's refusals that name what is wrong.
  action_in_progress: 409,
  position_not_found: 422,
  order_not_found: 422,
  no_changes: 422,
  // A cursor of the document's shape that this service did not issue (GET /v1/deals).
  invalid_cursor: 422,
});

export type ExecutionErrorCode = keyof typeof errors.statusByCode;
