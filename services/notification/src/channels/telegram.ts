/**
 * CHAT_APP through the Telegram Bot API `sendMessage` (https://core.telegram.org/bots/api#sendmessage).
 *
 * - `POST {base}/bot<token>/sendMessage` with a JSON body `{ chat_id, text, parse_mode: "HTML" }`;
 *   `text` is "1-4096 characters after entities parsing", in the HTML subset of
 *   https://core.telegram.org/bots/api#html-style (render.ts builds it).
 * - Success: `{ "ok": true, "result": Message }`; the provider id is `result.message_id`.
 * - Failure (https://core.telegram.org/bots/api#making-requests): `{ "ok": false, "error_code",
 *   "description", "parameters"?: ResponseParameters }`; on flood control (429) `parameters.retry_after`
 *   is "the number of seconds left to wait before the request can be repeated".
 */
import { bodyExcerpt, HttpTransport, isSuccess, providerRefusal, type HttpClient, type HttpResponse } from './http.js';
import type { OutboundMessage, ProviderRequest, Transport } from './transport.js';
import { telegramText } from '../render.js';

export interface TelegramOptions {
  baseUrl: string;
  botToken: string;
}

/** A numeric chat id travels as the Integer the API documents; `@channel` names as strings. */
function chatId(recipient: string): number | string {
  const n = Number(recipient);
  return /^-?\d+$/.test(recipient) && Number.isSafeInteger(n) ? n : recipient;
}

export function telegramRequest(options: TelegramOptions, message: OutboundMessage): ProviderRequest {
  return {
    method: 'POST',
    url: `${options.baseUrl}/bot${options.botToken}/sendMessage`,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      chat_id: chatId(message.recipient),
      text: telegramText(message),
      parse_mode: 'HTML',
      link_preview_options: { is_disabled: true },
    }),
  };
}

interface TelegramReply {
  ok?: boolean;
  result?: { message_id?: number };
  error_code?: number;
  description?: string;
  parameters?: { retry_after?: number; migrate_to_chat_id?: number };
}

function readTelegramReply(res: HttpResponse, now: () => number): string | null {
  const reply = (res.json ?? {}) as TelegramReply;
  if (isSuccess(res) && reply.ok === true) return reply.result?.message_id === undefined ? null : String(reply.result.message_id);
  const retryAfterSeconds = reply.parameters?.retry_after;
  const description = reply.description ?? bodyExcerpt(res.text);
  const migrated = reply.parameters?.migrate_to_chat_id;
  throw providerRefusal(
    res,
    { code: reply.error_code, message: migrated === undefined ? description : `${description} (migrate_to_chat_id ${migrated})` },
    now,
    typeof retryAfterSeconds === 'number' ? { retryAfterMs: retryAfterSeconds * 1000 } : {},
  );
}

export function telegramTransport(options: TelegramOptions, http: HttpClient, now: () => number): Transport {
  return new HttpTransport(
    'telegram',
    http,
    (message) => telegramRequest(options, message),
    (res) => readTelegramReply(res, now),
  );
}
