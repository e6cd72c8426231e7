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
import { retryAfterMs } from '@fxdesk/primitives';
import { bodyExcerpt, type HttpClient } from './http.js';
import { DeliveryError, isRetryableStatus, type OutboundMessage, type ProviderRequest, type SendResult, type Transport } from './transport.js';
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

export class TelegramTransport implements Transport {
  readonly provider = 'telegram' as const;

  constructor(
    private readonly options: TelegramOptions,
    private readonly http: HttpClient,
    private readonly now: () => number,
  ) {}

  async send(message: OutboundMessage): Promise<SendResult> {
    const req = telegramRequest(this.options, message);
    const res = await this.http.post(req.url, { headers: req.headers, body: req.body });
    const reply = (res.json ?? {}) as TelegramReply;
    if (res.status >= 200 && res.status < 300 && reply.ok === true) {
      return { provider: this.provider, providerMessageId: reply.result?.message_id === undefined ? null : String(reply.result.message_id) };
    }
    const retryAfterSeconds = reply.parameters?.retry_after;
    const description = reply.description ?? bodyExcerpt(res.text);
    const migrated = reply.parameters?.migrate_to_chat_id;
    throw new DeliveryError(
      {
        code: String(reply.error_code ?? res.status),
        message: migrated === undefined ? description : `${description} (migrate_to_chat_id ${migrated})`,
        httpStatus: res.status,
      },
      {
        retryable: isRetryableStatus(res.status),
        retryAfterMs: typeof retryAfterSeconds === 'number' ? retryAfterSeconds * 1000 : retryAfterMs(res.headers['retry-after'], this.now()),
      },
    );
  }
}
