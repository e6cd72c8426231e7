/**
 * MESSENGER_APP through the WhatsApp Cloud API (https://developers.facebook.com/docs/whatsapp/cloud-api/reference/messages).
 *
 * - `POST {base}/{version}/{phone-number-id}/messages`, `Authorization: Bearer <token>`, JSON
 *   `{ messaging_product: "whatsapp", recipient_type: "individual", to, type: "text",
 *   text: { preview_url, body } }` (body at most 4096 characters), plus `biz_opaque_callback_data`,
 *   which the platform echoes in every status webhook of the message: we put the delivery id there,
 *   so a status can find its record even before the wamid is stored.
 * - Free-form text reaches a user only inside the 24-hour customer service window their last
 *   message opened; outside it the message fails with 131047, "More than 24 hours have passed since
 *   the recipient last replied to the sender number. Send the recipient a template message
 *   instead" (https://developers.facebook.com/docs/whatsapp/cloud-api/support/error-codes). The
 *   platform takes the text and reports the 131047 later in a `failed` status webhook (errors come
 *   "synchronously as a Graph API response, asynchronously via Webhook, or sometimes through both
 *   methods", same page). So with MESSENGER_APP_TEMPLATE set, a user with no open window we know
 *   of gets the approved template instead: `type: "template", template: { name, language: { code },
 *   components: [{ type: "body", parameters: [{ type: "text", text }] }] }`
 *   (https://developers.facebook.com/docs/whatsapp/cloud-api/guides/send-message-templates).
 * - Success: `{ messaging_product, contacts: [{ input, wa_id }], messages: [{ id }] }`; the
 *   provider id is `messages[0].id` (a wamid), the key the status webhooks use.
 * - Failure: `{ "error": { message, type, code, error_data: { messaging_product, details }, fbtrace_id } }`.
 *   Meta asks clients to act on `code`, not the HTTP status: the throttling codes (4, 80007,
 *   130429) and 131048 (spam rate limit), 131057 (account in maintenance: a throughput upgrade
 *   takes the number away "up to 1 minute", https://developers.facebook.com/docs/whatsapp/throughput)
 *   and 131016 (service temporarily unavailable) are retried with the backoff whatever status
 *   carries them; 131056 (pair rate limit) holds the user's queue (whatsapp-pacer.ts).
 */
import { bodyExcerpt, isSuccess, providerRefusal, type HttpClient, type HttpResponse } from './http.js';
import { holdUntil, isRetryableStatus, type DeliveryError, type OutboundMessage, type ProviderRequest, type SendResult, type Transport } from './transport.js';
import { WhatsAppPacer } from './whatsapp-pacer.js';
import { MemoryPacingBook, type PacingBook } from '../pacing.js';
import { plainText, truncate } from '../render.js';

export const WHATSAPP_MAX_BODY = 4096;
const RETRYABLE_CODES = new Set([4, 80007, 130429, 131016, 131048, 131057]);
const PAIR_RATE_LIMIT = 131056;
const OUTSIDE_WINDOW = 131047;

/** The customer service window a user's message opens (same error-codes page, 131047). */
export const SESSION_WINDOW_MS = 24 * 60 * 60 * 1000;
/** Free-form text goes only while at least this much of the window is left: the clocks and the queue may lag. */
export const SESSION_MARGIN_MS = 5 * 60 * 1000;
/**
 * The template's body parameters together stay within this many characters: the body once filled
 * in may hold at most 1,024 ("Translated text is too long", 132005), which leaves 124 for the
 * template's own words.
 */
export const TEMPLATE_PARAMETERS_MAX = 900;

export interface WhatsAppOptions {
  baseUrl: string;
  apiVersion: string;
  phoneNumberId: string;
  token: string;
}

/** What fills a body parameter: `subject` (the subject, else the message's first line) or `message` (the message as text). */
export type TemplateParameter = 'subject' | 'message';

/** MESSENGER_APP_TEMPLATE, MESSENGER_APP_TEMPLATE_LANGUAGE, MESSENGER_APP_TEMPLATE_PARAMETERS. */
export interface WhatsAppTemplate {
  name: string;
  language: string;
  parameters: TemplateParameter[];
}

/** The customer service windows, as the status webhook learns them (the store keeps them). */
export interface MessengerSessions {
  /** When `waId` last wrote to the business number (epoch ms), if it ever did. */
  lastInboundAt(waId: string): Promise<number | undefined>;
  /** The platform said `waId`'s window is closed at `at` (a 131047): earlier messages no longer count. */
  closeSession(waId: string, at: number): Promise<void>;
}

/** The WhatsApp id of a recipient as configured: the number without its `+`. */
export function waIdOf(recipient: string): string {
  return recipient.replace(/^\+/, '');
}

function messagesRequest(options: WhatsAppOptions, recipient: string, payload: Record<string, unknown>): ProviderRequest {
  return {
    method: 'POST',
    url: `${options.baseUrl}/${options.apiVersion}/${encodeURIComponent(options.phoneNumberId)}/messages`,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${options.token}` },
    body: JSON.stringify({ messaging_product: 'whatsapp', recipient_type: 'individual', to: waIdOf(recipient), ...payload }),
  };
}

/** The free-form text message (the sandbox records this one). */
export function whatsappRequest(options: WhatsAppOptions, message: OutboundMessage): ProviderRequest {
  return messagesRequest(options, message.recipient, {
    type: 'text',
    text: { preview_url: false, body: plainText(message, WHATSAPP_MAX_BODY) },
    biz_opaque_callback_data: message.deliveryId,
  });
}

/**
 * One line, as a template parameter must be: "Param text cannot have new-line/tab characters or
 * more than 4 consecutive spaces" (error 132018). Lines are joined with " | ".
 */
function oneLine(text: string): string {
  return text
    .split(/\r?\n/)
    .map((line) => line.replace(/\s+/g, ' ').trim())
    .filter((line) => line.length > 0)
    .join(' | ');
}

/** A `subject` parameter is cut to this many characters. */
const SUBJECT_MAX = 200;

/**
 * The body parameters of a message, in the template's order, each on one line: `subject` is the
 * subject (else the message's first line), `message` the message as text (led by the subject when
 * no `subject` parameter carries it). `message` parameters share what the subjects leave of
 * TEMPLATE_PARAMETERS_MAX.
 */
export function templateParameters(template: WhatsAppTemplate, message: OutboundMessage): string[] {
  const body = plainText({ ...message, subject: null }, WHATSAPP_MAX_BODY);
  const firstLine = body.split('\n').find((line) => line.trim().length > 0) ?? '';
  const subject = truncate(oneLine(message.subject ?? firstLine), SUBJECT_MAX);
  const subjects = template.parameters.filter((p) => p === 'subject').length;
  const text = oneLine(subjects === 0 && message.subject ? `${message.subject}\n${body}` : body);
  const room = Math.floor((TEMPLATE_PARAMETERS_MAX - subjects * subject.length) / Math.max(1, template.parameters.length - subjects));
  return template.parameters.map((p) => (p === 'subject' ? subject : truncate(text, room)));
}

/** The approved template carrying the message in its body parameters. */
export function whatsappTemplateRequest(options: WhatsAppOptions, template: WhatsAppTemplate, message: OutboundMessage): ProviderRequest {
  const parameters = templateParameters(template, message).map((text) => ({ type: 'text', text }));
  return messagesRequest(options, message.recipient, {
    type: 'template',
    template: {
      name: template.name,
      language: { code: template.language },
      ...(parameters.length > 0 ? { components: [{ type: 'body', parameters }] } : {}),
    },
    biz_opaque_callback_data: message.deliveryId,
  });
}

interface GraphReply {
  messages?: { id?: string }[];
  error?: { message?: string; type?: string; code?: number; error_data?: { details?: string }; fbtrace_id?: string };
}

/** The wamid of an accepted message, or the refusal and its Graph code. */
function readGraphReply(res: HttpResponse, now: () => number): { id: string } | { code: number | undefined; refusal: DeliveryError } {
  const reply = (res.json ?? {}) as GraphReply;
  const id = reply.messages?.[0]?.id;
  if (isSuccess(res) && typeof id === 'string') return { id };
  const err = reply.error;
  const details = err?.error_data?.details;
  const retryable = (err?.code !== undefined && RETRYABLE_CODES.has(err.code)) || isRetryableStatus(res.status);
  const message = err?.message ? `${err.message}${details && details !== err.message ? `: ${details}` : ''}` : bodyExcerpt(res.text);
  return { code: err?.code, refusal: providerRefusal(res, { code: err?.code, message }, now, { retryable }) };
}

/**
 * MESSENGER_APP on the Cloud API. Each message waits for its user's turn under the pair rate
 * limit; it goes as free-form text while the user's customer service window is open (or when no
 * template is configured), else as the template. A 131047 answered at once is sent again as the
 * template in the same attempt; one reported later by the webhook puts the delivery back in the
 * queue (messenger-webhook.ts), and the closed window then makes it the template.
 */
class WhatsAppTransport implements Transport {
  readonly provider = 'whatsapp' as const;
  private readonly pacer: WhatsAppPacer;

  private readonly sessions: MessengerSessions | undefined;
  private readonly template: WhatsAppTemplate | undefined;

  /**
   * Without `sessions` no window is known to be open: every message goes as the template when
   * there is one. Without `pacing` the pair rate's calendar is this transport's own, in memory.
   */
  constructor(
    private readonly options: WhatsAppOptions,
    private readonly http: HttpClient,
    private readonly now: () => number,
    kept: WhatsAppKept = {},
  ) {
    this.sessions = kept.sessions;
    this.template = kept.template;
    this.pacer = new WhatsAppPacer(kept.pacing ?? new MemoryPacingBook(), now);
  }

  /** Whether free-form text may go to `waId` now: its last message is recent enough. */
  private async isSessionOpen(waId: string, now: number): Promise<boolean> {
    const last = await this.sessions?.lastInboundAt(waId);
    return last !== undefined && now < last + SESSION_WINDOW_MS - SESSION_MARGIN_MS;
  }

  async send(message: OutboundMessage): Promise<SendResult> {
    const waId = waIdOf(message.recipient);
    const { at: turn, now } = await this.pacer.turn(message.deliveryId, waId);
    if (turn > now) {
      throw holdUntil(turn, now, { code: 'paced', message: 'waiting for this user’s turn: WhatsApp takes one message every 6 s to the same user' });
    }
    const asTemplate = this.template !== undefined && !(await this.isSessionOpen(waId, now));
    let reply = await this.post(asTemplate ? this.templateRequest(message) : whatsappRequest(this.options, message));
    if ('code' in reply && reply.code === OUTSIDE_WINDOW && !asTemplate && this.template !== undefined) {
      // The text was refused, not delivered: the template takes its turn.
      await this.sessions?.closeSession(waId, now);
      reply = await this.post(this.templateRequest(message));
    }
    if ('id' in reply) {
      // The message went: a failure to clear the user's 4^X count must not make it a failed attempt (and a resend).
      await this.pacer.accepted(waId).catch(() => undefined);
      return { provider: this.provider, providerMessageId: reply.id };
    }
    // A refusal sent nothing, so its turn is given back; a lost answer (a network error is thrown before here) keeps it.
    await this.pacer.giveBack(waId, turn);
    if (reply.code === PAIR_RATE_LIMIT) {
      const wait = await this.pacer.refused(waId);
      throw holdUntil(wait.at, wait.now, { code: String(PAIR_RATE_LIMIT), message: `${reply.refusal.providerError.message} (this user's queue waits)` });
    }
    throw reply.refusal;
  }

  private templateRequest(message: OutboundMessage): ProviderRequest {
    return whatsappTemplateRequest(this.options, this.template as WhatsAppTemplate, message);
  }

  private async post(req: ProviderRequest): Promise<ReturnType<typeof readGraphReply>> {
    const res = await this.http.post(req.url, { headers: req.headers, body: req.body });
    return readGraphReply(res, this.now);
  }
}

/** What the transport keeps outside itself: the customer service windows the webhook learns, the template when configured, the pacing calendar. */
export interface WhatsAppKept {
  sessions?: MessengerSessions;
  template?: WhatsAppTemplate;
  pacing?: PacingBook;
}

/** MESSENGER_APP's transport. */
export function whatsAppTransport(options: WhatsAppOptions, http: HttpClient, now: () => number, kept: WhatsAppKept = {}): Transport {
  return new WhatsAppTransport(options, http, now, kept);
}
