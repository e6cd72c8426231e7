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
import { bodyExcerpt, HttpTransport, isSuccess, providerRefusal, type HttpClient, type HttpResponse } from './http.js';
import { isRetryableStatus, type OutboundMessage, type ProviderRequest, type Transport } from './transport.js';
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

function readGraphReply(res: HttpResponse, now: () => number): string {
  const reply = (res.json ?? {}) as GraphReply;
  const id = reply.messages?.[0]?.id;
  if (isSuccess(res) && typeof id === 'string') return id;
  const err = reply.error;
  const details = err?.error_data?.details;
  const throttled = err?.code !== undefined && THROTTLING_CODES.has(err.code);
  const message = err?.message ? `${err.message}${details && details !== err.message ? `: ${details}` : ''}` : bodyExcerpt(res.text);
  throw providerRefusal(res, { code: err?.code, message }, now, { retryable: throttled || isRetryableStatus(res.status) });
}

export function whatsAppTransport(options: WhatsAppOptions, http: HttpClient, now: () => number): Transport {
  return new HttpTransport(
    'whatsapp',
    http,
    (message) => whatsappRequest(options, message),
    (res) => readGraphReply(res, now),
  );
}
