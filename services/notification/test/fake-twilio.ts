/**
 * A local Twilio Messages API that keeps the messages it creates and reports on them as Twilio
 * does (https://www.twilio.com/docs/messaging/api/message-resource,
 * https://www.twilio.com/docs/messaging/guides/outbound-message-status-in-status-callbacks):
 *
 * - 201 with the Message resource in status `queued` (`accepted` through a Messaging Service);
 *   no callback is sent for that first status.
 * - Each sender's queue holds `queueCapacity` messages (Twilio: 10 hours at the sender's rate);
 *   past it, 400 with error 21611 and nothing created. `drain()` empties the queues.
 * - `failAfterCreating()`: the next create stores the message, then answers 500.
 * - `report(sid, status)`: a status callback to the message's `StatusCallback`, form-encoded
 *   (MessageSid, MessageStatus, ErrorCode on failures, …) and signed with `X-Twilio-Signature`:
 *   base64 HMAC-SHA1, keyed by the auth token, of the URL followed by every parameter's name
 *   and value, sorted by name (https://www.twilio.com/docs/usage/webhooks/webhooks-security).
 */
import { createHmac, randomBytes } from 'node:crypto';
import { FakeProvider, twilioError, type Reply } from './fakes.js';

export interface FakeMessage {
  sid: string;
  to: string;
  from: string;
  body: string;
  statusCallback: string | undefined;
}

/** A webhook request as Twilio would send it. */
export interface Callback {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** The signature Twilio puts in `X-Twilio-Signature` for a POST of `params` to `url`. */
export function twilioSignature(authToken: string, url: string, params: Record<string, string>): string {
  const data = Object.keys(params)
    .sort()
    .reduce((acc, name) => acc + name + params[name], url);
  return createHmac('sha1', authToken).update(data, 'utf8').digest('base64');
}

export class FakeTwilio {
  readonly messages: FakeMessage[] = [];
  readonly provider: FakeProvider;
  queueCapacity = Number.POSITIVE_INFINITY;
  private readonly queued = new Map<string, number>();
  private failures = 0;

  constructor(
    private readonly accountSid: string,
    private readonly authToken: string,
  ) {
    this.provider = new FakeProvider((req) => this.create(req.headers.authorization, req.path, req.form ?? {}));
  }

  async start(): Promise<this> {
    await this.provider.start();
    return this;
  }

  get url(): string {
    return this.provider.url;
  }

  /** The next create stores its message and answers 500 as if it had failed. */
  failAfterCreating(): void {
    this.failures += 1;
  }

  /** Every sender's queue has gone out to the carriers. */
  drain(): void {
    this.queued.clear();
  }

  reset(): void {
    this.provider.reset();
    this.messages.length = 0;
    this.queued.clear();
    this.failures = 0;
    this.queueCapacity = Number.POSITIVE_INFINITY;
  }

  stop(): Promise<void> {
    return this.provider.stop();
  }

  /** The status callback Twilio sends for `sid` (signed with `authToken`, the account's unless a test forges one). */
  report(sid: string, status: string, options: { errorCode?: number; authToken?: string } = {}): Callback {
    const message = this.messages.find((m) => m.sid === sid);
    if (!message?.statusCallback) throw new Error(`message ${sid} has no StatusCallback`);
    const params: Record<string, string> = {
      AccountSid: this.accountSid,
      ApiVersion: '2010-04-01',
      From: message.from,
      MessageSid: sid,
      MessageStatus: status,
      SmsSid: sid,
      SmsStatus: status,
      To: message.to,
    };
    if (options.errorCode !== undefined) params.ErrorCode = String(options.errorCode);
    return {
      url: message.statusCallback,
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-twilio-signature': twilioSignature(options.authToken ?? this.authToken, message.statusCallback, params),
      },
      body: new URLSearchParams(params).toString(),
    };
  }

  private create(authorization: string | undefined, path: string, form: Record<string, string>): Reply {
    const expected = `Basic ${Buffer.from(`${this.accountSid}:${this.authToken}`).toString('base64')}`;
    if (authorization !== expected) return twilioError(401, 20003, 'Authenticate');
    if (path !== `/2010-04-01/Accounts/${this.accountSid}/Messages.json`) return twilioError(404, 20404, 'The requested resource was not found');
    if (!/^\+[1-9]\d{6,14}$/.test(form.To ?? '')) return twilioError(400, 21211, `Invalid 'To' Phone Number: ${form.To ?? ''}`);
    const from = form.From ?? form.MessagingServiceSid;
    if (!from) return twilioError(400, 21603, "A 'From' or 'MessagingServiceSid' parameter is required to send a message");
    if ((form.Body ?? '').length > 1600) return twilioError(400, 21617, 'The concatenated message body exceeds the 1600 character limit');
    const waiting = this.queued.get(from) ?? 0;
    if (waiting >= this.queueCapacity) return twilioError(400, 21611, "This 'From' number has exceeded the maximum number of queued messages");
    this.queued.set(from, waiting + 1);
    const sid = `SM${randomBytes(16).toString('hex')}`;
    this.messages.push({ sid, to: form.To as string, from, body: form.Body ?? '', statusCallback: form.StatusCallback });
    if (this.failures > 0) {
      this.failures -= 1;
      return twilioError(500, 20500, 'Internal Server Error');
    }
    return {
      status: 201,
      body: {
        sid,
        account_sid: this.accountSid,
        to: form.To,
        from: form.From ?? null,
        messaging_service_sid: form.MessagingServiceSid ?? null,
        body: form.Body,
        status: form.MessagingServiceSid ? 'accepted' : 'queued',
        direction: 'outbound-api',
        api_version: '2010-04-01',
        error_code: null,
        error_message: null,
        uri: `/2010-04-01/Accounts/${this.accountSid}/Messages/${sid}.json`,
      },
    };
  }
}
