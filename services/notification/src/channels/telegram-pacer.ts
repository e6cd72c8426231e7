import { PacingCalendar, type PacingKey, type WindowRule } from '../pacing.js';

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

/**
 * Which messages of one bot go when: each chat at most one a second, each group at most 20 a
 * minute, the bot at most 30 a second; and a chat Telegram held with a 429 waits its `retry_after`
 * while the other chats go on. In memory: after a restart the first messages go at once and
 * the calendar fills again (a 429 then teaches the rest).
 */
export class TelegramPacer {
  private readonly calendar = new PacingCalendar();
  private readonly holds = new Map<string, number>();
  private prunedAt = Number.NEGATIVE_INFINITY;

  private keys(chat: string): PacingKey[] {
    const keys: PacingKey[] = [{ key: `chat:${chat}`, rule: TELEGRAM_LIMITS.perChat }];
    if (isGroupChat(chat)) keys.push({ key: `group:${chat}`, rule: TELEGRAM_LIMITS.perGroup });
    keys.push({ key: 'bot', rule: TELEGRAM_LIMITS.perBot });
    return keys;
  }

  /** The time of the delivery's next message to `chat`: at or before `now` means go now (the turn is taken), else wait for it. */
  turn(deliveryId: string, chat: string, now: number): number {
    if (now - this.prunedAt >= 1000) {
      this.prunedAt = now;
      this.calendar.prune(now, STALE_MS);
      for (const [c, until] of this.holds) if (until <= now) this.holds.delete(c);
    }
    return this.calendar.reserve(deliveryId, this.keys(chat), now, this.holds.get(chat) ?? now);
  }

  /** Telegram held `chat` until `untilMs` (a 429's retry_after): its reserved turns are made again after it. */
  hold(chat: string, untilMs: number): void {
    this.holds.set(chat, Math.max(untilMs, this.holds.get(chat) ?? untilMs));
    this.calendar.releaseAll(`chat:${chat}`);
  }

  /**
   * Gives back a turn taken at `at` whose message Telegram refused (a 4xx or 5xx answer: nothing
   * was posted, and the limits count messages). A 429 holds instead; a lost answer keeps the turn.
   */
  giveBack(chat: string, at: number): void {
    this.calendar.unreserve(this.keys(chat), at);
  }
}
