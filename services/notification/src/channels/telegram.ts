/**
 * CHAT_APP through the Telegram Bot API `sendMessage` (https://core.telegram.org/bots/api#sendmessage).
 *
 * - `POST {base}/bot<token>/sendMessage` with a JSON body `{ chat_id, text, parse_mode: "HTML" }`;
 *   `text` is "1-4096 characters after entities parsing", in the HTML subset of
 *   https://core.telegram.org/bots/api#html-style (render.ts builds it).
 * - Success: `{ "ok": true, "result": Message }`; the provider id is `result.message_id`.
 * - Failure (https://core.telegram.org/bots/api#making-requests): `{ "ok": false, "error_code",
 *   "description", "parameters"?: ResponseParameters }`; on flood control (429) `parameters.retry_after`
 *   is "the number of seconds left to wait before the request can be repeated"; when a group has
 *   become a supergroup, `parameters.migrate_to_chat_id` is "the group has been migrated to a
 *   supergroup with the specified identifier" (https://core.telegram.org/bots/api#responseparameters).
 * - Limits: telegram-pacer.ts (the Bot FAQ's); a text over 4,096 characters goes in parts (telegram-split.ts).
 */
import type { NotificationChannel } from '@fxdesk/schemas';
import type { Logger } from 'pino';
import type { PacingBook } from '../pacing.js';
import { bodyExcerpt, isSuccess, providerRefusal, type HttpClient, type HttpResponse } from './http.js';
import { TelegramPacer } from './telegram-pacer.js';
import { telegramParts } from './telegram-split.js';
import { DeliveryError, holdUntil, type OutboundMessage, type ProviderRequest, type SendResult, type Transport } from './transport.js';

export interface TelegramOptions {
  baseUrl: string;
  botToken: string;
}

/** A numeric chat id travels as the Integer the API documents; `@channel` names as strings. */
function chatId(recipient: string): number | string {
  const n = Number(recipient);
  return /^-?\d+$/.test(recipient) && Number.isSafeInteger(n) ? n : recipient;
}

function sendMessageRequest(options: TelegramOptions, chat: string, text: string): ProviderRequest {
  return {
    method: 'POST',
    url: `${options.baseUrl}/bot${options.botToken}/sendMessage`,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ chat_id: chatId(chat), text, parse_mode: 'HTML', link_preview_options: { is_disabled: true } }),
  };
}

/** The sendMessage requests of a message, one per part (the sandbox records these). */
export function telegramRequests(options: TelegramOptions, message: OutboundMessage): ProviderRequest[] {
  return telegramParts(message).map((text) => sendMessageRequest(options, message.recipient, text));
}

interface TelegramReply {
  ok?: boolean;
  result?: { message_id?: number };
  error_code?: number;
  description?: string;
  parameters?: { retry_after?: number; migrate_to_chat_id?: number };
}

/** The message_id of an accepted message, or the refusal (with the chat it moved to, if it did). */
function readTelegramReply(res: HttpResponse, now: () => number): { messageId: string | null } | { refusal: DeliveryError; movedTo?: string } {
  const reply = (res.json ?? {}) as TelegramReply;
  if (isSuccess(res) && reply.ok === true) return { messageId: reply.result?.message_id === undefined ? null : String(reply.result.message_id) };
  const retryAfterSeconds = reply.parameters?.retry_after;
  const description = reply.description ?? bodyExcerpt(res.text);
  const migrated = reply.parameters?.migrate_to_chat_id;
  const refusal = providerRefusal(
    res,
    { code: reply.error_code, message: migrated === undefined ? description : `${description} (migrate_to_chat_id ${migrated})` },
    now,
    typeof retryAfterSeconds === 'number' ? { retryAfterMs: retryAfterSeconds * 1000 } : {},
  );
  return Number.isSafeInteger(migrated) ? { refusal, movedTo: String(migrated) } : { refusal };
}

/**
 * What the Telegram transport keeps in the database: chats that moved, the parts of split messages
 * already sent, and its pacing calendar. Read at each send, so that every process sending for the
 * bot acts on what any of them learnt.
 */
export interface TelegramMemory {
  readonly pacing: PacingBook;
  routeOf(channel: NotificationChannel, recipient: string): Promise<string | undefined>;
  reroute(channel: NotificationChannel, recipient: string, routedTo: string, now: number): Promise<void>;
  partsSent(deliveryId: string): Promise<{ part: number; address: string; providerMessageId: string | null }[]>;
  recordPart(deliveryId: string, sent: { part: number; parts: number; address: string; providerMessageId: string | null }, now: number): Promise<void>;
}

/**
 * CHAT_APP on the Bot API. Each call sends at most one message, when the pacer says it is the
 * chat's turn; otherwise, and between the parts of a long message, the delivery waits for its
 * turn (no attempt spent). A 429 with `retry_after` holds that chat alone; a `migrate_to_chat_id`
 * moves the recipient to the supergroup for good and sends there.
 */
export class TelegramTransport implements Transport {
  readonly provider = 'telegram' as const;
  private readonly pacer: TelegramPacer;

  constructor(
    private readonly options: TelegramOptions,
    private readonly http: HttpClient,
    private readonly memory: TelegramMemory,
    private readonly now: () => number,
    private readonly logger?: Logger,
  ) {
    this.pacer = new TelegramPacer(memory.pacing, now);
  }

  async send(message: OutboundMessage): Promise<SendResult> {
    const chat = (await this.memory.routeOf('CHAT_APP', message.recipient)) ?? message.recipient;
    const { at: turn, now } = await this.pacer.turn(message.deliveryId, chat);
    if (turn > now) throw holdUntil(turn, now, { code: 'paced', message: `waiting for chat ${chat}'s turn under Telegram's limits` });

    const parts = telegramParts(message);
    const done = parts.length > 1 ? await this.memory.partsSent(message.deliveryId) : [];
    if (done.length >= parts.length) {
      // Every part was accepted before the worker stopped short of recording the delivery sent.
      await this.pacer.giveBack(chat, turn);
      return this.sent(message, done);
    }
    const part = done.length;
    const req = sendMessageRequest(this.options, chat, parts[part] as string);
    const res = await this.http.post(req.url, { headers: req.headers, body: req.body });
    const reply = readTelegramReply(res, this.now);
    if ('refusal' in reply) {
      if (reply.refusal.providerError.httpStatus !== 429) await this.pacer.giveBack(chat, turn);
      throw await this.refused(message, chat, reply.refusal, reply.movedTo);
    }

    if (parts.length > 1) {
      await this.memory.recordPart(message.deliveryId, { part, parts: parts.length, address: chat, providerMessageId: reply.messageId }, this.now());
      if (part + 1 < parts.length) {
        const next = await this.pacer.turn(message.deliveryId, chat);
        throw holdUntil(next.at, next.now, {
          code: 'in_parts',
          message: `part ${part + 1} of ${parts.length} sent (message_id ${reply.messageId}); the next goes at the chat's next turn`,
        });
      }
    }
    return this.sent(message, [...done, { address: chat, providerMessageId: reply.messageId }]);
  }

  /**
   * The result of a delivery whose messages all went: their ids, each naming its chat when that is
   * not the recipient (a moved group), as a message_id is only unique within its chat.
   */
  private sent(message: OutboundMessage, messages: { address: string; providerMessageId: string | null }[]): SendResult {
    const ids = messages
      .filter((p): p is { address: string; providerMessageId: string } => p.providerMessageId !== null)
      .map((p) => (p.address === message.recipient ? p.providerMessageId : `${p.address}:${p.providerMessageId}`));
    return { provider: this.provider, providerMessageId: ids.length > 0 ? ids.join(',') : null };
  }

  /** The error a refusal throws: a hold or a move is a wait (the attempt does not count); anything else fails as Telegram said. */
  private async refused(message: OutboundMessage, chat: string, refusal: DeliveryError, movedTo: string | undefined): Promise<DeliveryError> {
    const now = this.now();
    if (movedTo !== undefined && movedTo !== chat) {
      await this.memory.reroute('CHAT_APP', message.recipient, movedTo, now);
      this.logger?.warn(
        { deliveryId: message.deliveryId, recipient: message.recipient, from: chat, to: movedTo },
        'Telegram: the group was upgraded to a supergroup (migrate_to_chat_id): this delivery and every later one to the recipient go to the new chat',
      );
      const next = await this.pacer.turn(message.deliveryId, movedTo);
      return holdUntil(next.at, next.now, refusal.providerError);
    }
    if (refusal.providerError.httpStatus === 429 && refusal.retryAfterMs !== undefined) {
      // The flood wait is the chat's: its other deliveries wait behind it, the other chats go on.
      await this.pacer.hold(chat, now + refusal.retryAfterMs);
      const next = await this.pacer.turn(message.deliveryId, chat);
      return holdUntil(next.at, next.now, refusal.providerError);
    }
    return refusal;
  }
}
