/**
 * A WhatsApp Cloud API that behaves as Meta documents it, for the MESSENGER_APP tests:
 *
 * - `POST /{version}/{phone-number-id}/messages` with the bearer token; text and template messages
 *   (https://developers.facebook.com/docs/whatsapp/cloud-api/reference/messages,
 *   https://developers.facebook.com/docs/whatsapp/cloud-api/guides/send-message-templates).
 * - The customer service window: a user who wrote within 24 hours can get text; a text to anyone
 *   else is accepted (200 with a wamid) and then reported `failed` with 131047 in a status webhook
 *   (the error arrives "asynchronously via Webhook", error-codes page). Templates go any time.
 * - Templates as approved: an unknown name or language is 132001, a wrong number of body
 *   parameters 132000, a parameter with a line break, a tab or more than 4 spaces in a row 132018,
 *   a filled-in body over 1,024 characters 132005.
 * - The pair rate limit (Cloud API overview, "Pair rate limits"): 1 message every 6 s to the same
 *   user, a burst of up to `pairBurst` (45) within 6 s borrowed against it, after which the pair
 *   waits as long as the burst's messages would have taken at the normal rate; beyond that,
 *   400 with 131056.
 * - Webhooks as the platform POSTs them: each accepted message's `sent` status, the 131047
 *   failures, and the users' own messages; each signed `X-Hub-Signature-256` with the app secret.
 *   `takeWebhooks()` hands them to the test, which posts them to the service.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { FakeProvider, graphError, type Received, type Reply } from './fakes.js';

export const PAIR_INTERVAL_MS = 6000;
const WINDOW_MS = 24 * 60 * 60 * 1000;

export interface FakeTemplate {
  name: string;
  language: string;
  /** The approved body, with {{1}}, {{2}}, … */
  body: string;
}

export interface FakeWhatsAppOptions {
  phoneNumberId: string;
  token: string;
  appSecret: string;
  templates: FakeTemplate[];
  version?: string;
  /** Messages a burst may hold before the pair must wait (Meta: 45). */
  pairBurst?: number;
}

/** A message the fake accepted. */
export interface AcceptedMessage {
  at: number;
  wamid: string;
  to: string;
  type: 'text' | 'template';
  /** The text, or the template filled in. */
  text: string;
}

export interface PlatformWebhook {
  raw: string;
  signature: string;
}

interface Pair {
  burstStart: number;
  count: number;
  /** When the borrowed time is repaid: a new burst may start then. */
  freeAt: number;
}

const TEMPLATE_PARAM_FORBIDDEN = /[\n\t]| {5}/;

export class FakeWhatsApp {
  readonly provider: FakeProvider;
  readonly accepted: AcceptedMessage[] = [];
  /** Refusals, by Graph code, in order. */
  readonly refusals: number[] = [];
  /** The fake's clock (the service's manual clock in tests). */
  now: () => number = Date.now;
  private readonly windows = new Map<string, number>();
  private readonly pairs = new Map<string, Pair>();
  private readonly pending: unknown[] = [];

  constructor(private readonly o: FakeWhatsAppOptions) {
    this.provider = new FakeProvider((req) => this.answer(req));
  }

  async start(): Promise<this> {
    await this.provider.start();
    return this;
  }

  get url(): string {
    return this.provider.url;
  }

  stop(): Promise<void> {
    return this.provider.stop();
  }

  /** Forgets everything: requests, messages, windows, pairs and webhooks not taken. */
  reset(): void {
    this.provider.reset();
    this.accepted.length = 0;
    this.refusals.length = 0;
    this.windows.clear();
    this.pairs.clear();
    this.pending.length = 0;
  }

  /** The requests received, in order. */
  get received(): Received[] {
    return this.provider.received;
  }

  /** A user writes to the business number: their window opens, and the platform tells the webhook. */
  userWrites(waId: string, text = 'ok'): void {
    const at = this.now();
    this.windows.set(waId, at);
    this.pending.push({
      contacts: [{ profile: { name: 'Trader' }, wa_id: waId }],
      messages: [{ from: waId, id: this.wamid(), timestamp: String(Math.floor(at / 1000)), type: 'text', text: { body: text } }],
    });
  }

  /** The platform loses track of a user's window (another device, a number that moved): the next text fails with 131047. */
  forgetWindow(waId: string): void {
    this.windows.delete(waId);
  }

  /** The webhooks the platform would have POSTed since the last call, each signed. */
  takeWebhooks(): PlatformWebhook[] {
    return this.pending.splice(0).map((value) => {
      const raw = JSON.stringify({
        object: 'whatsapp_business_account',
        entry: [
          {
            id: '102290129340398',
            changes: [
              { field: 'messages', value: { messaging_product: 'whatsapp', metadata: { phone_number_id: this.o.phoneNumberId }, ...(value as object) } },
            ],
          },
        ],
      });
      return { raw, signature: `sha256=${createHmac('sha256', this.o.appSecret).update(raw).digest('hex')}` };
    });
  }

  private wamid(): string {
    return `wamid.${randomBytes(12).toString('base64url')}`;
  }

  private refuse(status: number, code: number, message: string, details?: string): Reply {
    this.refusals.push(code);
    return graphError(status, code, message, details);
  }

  /** Meta's pair rate limit: whether one more message to `to` passes now (and counts it). */
  private takesPairTurn(to: string, now: number): boolean {
    const burst = this.o.pairBurst ?? 45;
    const pair = this.pairs.get(to);
    if (!pair || now >= pair.freeAt) {
      this.pairs.set(to, { burstStart: now, count: 1, freeAt: now + PAIR_INTERVAL_MS });
      return true;
    }
    if (now < pair.burstStart + PAIR_INTERVAL_MS && pair.count < burst) {
      pair.count += 1;
      pair.freeAt += PAIR_INTERVAL_MS;
      return true;
    }
    return false;
  }

  private template(body: Record<string, unknown>): { text: string } | Reply {
    const t = body.template as { name?: string; language?: { code?: string }; components?: { type?: string; parameters?: { text?: string }[] }[] };
    const approved = this.o.templates.find((a) => a.name === t?.name && a.language === t?.language?.code);
    if (!approved) {
      return this.refuse(
        404,
        132001,
        '(#132001) Template name does not exist in the translation',
        `template name (${t?.name}) does not exist in ${t?.language?.code}`,
      );
    }
    const values = (t.components?.find((c) => c.type === 'body')?.parameters ?? []).map((p) => p.text ?? '');
    const wanted = new Set(approved.body.match(/\{\{\d+\}\}/g) ?? []).size;
    if (values.length !== wanted) {
      return this.refuse(
        400,
        132000,
        '(#132000) Number of parameters does not match the expected number of params',
        `body: number of localizable_params (${values.length}) does not match the expected number of params (${wanted})`,
      );
    }
    if (values.some((v) => v.length === 0 || TEMPLATE_PARAM_FORBIDDEN.test(v))) {
      return this.refuse(
        400,
        132018,
        '(#132018) There was an issue with the parameters in your template.',
        'Param text cannot have new-line/tab characters or more than 4 consecutive spaces',
      );
    }
    const text = approved.body.replace(/\{\{(\d+)\}\}/g, (_m, i: string) => values[Number(i) - 1] ?? '');
    if (text.length > 1024) return this.refuse(400, 132005, '(#132005) Translated text too long');
    return { text };
  }

  private answer(req: Received): Reply {
    const version = this.o.version ?? 'v23.0';
    if (req.headers.authorization !== `Bearer ${this.o.token}`) return this.refuse(401, 190, 'Invalid OAuth access token - Cannot parse access token');
    if (req.path !== `/${version}/${this.o.phoneNumberId}/messages`) return this.refuse(400, 100, 'Unsupported post request.');
    const body = req.json ?? {};
    if (body.messaging_product !== 'whatsapp') return this.refuse(400, 100, '(#100) The parameter messaging_product is required.');
    const to = String(body.to);
    const now = this.now();
    let text: string;
    if (body.type === 'template') {
      const filled = this.template(body);
      if ('status' in filled) return filled;
      text = filled.text;
    } else {
      text = (body.text as { body?: string } | undefined)?.body ?? '';
      if (text.length === 0 || text.length > 4096) return this.refuse(400, 100, '(#100) Invalid parameter', 'text.body must be 1 to 4096 characters');
    }
    if (!this.takesPairTurn(to, now)) {
      return this.refuse(
        400,
        131056,
        '(#131056) (Business Account, Consumer Account) pair rate limit hit',
        'Message failed to send because there were too many messages sent from this phone number to the same phone number in a short period of time.',
      );
    }
    const wamid = this.wamid();
    const type = body.type === 'template' ? 'template' : 'text';
    this.accepted.push({ at: now, wamid, to, type, text });
    const opened = this.windows.get(to);
    const outside = type === 'text' && (opened === undefined || now >= opened + WINDOW_MS);
    const status = {
      id: wamid,
      status: outside ? 'failed' : 'sent',
      timestamp: String(Math.floor(now / 1000)),
      recipient_id: to,
      ...(typeof body.biz_opaque_callback_data === 'string' ? { biz_opaque_callback_data: body.biz_opaque_callback_data } : {}),
      ...(outside
        ? {
            errors: [
              {
                code: 131047,
                title: 'Re-engagement message',
                message: 'Re-engagement message',
                error_data: { details: 'Message failed to send because more than 24 hours have passed since the customer last replied to this number.' },
              },
            ],
          }
        : {}),
    };
    this.pending.push({ statuses: [status] });
    return { status: 200, body: { messaging_product: 'whatsapp', contacts: [{ input: to, wa_id: to }], messages: [{ id: wamid }] } };
  }
}
