/**
 * SMS through the Twilio Messages API (https://www.twilio.com/docs/messaging/api/message-resource#create-a-message-resource).
 *
 * - `POST {base}/2010-04-01/Accounts/{AccountSid}/Messages.json`, HTTP basic auth
 *   `AccountSid:AuthToken`, form-encoded `To`, `From` (or `MessagingServiceSid` for an MG… sender)
 *   and `Body` (at most 1600 characters).
 * - Success: 201 with the Message resource; the provider id is its `sid` (SM…). Its status is
 *   `queued` (`accepted` through a Messaging Service): taken, not sent
 *   (https://www.twilio.com/docs/messaging/guides/outbound-message-status-in-status-callbacks),
 *   so the delivery is recorded `queued`. With a `StatusCallback` URL Twilio then reports each
 *   later status (sending, sent, delivered, undelivered, failed) to it; see sms-status.ts.
 * - Failure (https://www.twilio.com/docs/usage/twilios-response#response-formats-exceptions):
 *   `{ "code", "message", "more_info", "status" }`; 429 (error 20429) "is never processed and is
 *   always safe to retry", with `Retry-After`.
 * - 21611 (https://www.twilio.com/docs/api/errors/21611): the sender's queue already holds 10
 *   hours of messages at its rate (a US long code sends one segment a second), so Twilio refuses
 *   to create more on it. Nothing was created and the queue drains at the sender's rate: retried.
 * - A 5xx says the request failed, not whether the Message was created before it did: in doubt,
 *   so an at-most-once SMS is never sent again (the outbox fails it `outcome_unknown`); its
 *   status callback, when Twilio did create it, still tells what became of it.
 */
import { bodyExcerpt, HttpTransport, isSuccess, providerRefusal, type HttpClient, type HttpResponse } from './http.js';
import type { OutboundMessage, ProviderRequest, Transport } from './transport.js';
import { plainText } from '../render.js';
import { gsm7LookAlikes } from './gsm7.js';

export const TWILIO_MAX_BODY = 1600;
const QUEUE_FULL = 21611;
/** Where Twilio reports a message's status, below PUBLIC_BASE_URL. */
export const SMS_STATUS_PATH = '/webhooks/sms';

export interface TwilioOptions {
  baseUrl: string;
  accountSid: string;
  authToken: string;
  from: string;
  /** PUBLIC_BASE_URL: each message's StatusCallback is `{it}/webhooks/sms?delivery={delivery id}`; unset, none is asked for. */
  publicBaseUrl?: string;
}

export function twilioRequest(options: TwilioOptions, message: OutboundMessage): ProviderRequest {
  const form = new URLSearchParams();
  form.set('To', message.recipient);
  if (/^MG[0-9a-fA-F]{32}$/.test(options.from)) form.set('MessagingServiceSid', options.from);
  else form.set('From', options.from);
  // GSM-7 where the message allows: a single UCS-2 character (a bullet or an ellipsis of our own
  // rendering, a typographic quote) bills the whole body at 67 characters a segment instead of 153.
  form.set('Body', plainText(message, TWILIO_MAX_BODY, { adapt: gsm7LookAlikes, ellipsis: '...' }));
  // Our delivery id in the URL finds the record even before the sid is stored, or when it never is (a 5xx).
  if (options.publicBaseUrl) form.set('StatusCallback', `${options.publicBaseUrl}${SMS_STATUS_PATH}?delivery=${encodeURIComponent(message.deliveryId)}`);
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

function readTwilioReply(res: HttpResponse, now: () => number): string {
  const reply = (res.json ?? {}) as TwilioReply;
  if (isSuccess(res) && typeof reply.sid === 'string') return reply.sid;
  const message = reply.message ? `${reply.message}${reply.more_info ? ` (${reply.more_info})` : ''}` : bodyExcerpt(res.text);
  throw providerRefusal(res, { code: reply.code, message }, now, {
    retryable: reply.code === QUEUE_FULL ? true : undefined,
    inDoubt: res.status >= 500,
  });
}

export function twilioTransport(options: TwilioOptions, http: HttpClient, now: () => number): Transport {
  const transport = new HttpTransport(
    'twilio',
    http,
    (message) => twilioRequest(options, message),
    (res) => readTwilioReply(res, now),
  );
  return { provider: 'twilio', send: async (message) => ({ ...(await transport.send(message)), queued: true }) };
}
