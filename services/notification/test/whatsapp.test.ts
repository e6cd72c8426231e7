import { createHmac } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { DeliveryRecord } from '@fxdesk/schemas';
import { HttpClient } from '../src/channels/http.js';
import type { OutboundMessage } from '../src/channels/transport.js';
import { templateParameters, whatsAppTransport, type MessengerSessions, type WhatsAppTemplate } from '../src/channels/whatsapp.js';
import { FakeWhatsApp, PAIR_INTERVAL_MS } from './fake-whatsapp.js';
import { graphError, type Received } from './fakes.js';
import { startService, type Harness } from './harness.js';

const PHONE_ID = '106540352242922';
const TOKEN = 'EAAG-test-token';
const SECRET = 'app-secret-456';
const ALICE = '14155550100';
const BOB = '14155550101';
const HOUR = 3_600_000;

const TEMPLATES = [
  { name: 'fxdesk_alert', language: 'en_US', body: 'fxdesk alert: {{1}}' },
  { name: 'fxdesk_alert_titled', language: 'en', body: '*{{1}}*: {{2}}' },
];

let wa: FakeWhatsApp;
let h: Harness | undefined;
beforeAll(async () => {
  wa = await new FakeWhatsApp({ phoneNumberId: PHONE_ID, token: TOKEN, appSecret: SECRET, templates: TEMPLATES }).start();
});
afterAll(() => wa.stop());
afterEach(async () => {
  await h?.close();
  h = undefined;
  wa.reset();
});

async function start(env: Record<string, string | undefined> = {}): Promise<Harness> {
  h = await startService({
    MESSENGER_APP_TOKEN: TOKEN,
    MESSENGER_APP_PHONE_NUMBER_ID: PHONE_ID,
    MESSENGER_APP_BASE_URL: wa.url,
    MESSENGER_APP_TO: `+${ALICE}`,
    MESSENGER_APP_APP_SECRET: SECRET,
    MESSENGER_APP_TEMPLATE: 'fxdesk_alert',
    ...env,
  });
  const service = h;
  wa.now = () => service.clock.now();
  return h;
}

/** The platform's webhooks so far, POSTed to the service as Meta posts them; then the outbox's work. */
async function deliverWebhooks(service: Harness): Promise<Record<string, unknown>[]> {
  const acks: Record<string, unknown>[] = [];
  for (const w of wa.takeWebhooks()) {
    const res = await service.app.inject({
      method: 'POST',
      url: '/webhooks/messenger_app',
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': w.signature },
      payload: w.raw,
    });
    expect(res.statusCode).toBe(200);
    acks.push(res.json());
  }
  await service.outbox.settle();
  return acks;
}

async function notify(service: Harness, message = 'EUR_USD long filled at 1.0850', extra: Record<string, unknown> = {}): Promise<string[]> {
  const res = await service.notify({ message, channels: ['MESSENGER_APP'], source: 'strategy', ...extra });
  expect(res.statusCode).toBe(201);
  await service.outbox.settle();
  return res.json.deliveryIds as string[];
}

const record = async (service: Harness, id: string) => (await service.store.get(id)) as DeliveryRecord;

describe('the WhatsApp transport and the approved template', () => {
  const template: WhatsAppTemplate = { name: 'fxdesk_alert', language: 'en_US', parameters: ['message'] };
  const message = (recipient: string): OutboundMessage => ({
    deliveryId: `d-${recipient}`,
    channel: 'MESSENGER_APP',
    recipient,
    message: 'EUR_USD long filled\nSL 1.0800  TP 1.0900',
    contentType: 'text',
    subject: 'Fill',
  });
  let http: HttpClient;
  beforeEach(() => {
    http = new HttpClient(5000);
  });
  afterEach(() => http.close());

  function transport(lastInbound: Record<string, number>, closed: string[] = []) {
    const now = Date.UTC(2026, 0, 5, 12);
    wa.now = () => now;
    const sessions: MessengerSessions = {
      lastInboundAt: async (waId) => lastInbound[waId],
      closeSession: async (waId) => {
        closed.push(waId);
      },
    };
    return {
      now,
      send: whatsAppTransport({ baseUrl: wa.url, apiVersion: 'v23.0', phoneNumberId: PHONE_ID, token: TOKEN }, http, () => now, { sessions, template }),
    };
  }

  it('sends the template to a user whose window is not open, with the message on one line as its parameter, and text to one whose is', async () => {
    const t = transport({ [BOB]: Date.UTC(2026, 0, 5, 12) - 23 * HOUR, [ALICE]: Date.UTC(2026, 0, 5, 12) - 24 * HOUR });
    const alice = await t.send.send(message(`+${ALICE}`));
    await t.send.send(message(BOB));
    expect(wa.received[0]?.json).toEqual({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: ALICE,
      type: 'template',
      template: {
        name: 'fxdesk_alert',
        language: { code: 'en_US' },
        components: [{ type: 'body', parameters: [{ type: 'text', text: 'Fill | EUR_USD long filled | SL 1.0800 TP 1.0900' }] }],
      },
      biz_opaque_callback_data: `d-+${ALICE}`,
    });
    expect(wa.accepted.map((m) => [m.to, m.type, m.text])).toEqual([
      [ALICE, 'template', 'fxdesk alert: Fill | EUR_USD long filled | SL 1.0800 TP 1.0900'],
      [BOB, 'text', 'Fill\nEUR_USD long filled\nSL 1.0800  TP 1.0900'],
    ]);
    expect(alice).toEqual({ provider: 'whatsapp', providerMessageId: wa.accepted[0]?.wamid });
  });

  it('sends the template at once, and closes the window, when the platform answers a text with 131047', async () => {
    const closed: string[] = [];
    const t = transport({ [ALICE]: Date.UTC(2026, 0, 5, 11) }, closed);
    wa.provider.next(graphError(400, 131047, '(#131047) Re-engagement message', 'More than 24 hours have passed since the recipient last replied.'));
    await t.send.send(message(ALICE));
    expect(wa.received.map((r) => r.json?.type)).toEqual(['text', 'template']);
    expect(closed).toEqual([ALICE]);
  });
});

describe('MESSENGER_APP and the 24-hour customer service window', () => {
  it('sends free-form text while the window the user opened lasts, and the template again once it has closed', async () => {
    const service = await start();
    wa.userWrites(ALICE, 'alerts please');
    await deliverWebhooks(service);
    expect(await service.store.lastInboundAt(ALICE)).toBe(Math.floor(service.clock.now() / 1000) * 1000);

    await notify(service, 'first');
    await service.clock.advanceAsync(23 * HOUR);
    await notify(service, 'second');
    await service.clock.advanceAsync(HOUR);
    await notify(service, 'third');
    await deliverWebhooks(service);
    expect(wa.accepted.map((m) => [m.type, m.text])).toEqual([
      ['text', 'first'],
      ['text', 'second'],
      ['template', 'fxdesk alert: third'],
    ]);
    expect(wa.refusals).toEqual([]);
    expect(await service.store.countByStatus()).toEqual({ sent: 3 });
  });

  it('records the failed status of a text outside the window (131047) when no template is configured', async () => {
    const service = await start({ MESSENGER_APP_TEMPLATE: undefined });
    const [id] = await notify(service);
    expect((await record(service, id as string)).status).toBe('sent');
    const [ack] = await deliverWebhooks(service);
    expect(ack).toMatchObject({ received: 1, applied: 1 });
    expect(await record(service, id as string)).toMatchObject({
      status: 'failed',
      attempts: 1,
      error: {
        code: '131047',
        message: 'Re-engagement message: Message failed to send because more than 24 hours have passed since the customer last replied to this number.',
      },
    });
  });

  it('sends the template, once and without spending an attempt, after the platform fails a text with 131047', async () => {
    const service = await start({ MAX_DELIVERY_ATTEMPTS: '1' });
    wa.userWrites(ALICE);
    await deliverWebhooks(service);
    wa.forgetWindow(ALICE);
    const [id] = await notify(service);
    expect(wa.accepted.map((m) => m.type)).toEqual(['text']);

    const [ack] = await deliverWebhooks(service);
    expect(ack).toMatchObject({ received: 1, applied: 1 });
    // Back in the queue with the text's attempt given back, waiting for the user's next turn (the text took this one).
    expect(await record(service, id as string)).toMatchObject({ status: 'pending', attempts: 0 });
    expect(wa.accepted.map((m) => m.type)).toEqual(['text']);
    await service.clock.advanceAsync(PAIR_INTERVAL_MS);
    await service.outbox.settle();
    expect(wa.accepted.map((m) => m.type)).toEqual(['text', 'template']);
    expect(await record(service, id as string)).toMatchObject({ status: 'sent', attempts: 1, providerMessageId: wa.accepted[1]?.wamid, error: null });
    expect(await service.store.lastInboundAt(ALICE)).toBeUndefined();

    // The platform repeats the text's report (webhooks come at least once): it moves nothing and sends nothing.
    const [repeat] = wa.accepted;
    const raw = JSON.stringify({
      entry: [
        {
          changes: [
            {
              value: {
                statuses: [
                  { id: repeat?.wamid, status: 'failed', recipient_id: ALICE, biz_opaque_callback_data: id, errors: [{ code: 131047 }] },
                  { id: repeat?.wamid, status: 'sent', recipient_id: ALICE, biz_opaque_callback_data: id },
                ],
              },
            },
          ],
        },
      ],
    });
    const res = await service.app.inject({
      method: 'POST',
      url: '/webhooks/messenger_app',
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': `sha256=${createHmac('sha256', SECRET).update(raw).digest('hex')}` },
      payload: raw,
    });
    await service.outbox.settle();
    expect(res.json()).toMatchObject({ received: 2, applied: 0, unchanged: 2 });
    expect(await record(service, id as string)).toMatchObject({ status: 'sent', providerMessageId: wa.accepted[1]?.wamid });
    expect(wa.accepted).toHaveLength(2);
  });

  it('reports a template the platform does not know (132001) as a failure, not a retry', async () => {
    const service = await start({ MESSENGER_APP_TEMPLATE: 'fxdesk_alert', MESSENGER_APP_TEMPLATE_LANGUAGE: 'pt_BR' });
    const [id] = await notify(service);
    expect(await record(service, id as string)).toMatchObject({ status: 'failed', error: { code: '132001' } });
  });

  it('fills a subject and a message parameter in the template’s order', async () => {
    const service = await start({
      MESSENGER_APP_TEMPLATE: 'fxdesk_alert_titled',
      MESSENGER_APP_TEMPLATE_LANGUAGE: 'en',
      MESSENGER_APP_TEMPLATE_PARAMETERS: 'subject,message',
    });
    await notify(service, '<p>GBP_USD <b>short</b></p><ul><li>SL 1.2710</li><li>TP 1.2600</li></ul>', { subject: 'Signal', contentType: 'html' });
    await service.clock.advanceAsync(PAIR_INTERVAL_MS);
    await notify(service, 'No subject here\nsecond line');
    expect(wa.accepted.map((m) => m.text)).toEqual(['*Signal*: GBP_USD short | • SL 1.2710 | • TP 1.2600', '*No subject here*: No subject here | second line']);
    expect(wa.refusals).toEqual([]);
  });
});

describe('template parameters', () => {
  const template = (parameters: WhatsAppTemplate['parameters']): WhatsAppTemplate => ({ name: 't', language: 'en', parameters });
  const message = (text: string, subject: string | null = null) => ({
    deliveryId: 'd',
    channel: 'MESSENGER_APP' as const,
    recipient: ALICE,
    message: text,
    contentType: 'text' as const,
    subject,
  });

  it('keep to one line: no line breaks, tabs or runs of spaces (132018)', () => {
    const [text] = templateParameters(template(['message']), message('a\tb     c\r\n\n  d  '));
    expect(text).toBe('a b c | d');
  });

  it('stay within 900 characters together, the subject first', () => {
    const values = templateParameters(template(['subject', 'message']), message('x'.repeat(5000), 's'.repeat(300)));
    expect(values.map((v) => v.length)).toEqual([200, 700]);
    expect(values[1]?.endsWith('…')).toBe(true);
  });
});

describe('MESSENGER_APP and the pair rate limit', () => {
  it('spaces the messages to one user 6 s apart while other users go on, so the platform never answers 131056', async () => {
    const service = await start({ MESSENGER_APP_TO: `${ALICE},${BOB}`, MESSENGER_APP_TEMPLATE: undefined });
    const t0 = service.clock.now();
    for (let i = 0; i < 5; i++) await service.notify({ message: `alert ${i}`, channels: ['MESSENGER_APP'], source: 'strategy' });
    await service.outbox.settle();
    for (let s = 0; s < 4; s++) {
      await service.clock.advanceAsync(PAIR_INTERVAL_MS);
      await service.outbox.settle();
    }
    expect(await service.store.countByStatus()).toEqual({ sent: 10 });
    expect(wa.refusals).toEqual([]);
    for (const user of [ALICE, BOB]) {
      const mine = wa.accepted.filter((m) => m.to === user);
      expect(mine.map((m) => m.at - t0)).toEqual([0, 6000, 12_000, 18_000, 24_000]);
      expect(mine.map((m) => m.text)).toEqual(['alert 0', 'alert 1', 'alert 2', 'alert 3', 'alert 4']);
    }
    const attempts = (await service.app.inject({ method: 'GET', url: '/notifications?limit=500', headers: { 'x-api-key': 'test-notification-key' } })).json<{
      items: DeliveryRecord[];
    }>();
    expect(attempts.items.every((d) => d.attempts === 1)).toBe(true);
  });

  it('holds a user’s queue 4^X s after each 131056, without spending attempts and without holding other users', async () => {
    const service = await start({ MESSENGER_APP_TO: `${ALICE},${BOB}`, MAX_DELIVERY_ATTEMPTS: '1' });
    const pairLimit = graphError(400, 131056, '(#131056) (Business Account, Consumer Account) pair rate limit hit');
    // A scripted reply is used up by whichever request comes: Alice's, Bob's (answered as usual), Alice's again.
    const toAlice = (req: Received) => (req.json?.to === ALICE ? pairLimit : undefined);
    wa.provider.next(toAlice, toAlice, toAlice);
    const [alice, bob] = await notify(service);
    expect(await record(service, bob as string)).toMatchObject({ status: 'sent', attempts: 1 });
    expect(await record(service, alice as string)).toMatchObject({ status: 'pending', attempts: 0, error: { code: '131056' } });
    expect(Date.parse((await record(service, alice as string)).nextAttemptAt as string) - service.clock.now()).toBe(1000);
    await service.clock.advanceAsync(1000);
    await service.outbox.settle();
    expect(await record(service, alice as string)).toMatchObject({ status: 'pending', attempts: 0 });
    expect(Date.parse((await record(service, alice as string)).nextAttemptAt as string) - service.clock.now()).toBe(4000);
    await service.clock.advanceAsync(4000);
    await service.outbox.settle();
    expect(await record(service, alice as string)).toMatchObject({ status: 'sent', attempts: 1 });
  });

  it('answers 131056 from the fake when a user is sent to faster than a burst allows', async () => {
    const strict = await new FakeWhatsApp({ phoneNumberId: PHONE_ID, token: TOKEN, appSecret: SECRET, templates: TEMPLATES, pairBurst: 2 }).start();
    try {
      strict.now = () => 0;
      const post = (at: number) => {
        strict.now = () => at;
        return fetch(`${strict.url}/v23.0/${PHONE_ID}/messages`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
          body: JSON.stringify({ messaging_product: 'whatsapp', to: ALICE, type: 'text', text: { body: 'x' } }),
        }).then((r) => r.status);
      };
      // A burst of 2 borrows 12 s: a third at 1 s, or one at 11 s, is refused; at 12 s a new burst starts.
      expect([await post(0), await post(500), await post(1000), await post(11_000), await post(12_000)]).toEqual([200, 200, 400, 400, 200]);
      expect(strict.refusals).toEqual([131056, 131056]);
    } finally {
      await strict.stop();
    }
  });
});

describe('MESSENGER_APP errors the platform asks to retry', () => {
  for (const [code, status, title] of [
    [131057, 500, '(#131057) Business Account is in maintenance mode'],
    [131048, 400, '(#131048) Spam rate limit hit'],
  ] as const) {
    it(`retries ${code} with the backoff, spending an attempt`, async () => {
      const service = await start();
      wa.provider.next(graphError(status, code, title));
      const [id] = await notify(service);
      expect(await record(service, id as string)).toMatchObject({ status: 'pending', attempts: 1, error: { code: String(code) } });
      await service.clock.advanceAsync(500);
      await service.outbox.settle();
      expect(await record(service, id as string)).toMatchObject({ status: 'sent', attempts: 2 });
    });
  }
});
