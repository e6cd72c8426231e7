import type { PacingBook, PacingKey, Turn, WindowRule } from '../pacing.js';

/**
 * WhatsApp's pair rate limit (Cloud API overview, "Pair rate limits",
 * https://developers.facebook.com/docs/whatsapp/cloud-api/overview#pair-rate-limits): "Business
 * phone numbers can send 1 message every 6 seconds to the same WhatsApp user (0.17
 * messages/second) ... Exceeding this limit triggers error code 131056". A burst of up to 45
 * "borrows from your future quota": after it the pair waits as long as the messages would have
 * taken at the normal rate, so spacing them gets every message there no later than a burst would
 * and never meets a 131056. We keep the plain rate.
 */
export const PAIR_RATE: WindowRule = { limit: 1, windowMs: 6000 };

/**
 * Meta's advice for "post-burst throttling": "if a send request fails, retry after 4^X seconds
 * (starting with X=0 and increasing X by 1 after each failure) until successful" (same page).
 * X stops growing at 6 (4^6 s, about 68 minutes).
 */
export const PAIR_BACKOFF_MAX_EXPONENT = 6;

/** A reservation nobody came back for this long after its time is given back. */
const STALE_MS = 120_000;

/** The pacer's name in its book. */
const PACER = 'whatsapp';

/**
 * Which message to a WhatsApp user goes when: one every 6 seconds per user, and after a 131056
 * (another sender on the number, or a restart that forgot the calendar) the user's queue waits
 * 4^X seconds while the other users go on. The calendar and the holds live in `book`: in memory on
 * SQLite (after a restart the first message to each user goes at once), in the database on
 * PostgreSQL, shared by every replica.
 */
export class WhatsAppPacer {
  /** `now` is read when a decision runs: in the database, after the replicas before it have had theirs. */
  constructor(
    private readonly book: PacingBook,
    private readonly now: () => number,
  ) {}

  private keys(waId: string): PacingKey[] {
    return [{ key: `pair:${waId}`, rule: PAIR_RATE }];
  }

  /** The time of the delivery's message to `waId`: at or before `now` means go now (the turn is taken), else wait for it. */
  turn(deliveryId: string, waId: string): Promise<Turn> {
    return this.book.decide(PACER, (state) => {
      const now = this.now();
      if (now - state.prunedAt >= PAIR_RATE.windowMs) {
        state.prunedAt = now;
        state.calendar.prune(now, STALE_MS);
      }
      const hold = state.holds.get(waId);
      return { at: state.calendar.reserve(deliveryId, this.keys(waId), now, Math.max(now, hold?.until ?? now)), now };
    });
  }

  /** WhatsApp refused a message to `waId` with 131056: its queue waits 4^X s, X one more each time in a row. Resolves to the end of the wait. */
  refused(waId: string): Promise<Turn> {
    return this.book.decide(PACER, ({ calendar, holds }) => {
      const now = this.now();
      const strikes = holds.get(waId)?.strikes ?? 0;
      const until = now + 4 ** Math.min(strikes, PAIR_BACKOFF_MAX_EXPONENT) * 1000;
      holds.set(waId, { until, strikes: strikes + 1 });
      calendar.releaseAll(`pair:${waId}`);
      return { at: until, now };
    });
  }

  /** WhatsApp took a message to `waId`: the 4^X count starts again. */
  accepted(waId: string): Promise<void> {
    return this.book.decide(PACER, ({ holds }) => {
      holds.delete(waId);
    });
  }

  /** Gives back a turn taken at `at` whose message WhatsApp refused for another reason (nothing went to the user). */
  giveBack(waId: string, at: number): Promise<void> {
    return this.book.decide(PACER, ({ calendar }) => calendar.unreserve(this.keys(waId), at));
  }
}
