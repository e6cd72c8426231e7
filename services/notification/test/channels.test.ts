import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { DeliveryRecord } from '@fxdesk/schemas';
import {
  fakeTelegram,
  fakeTwilio,
  fakeWhatsApp,
  FakeSmtp,
  graphError,
  parseMail,
  parseTelegramHtml,
  telegramError,
  twilioError,
  type FakeProvider,
} from './fakes.js';
import { drainOutbox, startService, type Harness } from './harness.js';

const TOKEN = '123456:ABC-test-token';
const SID = `AC${'0123456789abcdef'.repeat(2)}`;
const AUTH = 'twilio-auth-token';
const PHONE_ID = '106540352242922';
const WA_TOKEN = 'EAAG-test-token';

let service: Harness | undefined;
afterEach(async () => {
  await service?.close();
  service = undefined;
});

function records(h: Harness, requestBody: { deliveryIds?: unknown }): Promise<DeliveryRecord[]> {
  return Promise.all((requestBody.deliveryIds as string[]).map(async (id) => (await h.store.get(id)) as DeliveryRecord));
}

async function sendOne(h: Harness, channel: string, extra: Record<string, unknown> = {}): Promise<DeliveryRecord[]> {
  const res = await h.notify({ message: 'EUR_USD long filled at 1.0850', channels: [channel], source: 'strategy', ...extra });
  expect(res.statusCode).toBe(201);
  await h.outbox.settle();
  return records(h, res.json);
}

describe('CHAT_APP through the Telegram Bot API', () => {
  let telegram: FakeProvider;
  beforeAll(async () => {
    // Judged by the clock of the service under test: the Bot FAQ's limits hold in its time.
    telegram = await fakeTelegram(TOKEN, { now: () => service?.clock.now() ?? Date.now() }).start();
  });
  afterAll(() => telegram.stop());
  afterEach(() => telegram.reset());

  const env = (more: Record<string, string> = {}) => ({
    CHAT_APP_BOT_TOKEN: TOKEN,
    CHAT_APP_BASE_URL: telegram.url,
    CHAT_APP_CHAT_IDS: '111,@fx_alerts',
    ...more,
  });

  it('sends sendMessage in HTML mode to every chat and stores each message_id', async () => {
    service = await startService(env());
    const sent = await sendOne(service, 'CHAT_APP', { subject: 'Fill' });
    expect(telegram.received).toHaveLength(2);
    expect(telegram.received.map((r) => r.json?.chat_id)).toEqual([111, '@fx_alerts']);
    expect(telegram.received[0]?.json).toMatchObject({ parse_mode: 'HTML', text: '<b>Fill</b>\nEUR_USD long filled at 1.0850' });
    expect(sent.map((d) => d.status)).toEqual(['sent', 'sent']);
    expect(sent[0]).toMatchObject({ provider: 'telegram', providerMessageId: expect.stringMatching(/^\d+$/), attempts: 1, error: null });
  });

  it('sends HTML as the Telegram subset, escaped, in messages of at most 4096 characters', async () => {
    service = await startService(env({ CHAT_APP_CHAT_IDS: '111' }));
    const message = `<h1>Report</h1><p>P&amp;L <b>+12</b> <span style="x">on</span> <i>EUR<u>USD</i></u></p><table><tr><td>${'x<y '.repeat(2000)}</td></tr></table>`;
    const [d] = await sendOne(service, 'CHAT_APP', { message, contentType: 'html' });
    await drainOutbox(service);
    expect((await service.store.get(d?.id as string))?.status).toBe('sent');
    const texts = telegram.received.map((r) => String(r.json?.text));
    const visible = texts.map((t) => parseTelegramHtml(t)).map((p) => ('visible' in p ? p.visible : p.error));
    // The cut falls on the last line break that fits; the 8,000-character line after it is cut at the limit.
    expect(visible.map((v) => v.length)).toEqual([expect.any(Number), 4096, expect.any(Number)]);
    expect(texts[0]).toBe('<b>Report</b>\n\nP&amp;L <b>+12</b> on <i>EUR<u>USD</u></i>');
    expect(visible.join('').replace(/\s/g, '')).toBe(`ReportP?L+12onEURUSD${'x?y'.repeat(2000)}`);
  });

  it('waits retry_after after a 429, then sends again', async () => {
    service = await startService(env({ CHAT_APP_CHAT_IDS: '111' }));
    telegram.next(telegramError(429, 'Too Many Requests: retry after 7', { retry_after: 7 }));
    const [first] = await sendOne(service, 'CHAT_APP');
    // A flood wait is not a failure: the attempt is given back.
    expect(first).toMatchObject({ status: 'pending', attempts: 0, error: { code: '429', message: 'Too Many Requests: retry after 7', httpStatus: 429 } });
    expect(Date.parse(first?.nextAttemptAt as string) - service.clock.now()).toBe(7000);
    await service.clock.advanceAsync(6999);
    await service.outbox.settle();
    expect(telegram.received).toHaveLength(1);
    await service.clock.advanceAsync(1);
    await service.outbox.settle();
    expect(telegram.received).toHaveLength(2);
    expect(await service.store.get(first?.id as string)).toMatchObject({ status: 'sent', attempts: 1, error: null });
  });

  it('retries a 5xx with exponential backoff (full jitter, here half of each ceiling)', async () => {
    service = await startService(env({ CHAT_APP_CHAT_IDS: '111', RETRY_BASE_MS: '1000' }));
    telegram.next(telegramError(500, 'Internal Server Error'), telegramError(502, 'Bad Gateway'));
    const [d] = await sendOne(service, 'CHAT_APP');
    expect(d).toMatchObject({ status: 'pending', attempts: 1 });
    expect(Date.parse(d?.nextAttemptAt as string) - service.clock.now()).toBe(500);
    await service.clock.advanceAsync(500);
    await service.outbox.settle();
    const second = await service.store.get(d?.id as string);
    expect(second).toMatchObject({ status: 'pending', attempts: 2, error: { code: '502' } });
    expect(Date.parse(second?.nextAttemptAt as string) - service.clock.now()).toBe(1000);
    await service.clock.advanceAsync(1000);
    await service.outbox.settle();
    expect(await service.store.get(d?.id as string)).toMatchObject({ status: 'sent', attempts: 3 });
    expect(telegram.received).toHaveLength(3);
  });

  it('fails a permanent 4xx at once with the provider error', async () => {
    service = await startService(env({ CHAT_APP_CHAT_IDS: '404' }));
    const [d] = await sendOne(service, 'CHAT_APP');
    expect(d).toMatchObject({
      status: 'failed',
      attempts: 1,
      provider: 'telegram',
      error: { code: '400', message: 'Bad Request: chat not found', httpStatus: 400 },
    });
    await service.clock.advanceAsync(600_000);
    await service.outbox.settle();
    expect(telegram.received).toHaveLength(1);
  });

  it('gives up after MAX_DELIVERY_ATTEMPTS retryable failures', async () => {
    service = await startService(env({ CHAT_APP_CHAT_IDS: '111', MAX_DELIVERY_ATTEMPTS: '2' }));
    telegram.next(telegramError(503, 'Service Unavailable'), telegramError(503, 'Service Unavailable'));
    const [d] = await sendOne(service, 'CHAT_APP');
    await service.clock.advanceAsync(1000);
    await service.outbox.settle();
    expect(await service.store.get(d?.id as string)).toMatchObject({
      status: 'failed',
      attempts: 2,
      error: { code: '503', message: 'Service Unavailable (gave up after 2 attempts)' },
    });
  });

  it('retries when the provider cannot be reached', async () => {
    service = await startService(env({ CHAT_APP_CHAT_IDS: '111', CHAT_APP_BASE_URL: 'http://127.0.0.1:9' }));
    const [d] = await sendOne(service, 'CHAT_APP');
    expect(d).toMatchObject({ status: 'pending', attempts: 1, error: { code: 'network_error' } });
  });
});

describe('SMS through the Twilio Messages API', () => {
  let twilio: FakeProvider;
  beforeAll(async () => {
    twilio = await fakeTwilio(SID, AUTH).start();
  });
  afterAll(() => twilio.stop());
  afterEach(() => twilio.reset());

  const env = (more: Record<string, string> = {}) => ({
    SMS_ACCOUNT_SID: SID,
    SMS_AUTH_TOKEN: AUTH,
    SMS_FROM: '+14155550000',
    SMS_BASE_URL: twilio.url,
    SMS_TO: '+14155550100,+447700900123',
    ...more,
  });

  it('posts To, From and the plain-text Body form-encoded with basic auth, storing each SID as queued', async () => {
    service = await startService(env());
    const sent = await sendOne(service, 'SMS', { subject: 'Fill', message: '<p>Long <b>EUR_USD</b> &amp; done</p>', contentType: 'html' });
    expect(twilio.received.map((r) => r.form)).toEqual([
      { To: '+14155550100', From: '+14155550000', Body: 'Fill\nLong EUR_USD & done' },
      { To: '+447700900123', From: '+14155550000', Body: 'Fill\nLong EUR_USD & done' },
    ]);
    expect(sent.every((d) => d.status === 'queued' && d.provider === 'twilio' && /^SM[0-9a-f]{32}$/.test(d.providerMessageId ?? ''))).toBe(true);
  });

  it('cuts a body over 1600 characters', async () => {
    service = await startService(env({ SMS_TO: '+14155550100' }));
    const [d] = await sendOne(service, 'SMS', { message: 'x'.repeat(5000) });
    expect(d?.status).toBe('queued');
    expect(twilio.received[0]?.form?.Body).toHaveLength(1600);
  });

  it('waits Retry-After after a 429, then sends again', async () => {
    service = await startService(env({ SMS_TO: '+14155550100' }));
    twilio.next(twilioError(429, 20429, 'Too Many Requests', { 'retry-after': '3' }));
    const [d] = await sendOne(service, 'SMS');
    expect(d).toMatchObject({ status: 'pending', error: { code: '20429', httpStatus: 429 } });
    expect(Date.parse(d?.nextAttemptAt as string) - service.clock.now()).toBe(3000);
    await service.clock.advanceAsync(3000);
    await service.outbox.settle();
    expect(await service.store.get(d?.id as string)).toMatchObject({ status: 'queued', attempts: 2 });
  });

  it('retries a 503 with backoff', async () => {
    service = await startService(env({ SMS_TO: '+14155550100' }));
    twilio.next(twilioError(503, 20503, 'Service Unavailable'));
    const [d] = await sendOne(service, 'SMS');
    expect(d).toMatchObject({ status: 'pending', error: { code: '20503' } });
    await service.clock.advanceAsync(500);
    await service.outbox.settle();
    expect(await service.store.get(d?.id as string)).toMatchObject({ status: 'queued', attempts: 2 });
  });

  it("fails a 400 at once with Twilio's code and message", async () => {
    service = await startService(env({ SMS_TO: '+14155550100' }));
    twilio.next(twilioError(400, 21211, "Invalid 'To' Phone Number: +14155550100"));
    const [d] = await sendOne(service, 'SMS');
    expect(d).toMatchObject({
      status: 'failed',
      error: { code: '21211', message: "Invalid 'To' Phone Number: +14155550100 (https://www.twilio.com/docs/errors/21211)", httpStatus: 400 },
    });
  });

  it('sends through a Messaging Service when SMS_FROM is an MG sid', async () => {
    const mg = `MG${'ab'.repeat(16)}`;
    service = await startService(env({ SMS_TO: '+14155550100', SMS_FROM: mg }));
    await sendOne(service, 'SMS');
    expect(twilio.received[0]?.form).toMatchObject({ MessagingServiceSid: mg });
    expect(twilio.received[0]?.form?.From).toBeUndefined();
  });
});

describe('MESSENGER_APP through the WhatsApp Cloud API', () => {
  let whatsapp: FakeProvider;
  beforeAll(async () => {
    whatsapp = await fakeWhatsApp(PHONE_ID, WA_TOKEN).start();
  });
  afterAll(() => whatsapp.stop());
  afterEach(() => whatsapp.reset());

  const env = (more: Record<string, string> = {}) => ({
    MESSENGER_APP_TOKEN: WA_TOKEN,
    MESSENGER_APP_PHONE_NUMBER_ID: PHONE_ID,
    MESSENGER_APP_BASE_URL: whatsapp.url,
    MESSENGER_APP_TO: '+14155550100',
    ...more,
  });

  it('posts a text message with the bearer token and stores messages[0].id', async () => {
    service = await startService(env());
    const [d] = await sendOne(service, 'MESSENGER_APP', { subject: 'Fill' });
    expect(whatsapp.received[0]?.json).toEqual({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: '14155550100',
      type: 'text',
      text: { preview_url: false, body: 'Fill\nEUR_USD long filled at 1.0850' },
      biz_opaque_callback_data: d?.id,
    });
    expect(d).toMatchObject({ status: 'sent', provider: 'whatsapp', providerMessageId: expect.stringMatching(/^wamid\./) });
  });

  it('waits Retry-After after a 429, then sends again', async () => {
    service = await startService(env());
    whatsapp.next({ ...graphError(429, 4, '(#4) Application request limit reached'), headers: { 'retry-after': '2' } });
    const [d] = await sendOne(service, 'MESSENGER_APP');
    expect(d).toMatchObject({ status: 'pending', error: { code: '4', httpStatus: 429 } });
    expect(Date.parse(d?.nextAttemptAt as string) - service.clock.now()).toBe(2000);
    await service.clock.advanceAsync(2000);
    await service.outbox.settle();
    expect(await service.store.get(d?.id as string)).toMatchObject({ status: 'sent', attempts: 2 });
  });

  it('retries the throttling code 130429 even when it comes with a 400', async () => {
    service = await startService(env());
    whatsapp.next(
      graphError(
        400,
        130429,
        '(#130429) Rate limit hit',
        'Message failed to send because there were too many messages sent from this phone number in a short period of time',
      ),
    );
    const [d] = await sendOne(service, 'MESSENGER_APP');
    expect(d).toMatchObject({ status: 'pending', error: { code: '130429' } });
    await service.clock.advanceAsync(500);
    await service.outbox.settle();
    expect((await service.store.get(d?.id as string))?.status).toBe('sent');
  });

  it('retries a 500 with backoff', async () => {
    service = await startService(env());
    whatsapp.next(graphError(500, 131000, '(#131000) Something went wrong'));
    const [d] = await sendOne(service, 'MESSENGER_APP');
    expect(d).toMatchObject({ status: 'pending', error: { code: '131000', httpStatus: 500 } });
    await service.clock.advanceAsync(500);
    await service.outbox.settle();
    expect((await service.store.get(d?.id as string))?.status).toBe('sent');
  });

  it('fails a permanent 400 at once with the Graph error', async () => {
    service = await startService(env());
    whatsapp.next(
      graphError(
        400,
        131030,
        '(#131030) Recipient phone number not in allowed list',
        'Recipient phone number not in allowed list: Add recipient phone number to recipient list and try again.',
      ),
    );
    const [d] = await sendOne(service, 'MESSENGER_APP');
    expect(d).toMatchObject({
      status: 'failed',
      error: {
        code: '131030',
        message:
          '(#131030) Recipient phone number not in allowed list: Recipient phone number not in allowed list: Add recipient phone number to recipient list and try again.',
      },
    });
  });

  it('fails on a bad token with the OAuth error', async () => {
    service = await startService(env({ MESSENGER_APP_TOKEN: 'wrong' }));
    const [d] = await sendOne(service, 'MESSENGER_APP');
    expect(d).toMatchObject({ status: 'failed', error: { code: '190', httpStatus: 401 } });
  });
});

describe('EMAIL through SMTP', () => {
  let smtp: FakeSmtp;
  beforeAll(async () => {
    smtp = await new FakeSmtp().start();
  });
  afterAll(() => smtp.stop());
  afterEach(() => {
    smtp.mails.length = 0;
    smtp.reject = () => undefined;
  });

  const env = (more: Record<string, string> = {}) => ({
    EMAIL_SMTP_URL: smtp.url,
    EMAIL_FROM: 'fxdesk <desk@example.com>',
    EMAIL_TO: 'trader@example.com,risk@example.com',
    ...more,
  });

  it('delivers to every recipient with the subject, an html part and a text part', async () => {
    service = await startService(env());
    const sent = await sendOne(service, 'EMAIL', {
      subject: 'Daily P&L',
      contentType: 'html',
      message: '<h2>Summary</h2><p>EUR_USD <b>+42.10</b> &euro;</p><ul><li>3 fills</li><li>0 rejects</li></ul>',
    });
    expect(smtp.mails.map((m) => m.to).sort()).toEqual([['risk@example.com'], ['trader@example.com']]);
    for (const mail of smtp.mails) {
      const parsed = parseMail(mail.raw);
      const delivery = sent.find((d) => d.recipient === mail.to[0]);
      expect(mail.from).toBe('desk@example.com');
      expect(parsed.subject).toBe('Daily P&L');
      expect(parsed.html).toBe('<h2>Summary</h2><p>EUR_USD <b>+42.10</b> &euro;</p><ul><li>3 fills</li><li>0 rejects</li></ul>');
      expect(parsed.text).toBe('Summary\n\nEUR_USD +42.10 &euro;\n\n• 3 fills\n• 0 rejects');
      expect(parsed.messageId).toBe(`<${delivery?.id}@fxdesk.notification>`);
    }
    expect(sent.map((d) => [d.status, d.provider, d.providerMessageId])).toEqual(sent.map((d) => ['sent', 'smtp', `<${d.id}@fxdesk.notification>`]));
  });

  it('sends a text message as text with an escaped html alternative', async () => {
    service = await startService(env({ EMAIL_TO: 'trader@example.com' }));
    await sendOne(service, 'EMAIL', { message: 'a < b\nnext line' });
    const parsed = parseMail(smtp.mails[0]?.raw ?? '');
    expect(parsed.subject).toBe('a < b');
    expect(parsed.text).toBe('a < b\nnext line');
    expect(parsed.html).toBe('<div style="white-space:pre-wrap">a &lt; b\nnext line</div>');
  });

  it('retries a 4xx SMTP reply and fails a 5xx one with the server reply', async () => {
    service = await startService(env());
    smtp.reject = (to) => (to === 'trader@example.com' ? 451 : 550);
    const [temp, perm] = await sendOne(service, 'EMAIL', { subject: 's' });
    expect(temp).toMatchObject({ status: 'pending', error: { code: '451' } });
    expect(perm).toMatchObject({ status: 'failed', error: { code: '550', message: expect.stringContaining('mailbox unavailable') } });
    smtp.reject = () => undefined;
    await service.clock.advanceAsync(500);
    await service.outbox.settle();
    expect(await service.store.get(temp?.id as string)).toMatchObject({ status: 'sent', attempts: 2 });
    expect(smtp.mails.map((m) => m.to)).toEqual([['trader@example.com']]);
  });
});

describe('a channel without credentials', () => {
  it('goes to the sandbox: sent, provider sandbox, the exact request recorded with placeholders for the credentials', async () => {
    service = await startService({ CHAT_APP_CHAT_IDS: '111', SMS_TO: '+14155550100' });
    const [chat, sms] = await sendOne(service, 'CHAT_APP', { channels: ['CHAT_APP', 'SMS'], subject: 'S' });
    expect(chat).toMatchObject({ status: 'sent', provider: 'sandbox', providerMessageId: `sandbox-${chat?.id}` });
    expect(chat?.sandboxRequest).toEqual({
      method: 'POST',
      url: 'https://api.telegram.org/bot<CHAT_APP_BOT_TOKEN>/sendMessage',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ chat_id: 111, text: '<b>S</b>\nEUR_USD long filled at 1.0850', parse_mode: 'HTML', link_preview_options: { is_disabled: true } }),
    });
    expect(sms?.sandboxRequest).toMatchObject({
      url: 'https://api.twilio.com/2010-04-01/Accounts/%3CSMS_ACCOUNT_SID%3E/Messages.json',
      body: 'To=%2B14155550100&From=%3CSMS_FROM%3E&Body=S%0AEUR_USD+long+filled+at+1.0850',
    });
  });
});
