import type { PacingBook, PacingKey, Turn, WindowRule } from '../pacing.js';

/**
 * Telegram's documented limits, from the Bot FAQ "My bot is hitting limits, how do I avoid this?"
 * (https://core.telegram.org/bots/faq#my-bot-is-hitting-limits-how-do-i-avoid-this):
 * - "When sending messages inside a particular chat, avoid sending more than one message per second."
 * - "If you're sending bulk notifications to multiple users, the API will not allow more than 30
 *   messages per second or so."
 * - "Your bot will not be able to send more than 20 messages per minute to the same group."
 */
export const TELEGRAM_LIMITS = {
  perChat: { limit: 1, windowMs: 1000 },
  perGroup: { limit: 20, windowMs: 60_000 },
  perBot: { limit: 30, windowMs: 1000 },
} as const satisfies Record<string, WindowRule>;

/**
 * Whether a chat id names a group, supergroup or channel: their ids are negative (a user's is
 * positive), and `@username` only addresses channels and supergroups ("username of the target
 * channel (in the format @channelusername)", https://core.telegram.org/bots/api#sendmessage).
 */
export function isGroupChat(chat: string): boolean {
  return chat.startsWith('-') || chat.startsWith('@');
}

/** A reservation nobody came back for this long after its time is given back. */
const STALE_MS = 60_000;

/** The pacer's name in its book. */
const PACER = 'telegram';

/**
 * Which messages of one bot go when: each chat at most one a second, each group at most 20 a
 * minute, the bot at most 30 a second; and a chat Telegram held with a 429 waits its `retry_after`
 * while the other chats go on. The calendar and the holds live in `book`: in this process's
 * memory on SQLite (after a restart the first messages go at once and a 429 teaches the rest),
 * in the database on PostgreSQL, where every replica sending for the bot shares them.
 */
export class TelegramPacer {
  /** `now` is read when a decision runs: in the database, after the replicas before it have had theirs. */
  constructor(
    private readonly book: PacingBook,
    private readonly now: () => number,
  ) {}

  private keys(chat: string): PacingKey[] {
    const keys: PacingKey[] = [{ key: `chat:${chat}`, rule: TELEGRAM_LIMITS.perChat }];
    if (isGroupChat(chat)) keys.push({ key: `group:${chat}`, rule: TELEGRAM_LIMITS.perGroup });
    keys.push({ key: 'bot', rule: TELEGRAM_LIMITS.perBot });
    return keys;
  }

  /** The time of the delivery's next message to `chat`: at or before `now` means go now (the turn is taken), else wait for it. */
  turn(deliveryId: string, chat: string): Promise<Turn> {
    return this.book.decide(PACER, (state) => {
      const now = this.now();
      if (now - state.prunedAt >= 1000) {
        state.prunedAt = now;
        state.calendar.prune(now, STALE_MS);
        for (const [c, hold] of state.holds) if (hold.until <= now) state.holds.delete(c);
      }
      return { at: state.calendar.reserve(deliveryId, this.keys(chat), now, state.holds.get(chat)?.until ?? now), now };
    });
  }

  /** Telegram held `chat` until `untilMs` (a 429's retry_after): its reserved turns are made again after it. */
  hold(chat: string, untilMs: number): Promise<void> {
    return this.book.decide(PACER, ({ calendar, holds }) => {
      holds.set(chat, { until: Math.max(untilMs, holds.get(chat)?.until ?? untilMs), strikes: 0 });
      calendar.releaseAll(`chat:${chat}`);
    });
  }

  /**
   * Gives back a turn taken at `at` whose message Telegram refused (a 4xx or 5xx answer: nothing
   * was posted, and the limits count messages). A 429 holds instead; a lost answer keeps the turn.
   */
  giveBack(chat: string, at: number): Promise<void> {
    return this.book.decide(PACER, ({ calendar }) => calendar.unreserve(this.keys(chat), at));
  }
}
