/**
 * MESSENGER_APP through the WhatsApp Cloud API (https://developers.facebook.com/docs/whatsapp/cloud-api/reference/messages).
 *
 * - `POST {base}/{version}/{phone-number-id}/messages`, `Authorization: Bearer <token>`, JSON
 *   `{ messaging_product: "whatsapp", recipient_type: "individual", to, type: "text",
 *   text: { preview_url, body } }` (body at most 4096 characters), plus `biz_opaque_callback_data`,
 *   which the platform echoes in every status webhook of the message: we put the delivery id there,
 *   so a status can find its record even before the wamid is stored.
 * - Success: `{ messaging_product, contacts: [{ input, wa_id }], messages: [{ id }] }`; the
 *   provider id is `messages[0].id` (a wamid), the key the status webhooks use.
 * - Failure (https://developers.facebook.com/docs/whatsapp/cloud-api/support/error-codes):
 *   `{ "error": { message, type, code, error_data: { messaging_product, details }, fbtrace_id } }`.
 *   Meta asks clients to act on `code`, not the HTTP status: the throttling codes (4, 80007,
 *   130429, 131056) are retried like a 429 whatever status carries them.
 */
import { retryAfterMs } from '@fxdesk/primitives';
import { bodyExcerpt, type HttpClient } from './http.js';
import { DeliveryError, isRetryableStatus, type OutboundMessage, type ProviderRequest, type SendResult, type Transport } from './transport.js';
import { plainText } from '../render.js';

export const WHATSAPP_MAX_BODY = 4096;
const THROTTLING_CODES = new Set([4, 80007, 130429, 131056]);

export interface WhatsAppOptions {
  baseUrl: string;
  apiVersion: string;
  phoneNumberId: string;
  token: string;
}

export function whatsappRequest(options: WhatsAppOptions, message: OutboundMessage): ProviderRequest {
  return {
    method: 'POST',
    url: `${options.baseUrl}/${options.apiVersion}/${encodeURIComponent(options.phoneNumberId)}/messages`,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${options.token}` },
    body: JSON.stringify({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: message.recipient.replace(/^\+/, ''),
      type: 'text',
      text: { preview_url: false, body: plainText(message, WHATSAPP_MAX_BODY) },
      biz_opaque_callback_data: message.deliveryId,
    }),
  };
}

interface GraphReply {
  messages?: { id?: string }[];
  error?: { message?: string; type?: string; code?: number; error_data?: { details?: string }; fbtrace_id?: string };
}

export class WhatsAppTransport implements Transport {
  readonly provider = 'whatsapp' as const;

  constructor(
    private readonly options: WhatsAppOptions,
    private readonly http: HttpClient,
    private readonly now: () => number,
  ) {}

  async send(message: OutboundMessage): Promise<SendResult> {
    const req = whatsappRequest(this.options, message);
    const res = await this.http.post(req.url, { headers: req.headers, body: req.body });
    const reply = (res.json ?? {}) as GraphReply;
    const id = reply.messages?.[0]?.id;
    if (res.status >= 200 && res.status < 300 && typeof id === 'string') {
      return { provider: this.provider, providerMessageId: id };
    }
    const err = reply.error;
    const details = err?.error_data?.details;
    const throttled = err?.code !== undefined && THROTTLING_CODES.has(err.code);
    throw new DeliveryError(
      {
        code: String(err?.code ?? res.status),
        message: err?.message ? `${err.message}${details && details !== err.message ? `: ${details}` : ''}` : bodyExcerpt(res.text),
        httpStatus: res.status,
      },
      { retryable: throttled || isRetryableStatus(res.status), retryAfterMs: retryAfterMs(res.headers['retry-after'], this.now()) },
    );
  }
}
