import { createHash } from 'node:crypto';
import { formatDecimal, parseDecimal } from '@fxdesk/primitives';
import type { SignalSubmission } from '@fxdesk/schemas';

// `sl` and `tp` are the legs of a position's modification (actions.ts).
const DECIMAL_FIELDS = new Set(['volume', 'entry_price', 'stop_loss', 'take_profit', 'stop_loss_distance', 'take_profit_distance', 'sl', 'tp']);
const TIMESTAMP_FIELDS = new Set(['occurred_at', 'expires_at']);

/** `2026-01-05T13:00:00.500+01:00` → `1767614400.5`: the instant, exact to the nanosecond. */
function canonicalInstant(value: string): string {
  const m = /^(.{19})(?:\.(\d+))?(.*)$/.exec(value) as RegExpExecArray;
  const seconds = Date.parse(`${m[1]}${m[3]}`) / 1000;
  const fraction = (m[2] ?? '').replace(/0+$/, '');
  return fraction ? `${seconds}.${fraction}` : String(seconds);
}

function canonicalValue(key: string, value: unknown): unknown {
  if (typeof value !== 'string') return value;
  if (DECIMAL_FIELDS.has(key)) return formatDecimal(parseDecimal(value));
  if (TIMESTAMP_FIELDS.has(key)) return canonicalInstant(value);
  return value;
}

/**
 * The meaning of a submission as one string, for the idempotency hash: the validated body with
 * its defaults applied, keys sorted, no whitespace, the signal_id in lower case, decimals without
 * insignificant zeros ("0.10" = "0.1") and timestamps as the instant they name ("…T13:00+01:00"
 * = "…T12:00Z"). Two bodies that differ only in key order, spacing or spelling hash the same;
 * any change of value does not.
 */
export function canonicalSubmission(signal: SignalSubmission): string {
  const entries = Object.entries(signal)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => [key, key === 'signal_id' ? String(value).toLowerCase() : canonicalValue(key, value)] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify(Object.fromEntries(entries));
}

/** SHA-256 (hex) of the canonical submission. */
export function payloadHash(signal: SignalSubmission): string {
  return createHash('sha256').update(canonicalSubmission(signal)).digest('hex');
}

/**
 * SHA-256 (hex) of what an action asks, for its Idempotency-Key: the kind, the ticket and the
 * body canonical as a submission's (keys sorted, decimals without insignificant zeros, null kept).
 */
export function actionHash(kind: string, ticket: string, body: Record<string, unknown>): string {
  const entries = Object.entries(body)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => [key, canonicalValue(key, value)] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return createHash('sha256')
    .update(JSON.stringify({ kind, ticket, body: Object.fromEntries(entries) }))
    .digest('hex');
}
