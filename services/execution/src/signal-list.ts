import type { SignalList, SignalListQuery } from '@fxdesk/schemas';
import type { ListPosition, SignalStore } from './store.js';

/**
 * The last millisecond an ISO timestamp writes with a four-digit year. Later instants would be
 * written `+010000-…`, which sorts before every stored received_at as text; no clock reaches them,
 * so a bound past it is held at it.
 */
const LAST_ISO_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

function isoAt(ms: number): string {
  return new Date(Math.min(ms, LAST_ISO_MS)).toISOString();
}

/**
 * A received_at bound for an RFC 3339 instant (any zone, up to nanoseconds): the first stored
 * millisecond at or after it. received_at holds whole milliseconds, so `received_at >= t` is
 * `received_at >= bound(t)` and `received_at < t` is `received_at < bound(t)`.
 */
export function receivedBound(instant: string): string {
  const m = /^(.{19})(?:\.(\d{1,9}))?(.*)$/.exec(instant.toUpperCase());
  if (!m) throw new Error(`not an RFC 3339 instant: ${instant}`);
  const wholeSecondMs = Date.parse(`${m[1]}${m[3]}`);
  const nanoseconds = Number((m[2] ?? '').padEnd(9, '0'));
  return isoAt(wholeSecondMs + Math.ceil(nanoseconds / 1e6));
}

/**
 * The cursor: the last row of a page, as 6 bytes of received_at in epoch milliseconds and the 16
 * bytes of its signal_id (stored in lower case), in base64url: 30 characters. The query schema
 * admits exactly that shape, so anything else is refused there (422, `querystring.cursor`), and
 * every string of that shape names a position (one the service did not issue only starts a page
 * at an arbitrary place).
 */
export function encodeCursor(position: ListPosition): string {
  const bytes = Buffer.alloc(22);
  bytes.writeUIntBE(Date.parse(position.receivedAt), 0, 6);
  bytes.write(position.signalId.replaceAll('-', ''), 6, 'hex');
  return bytes.toString('base64url');
}

export function decodeCursor(cursor: string): ListPosition {
  const bytes = Buffer.from(cursor, 'base64url');
  if (bytes.length !== 22) throw new Error('a cursor is 30 base64url characters');
  const hex = bytes.subarray(6).toString('hex');
  return {
    receivedAt: isoAt(bytes.readUIntBE(0, 6)),
    signalId: `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`,
  };
}

/** GET /v1/signals: the filters as the store reads them, one page, and the cursor of the next. */
export async function listSignals(store: SignalStore, { limit, cursor, from, to, state, symbol, source }: SignalListQuery): Promise<SignalList> {
  const page = await store.list(
    {
      state,
      symbol,
      source,
      receivedFrom: from === undefined ? undefined : receivedBound(from),
      receivedBefore: to === undefined ? undefined : receivedBound(to),
      after: cursor === undefined ? undefined : decodeCursor(cursor),
    },
    limit,
  );
  return { signals: page.records, next_cursor: page.next ? encodeCursor(page.next) : null };
}
