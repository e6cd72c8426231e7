/**
 * SMS through the Twilio Messages API (https://www.twilio.com/docs/messaging/api/message-resource#create-a-message-resource).
 *
 * - `POST {base}/2010-04-01/Accounts/{AccountSid}/Messages.json`, HTTP basic auth
 *   `AccountSid:AuthToken`, form-encoded `To`, `From` (or `MessagingServiceSid` for an MG… sender)
 *   and `Body` (at most 1600 characters).
 * - Success: 201 with the Message resource; the provider id is its `sid` (SM…).
 * - Failure (https://www.twilio.com/docs/usage/twilios-response#response-formats-exceptions):
 *   `{ "code", "message", "more_info", "status" }`; 429 (error 20429) "is never processed and is
 *   always safe to retry", with `Retry-After`.
 */
import { retryAfterMs } from '@fxdesk/primitives';
import { bodyExcerpt, type HttpClient } from './http.js';
import { DeliveryError, isRetryableStatus, type OutboundMessage, type ProviderRequest, type SendResult, type Transport } from './transport.js';
import { plainText } from '../render.js';

export const TWILIO_MAX_BODY = 1600;

export interface TwilioOptions {
  baseUrl: string;
  accountSid: string;
  authToken: string;
  from: string;
}

export function twilioRequest(options: TwilioOptions, message: OutboundMessage): ProviderRequest {
  const form = new URLSearchParams();
  form.set('To', message.recipient);
  if (/^MG[0-9a-fA-F]{32}$/.test(options.from)) form.set('MessagingServiceSid', options.from);
  else form.set('From', options.from);
  form.set('Body', plainText(message, TWILIO_MAX_BODY));
  return {
    method: 'POST',
    url: `${options.baseUrl}/2010-04-01/Accounts/${encodeURIComponent(options.accountSid)}/Messages.json`,
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${options.accountSid}:${options.authToken}`).toString('base64')}`,
    },
    body: form.toString(),
  };
}

interface TwilioReply {
  sid?: string;
  code?: number;
  message?: string;
  more_info?: string;
}

export class TwilioTransport implements Transport {
  readonly provider = 'twilio' as const;

  constructor(
    private readonly options: TwilioOptions,
    private readonly http: HttpClient,
    private readonly now: () => number,
  ) {}

  async send(message: OutboundMessage): Promise<SendResult> {
    const req = twilioRequest(this.options, message);
    const res = await this.http.post(req.url, { headers: req.headers, body: req.body });
    const reply = (res.json ?? {}) as TwilioReply;
    if (res.status >= 200 && res.status < 300 && typeof reply.sid === 'string') {
      return { provider: this.provider, providerMessageId: reply.sid };
    }
    throw new DeliveryError(
      {
        code: String(reply.code ?? res.status),
        message: reply.message ? `${reply.message}${reply.more_info ? ` (${reply.more_info})` : ''}` : bodyExcerpt(res.text),
        httpStatus: res.status,
      },
      { retryable: isRetryableStatus(res.status), retryAfterMs: retryAfterMs(res.headers['retry-after'], this.now()) },
    );
  }
}
