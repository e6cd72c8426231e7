import { createHmac } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { DeliveryRecord } from '@fxdesk/schemas';
import { fakeWhatsApp, type FakeProvider } from './fakes.js';
import { startService, type Harness } from './harness.js';

const VERIFY = 'verify-token-123';
const SECRET = 'app-secret-456';
const PHONE_ID = '106540352242922';
const TOKEN = 'EAAG-test-token';

/** A status notification exactly as the platform sends it (entry[].changes[].value.statuses[]). */
function statusPayload(statuses: Record<string, unknown>[]): string {
  return JSON.stringify({
    object: 'whatsapp_business_account',
    entry: [
      {
        id: '102290129340398',
        changes: [
          {
            value: { messaging_product: 'whatsapp', metadata: { display_phone_number: '15550783881', phone_number_id: PHONE_ID }, statuses },
            field: 'messages',
          },
        ],
      },
    ],
  });
}

const sign = (raw: string, secret = SECRET) => `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`;

let whatsapp: FakeProvider;
let h: Harness;
beforeAll(async () => {
  whatsapp = await fakeWhatsApp(PHONE_ID, TOKEN).start();
});
afterAll(() => whatsapp.stop());
afterEach(() => h?.close());

async function start(env: Record<string, string | undefined> = {}): Promise<Harness> {
  h = await startService({
    MESSENGER_APP_TOKEN: TOKEN,
    MESSENGER_APP_PHONE_NUMBER_ID: PHONE_ID,
    MESSENGER_APP_BASE_URL: whatsapp.url,
    MESSENGER_APP_TO: '14155550100,14155550101',
    MESSENGER_APP_VERIFY_TOKEN: VERIFY,
    MESSENGER_APP_APP_SECRET: SECRET,
    ...env,
  });
  return h;
}

async function sentDeliveries(): Promise<DeliveryRecord[]> {
  const res = await h.notify({ message: 'hello', channels: ['MESSENGER_APP'], source: 'strategy' });
  await h.outbox.settle();
  return Promise.all((res.json.deliveryIds as string[]).map(async (id) => (await h.store.get(id)) as DeliveryRecord));
}

async function post(raw: string, signature: string | null = sign(raw)) {
  const res = await h.app.inject({
    method: 'POST',
    url: '/webhooks/messenger_app',
    headers: { 'content-type': 'application/json', ...(signature ? { 'x-hub-signature-256': signature } : {}) },
    payload: raw,
  });
  return { statusCode: res.statusCode, json: res.json<Record<string, unknown>>() };
}

const status = (id: string, value: string, timestamp: number, extra: Record<string, unknown> = {}) => ({
  id,
  status: value,
  timestamp: String(timestamp),
  recipient_id: '14155550100',
  ...extra,
});

const T = 1767614400; // 2026-01-05T12:00:00Z in Unix seconds

describe('GET /webhooks/messenger_app (verification)', () => {
  it('answers hub.challenge as text for subscribe with the right verify token', async () => {
    await start();
    const res = await h.app.inject({ method: 'GET', url: `/webhooks/messenger_app?hub.mode=subscribe&hub.verify_token=${VERIFY}&hub.challenge=1158201444` });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/plain');
    expect(res.body).toBe('1158201444');
  });

  it('answers 403 for a wrong token, another mode, or no token configured', async () => {
    await start();
    for (const q of [
      `hub.mode=subscribe&hub.verify_token=nope&hub.challenge=1`,
      `hub.mode=unsubscribe&hub.verify_token=${VERIFY}&hub.challenge=1`,
      'hub.challenge=1',
    ]) {
      const res = await h.app.inject({ method: 'GET', url: `/webhooks/messenger_app?${q}` });
      expect(res.statusCode, q).toBe(403);
      expect(res.json()).toMatchObject({ error: true, code: 'forbidden' });
    }
    await h.close();
    await start({ MESSENGER_APP_VERIFY_TOKEN: undefined });
    const res = await h.app.inject({ method: 'GET', url: '/webhooks/messenger_app?hub.mode=subscribe&hub.verify_token=&hub.challenge=1' });
    expect(res.statusCode).toBe(403);
  });
});

describe('POST /webhooks/messenger_app (status updates)', () => {
  it('accepts a valid X-Hub-Signature-256 and refuses a missing or wrong one with 401', async () => {
    await start();
    const raw = statusPayload([]);
    expect((await post(raw)).statusCode).toBe(200);
    expect((await post(raw, null)).statusCode).toBe(401);
    expect((await post(raw, sign(raw, 'another-secret'))).statusCode).toBe(401);
    expect((await post(raw, sign(`${raw} `))).statusCode).toBe(401);
    expect((await post(raw, 'sha1=abc')).json).toMatchObject({ error: true, code: 'unauthorized' });
  });

  it('checks the signature over the exact bytes received', async () => {
    await start();
    const [d] = await sentDeliveries();
    const raw = `{ "entry" : [ { "changes": [ { "value": { "statuses": [ ${JSON.stringify(status(d?.providerMessageId as string, 'delivered', T))} ] } } ] } ] }`;
    expect((await post(raw)).json).toMatchObject({ applied: 1 });
  });

  it('refuses every update, signed or not, when no app secret is set', async () => {
    await start({ MESSENGER_APP_APP_SECRET: undefined });
    const [d] = await sentDeliveries();
    const raw = statusPayload([status(d?.providerMessageId as string, 'delivered', T)]);
    for (const signature of [null, sign(raw), 'sha256=']) {
      const res = await post(raw, signature);
      expect(res).toMatchObject({ statusCode: 401, json: { code: 'unauthorized', message: expect.stringContaining('MESSENGER_APP_APP_SECRET is not set') } });
    }
    expect((await h.store.get(d?.id as string))?.status).toBe('sent');
  });

  it('applies delivered, read and failed to the records they name', async () => {
    await start();
    const [a, b] = await sentDeliveries();
    const res = await post(
      statusPayload([
        status(a?.providerMessageId as string, 'delivered', T + 5),
        status(a?.providerMessageId as string, 'read', T + 9),
        status(b?.providerMessageId as string, 'failed', T + 6, {
          errors: [{ code: 131026, title: 'Message undeliverable', message: 'Message undeliverable', error_data: { details: 'Message Undeliverable.' } }],
        }),
      ]),
    );
    expect(res).toMatchObject({ statusCode: 200, json: { received: 3, applied: 3, unknown: 0 } });
    expect(await h.store.get(a?.id as string)).toMatchObject({ status: 'read', deliveredAt: '2026-01-05T12:00:05.000Z', readAt: '2026-01-05T12:00:09.000Z' });
    expect(await h.store.get(b?.id as string)).toMatchObject({
      status: 'failed',
      error: { code: '131026', message: 'Message undeliverable: Message Undeliverable.' },
    });
  });

  it('sets deliveredAt from a read that arrives before delivered, and a late delivered does not move it back', async () => {
    await start();
    const [a] = await sentDeliveries();
    const wamid = a?.providerMessageId as string;
    await post(statusPayload([status(wamid, 'read', T + 9)]));
    expect(await h.store.get(a?.id as string)).toMatchObject({ status: 'read', deliveredAt: '2026-01-05T12:00:09.000Z', readAt: '2026-01-05T12:00:09.000Z' });
    const late = await post(statusPayload([status(wamid, 'delivered', T + 4)]));
    expect(late.json).toMatchObject({ applied: 1 });
    expect(await h.store.get(a?.id as string)).toMatchObject({ status: 'read', deliveredAt: '2026-01-05T12:00:04.000Z', readAt: '2026-01-05T12:00:09.000Z' });
  });

  it('never moves a record backwards', async () => {
    await start();
    const [a, b] = await sentDeliveries();
    await post(statusPayload([status(a?.providerMessageId as string, 'read', T + 9), status(b?.providerMessageId as string, 'delivered', T + 3)]));
    const res = await post(
      statusPayload([
        status(a?.providerMessageId as string, 'sent', T + 1),
        status(a?.providerMessageId as string, 'delivered', T + 10),
        status(a?.providerMessageId as string, 'failed', T + 11),
        status(b?.providerMessageId as string, 'sent', T + 12),
        status(b?.providerMessageId as string, 'failed', T + 13),
      ]),
    );
    expect(res.json).toMatchObject({ received: 5, applied: 0, unchanged: 5 });
    expect((await h.store.get(a?.id as string))?.status).toBe('read');
    expect((await h.store.get(b?.id as string))?.status).toBe('delivered');
  });

  it('finds a record by the delivery id echoed in biz_opaque_callback_data when the wamid is not stored', async () => {
    await start();
    const [a] = await sentDeliveries();
    const res = await post(statusPayload([status('wamid.unknown-to-us', 'delivered', T + 2, { biz_opaque_callback_data: a?.id })]));
    expect(res.json).toMatchObject({ applied: 1 });
    expect((await h.store.get(a?.id as string))?.status).toBe('delivered');
  });

  it('acknowledges unknown message ids and other statuses with 200', async () => {
    await start();
    const res = await post(statusPayload([status('wamid.nobody', 'delivered', T), status('wamid.nobody', 'deleted', T), { nonsense: true }]));
    expect(res).toMatchObject({ statusCode: 200, json: { received: 3, applied: 0, unknown: 1, ignored: 2 } });
    const inbound = JSON.stringify({
      object: 'whatsapp_business_account',
      entry: [{ id: '1', changes: [{ field: 'messages', value: { messages: [{ from: '1', id: 'wamid.in', type: 'text', text: { body: 'hi' } }] } }] }],
    });
    expect((await post(inbound)).json).toMatchObject({ received: 0 });
  });

  it('answers malformed JSON with 400 and a wrong shape with 422', async () => {
    await start();
    expect((await post('{"entry": [')).json).toMatchObject({ error: true, code: 'invalid_json' });
    const wrong = await post(JSON.stringify({ entry: 'no' }));
    expect(wrong).toMatchObject({ statusCode: 422, json: { code: 'validation_error' } });
  });
});
