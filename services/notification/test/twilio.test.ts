import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { DeliveryRecord } from '@fxdesk/schemas';
import { twilioSignature } from '../src/sms-status.js';
import { FakeTwilio, type Callback } from './fake-twilio.js';
import { startService, type Harness } from './harness.js';

const SID = `AC${'0123456789abcdef'.repeat(2)}`;
const AUTH = 'twilio-auth-token';

let twilio: FakeTwilio;
let service: Harness | undefined;
beforeAll(async () => {
  twilio = await new FakeTwilio(SID, AUTH).start();
});
afterAll(() => twilio.stop());
afterEach(async () => {
  twilio.reset();
  await service?.close();
  service = undefined;
});

function env(more: Record<string, string> = {}): Record<string, string> {
  return { SMS_ACCOUNT_SID: SID, SMS_AUTH_TOKEN: AUTH, SMS_FROM: '+14155550000', SMS_BASE_URL: twilio.url, SMS_TO: '+14155550100', ...more };
}

// Behind a proxy that strips /notify: Twilio signs the public URL, the service sees the path after it.
const PUBLIC = 'https://desk.example.com/notify';

/** Hands Twilio's callback to the service as the proxy would. */
async function deliver(h: Harness, callback: Callback): Promise<{ statusCode: number; json: Record<string, unknown> }> {
  const url = new URL(callback.url);
  expect(url.origin + url.pathname.slice(0, '/notify'.length)).toBe(PUBLIC);
  const res = await h.app.inject({ method: 'POST', url: url.pathname.slice('/notify'.length) + url.search, headers: callback.headers, payload: callback.body });
  return { statusCode: res.statusCode, json: res.json<Record<string, unknown>>() };
}

async function sendOne(h: Harness): Promise<DeliveryRecord> {
  const res = await h.notify({ message: 'EUR_USD long filled at 1.0850', channels: ['SMS'], source: 'strategy' });
  expect(res.statusCode).toBe(201);
  await h.outbox.settle();
  return (await h.store.get((res.json.deliveryIds as string[])[0] as string)) as DeliveryRecord;
}

describe('a full sender queue (21611)', () => {
  it('is retried with backoff, and the message goes once the queue has room', async () => {
    service = await startService(env());
    twilio.queueCapacity = 0;
    const d = await sendOne(service);
    expect(d).toMatchObject({ status: 'pending', attempts: 1, error: { code: '21611', httpStatus: 400 } });
    expect(twilio.messages).toHaveLength(0);
    twilio.drain();
    twilio.queueCapacity = 1;
    await service.clock.advanceAsync(500);
    await service.outbox.settle();
    expect(await service.store.get(d.id)).toMatchObject({ status: 'queued', attempts: 2, error: null });
    expect(twilio.messages).toHaveLength(1);
  });
});

describe('a 5xx after Twilio created the message', () => {
  it('fails an at-most-once SMS as outcome_unknown and never sends it again', async () => {
    service = await startService(env({ AT_MOST_ONCE_CHANNELS: 'SMS' }));
    twilio.failAfterCreating();
    const d = await sendOne(service);
    expect(d).toMatchObject({ status: 'failed', attempts: 1, error: { code: 'outcome_unknown', httpStatus: 500 } });
    await service.clock.advanceAsync(600_000);
    await service.outbox.settle();
    expect(await service.store.get(d.id)).toMatchObject({ status: 'failed', attempts: 1 });
    expect(twilio.messages).toHaveLength(1);
  });

  it('resends an at-least-once SMS: the recipient may get it twice', async () => {
    service = await startService(env());
    twilio.failAfterCreating();
    const d = await sendOne(service);
    expect(d).toMatchObject({ status: 'pending', error: { code: '20500', httpStatus: 500 } });
    await service.clock.advanceAsync(500);
    await service.outbox.settle();
    expect(await service.store.get(d.id)).toMatchObject({ status: 'queued', attempts: 2 });
    expect(twilio.messages).toHaveLength(2);
  });
});

describe('Twilio status callbacks', () => {
  it('records a 201 as queued, not sent, and asks for callbacks at PUBLIC_BASE_URL/webhooks/sms with the delivery id', async () => {
    service = await startService(env({ PUBLIC_BASE_URL: `${PUBLIC}/` }));
    const d = await sendOne(service);
    expect(d).toMatchObject({ status: 'queued', provider: 'twilio', providerMessageId: twilio.messages[0]?.sid, sentAt: null });
    expect(twilio.provider.received[0]?.form?.StatusCallback).toBe(`${PUBLIC}/webhooks/sms?delivery=${d.id}`);
  });

  it('moves the record to sent then delivered on signed callbacks', async () => {
    service = await startService(env({ PUBLIC_BASE_URL: PUBLIC }));
    const d = await sendOne(service);
    const sid = twilio.messages[0]?.sid as string;
    expect(await deliver(service, twilio.report(sid, 'sending'))).toMatchObject({ statusCode: 200, json: { unchanged: 1 } });
    await service.clock.advanceAsync(1000);
    expect(await deliver(service, twilio.report(sid, 'sent'))).toMatchObject({ statusCode: 200, json: { received: 1, applied: 1 } });
    const sentAt = service.clock.now();
    await service.clock.advanceAsync(4000);
    await deliver(service, twilio.report(sid, 'delivered'));
    expect(await service.store.get(d.id)).toMatchObject({
      status: 'delivered',
      sentAt: new Date(sentAt).toISOString(),
      deliveredAt: new Date(sentAt + 4000).toISOString(),
      error: null,
    });
  });

  it('records undelivered and failed with their ErrorCode', async () => {
    service = await startService(env({ PUBLIC_BASE_URL: PUBLIC, SMS_TO: '+14155550100,+447700900123' }));
    const res = await service.notify({ message: 'm', channels: ['SMS'], source: 'strategy' });
    await service.outbox.settle();
    const [a, b] = res.json.deliveryIds as string[];
    const [first, second] = twilio.messages;
    await deliver(service, twilio.report(first?.sid as string, 'sent'));
    await deliver(service, twilio.report(first?.sid as string, 'undelivered', { errorCode: 30003 }));
    await deliver(service, twilio.report(second?.sid as string, 'failed', { errorCode: 30001 }));
    expect(await service.store.get(a as string)).toMatchObject({
      status: 'undelivered',
      error: { code: '30003', message: 'Twilio reported the message undelivered (https://www.twilio.com/docs/api/errors/30003)' },
    });
    expect(await service.store.get(b as string)).toMatchObject({ status: 'failed', error: { code: '30001' } });
    expect(
      (await service.app.inject({ method: 'GET', url: '/notifications?status=undelivered', headers: { 'x-api-key': 'test-notification-key' } })).json(),
    ).toMatchObject({
      items: [{ id: a }],
    });
  });

  it('never moves a record backwards when callbacks arrive out of order', async () => {
    service = await startService(env({ PUBLIC_BASE_URL: PUBLIC }));
    const d = await sendOne(service);
    const sid = twilio.messages[0]?.sid as string;
    await deliver(service, twilio.report(sid, 'delivered'));
    expect(await deliver(service, twilio.report(sid, 'sent'))).toMatchObject({ json: { unchanged: 1 } });
    await deliver(service, twilio.report(sid, 'undelivered', { errorCode: 30005 }));
    expect(await service.store.get(d.id)).toMatchObject({ status: 'delivered', error: null });
  });

  it('refuses a callback signed with another token with 403, and leaves the record as it was', async () => {
    service = await startService(env({ PUBLIC_BASE_URL: PUBLIC }));
    const d = await sendOne(service);
    const forged = twilio.report(twilio.messages[0]?.sid as string, 'delivered', { authToken: 'not-the-auth-token' });
    expect(await deliver(service, forged)).toMatchObject({ statusCode: 403, json: { code: 'forbidden' } });
    expect((await service.store.get(d.id))?.status).toBe('queued');
  });

  it('refuses a signed callback whose parameters or URL were changed, or that carries no signature', async () => {
    service = await startService(env({ PUBLIC_BASE_URL: PUBLIC }));
    const d = await sendOne(service);
    const genuine = twilio.report(twilio.messages[0]?.sid as string, 'failed', { errorCode: 30007 });
    const tampered = { ...genuine, body: genuine.body.replace('MessageStatus=failed', 'MessageStatus=delivered') };
    expect((await deliver(service, tampered)).statusCode).toBe(403);
    const otherDelivery = { ...genuine, url: genuine.url.replace(d.id, 'another-delivery') };
    expect((await deliver(service, otherDelivery)).statusCode).toBe(403);
    const unsigned = { ...genuine, headers: { 'content-type': 'application/x-www-form-urlencoded' } };
    expect((await deliver(service, unsigned)).statusCode).toBe(403);
    expect((await service.store.get(d.id))?.status).toBe('queued');
    expect((await deliver(service, genuine)).statusCode).toBe(200);
  });

  it('refuses a JSON body with 415 rather than read it unsigned', async () => {
    service = await startService(env({ PUBLIC_BASE_URL: PUBLIC }));
    const d = await sendOne(service);
    const res = await service.app.inject({
      method: 'POST',
      url: `/webhooks/sms?delivery=${d.id}`,
      headers: { 'content-type': 'application/json' },
      payload: { MessageSid: d.providerMessageId, MessageStatus: 'delivered' },
    });
    expect(res.statusCode).toBe(415);
    expect((await service.store.get(d.id))?.status).toBe('queued');
  });

  it('refuses every callback when PUBLIC_BASE_URL is unset, and then asks Twilio for none', async () => {
    service = await startService(env());
    const d = await sendOne(service);
    expect(twilio.provider.received[0]?.form?.StatusCallback).toBeUndefined();
    const params: [string, string][] = [
      ['MessageSid', d.providerMessageId as string],
      ['MessageStatus', 'delivered'],
    ];
    const res = await service.app.inject({
      method: 'POST',
      url: `/webhooks/sms?delivery=${d.id}`,
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-twilio-signature': twilioSignature(AUTH, `http://localhost/webhooks/sms?delivery=${d.id}`, params),
      },
      payload: new URLSearchParams(params).toString(),
    });
    expect(res.statusCode).toBe(403);
    expect((await service.store.get(d.id))?.status).toBe('queued');
  });

  it('finds the record by the delivery id in the URL when the sid was never stored: an in-doubt SMS learns it went out', async () => {
    service = await startService(env({ PUBLIC_BASE_URL: PUBLIC, AT_MOST_ONCE_CHANNELS: 'SMS' }));
    twilio.failAfterCreating();
    const d = await sendOne(service);
    expect(d).toMatchObject({ status: 'failed', providerMessageId: null, error: { code: 'outcome_unknown' } });
    await deliver(service, twilio.report(twilio.messages[0]?.sid as string, 'delivered'));
    expect(await service.store.get(d.id)).toMatchObject({ status: 'delivered', error: null });
    expect(twilio.messages).toHaveLength(1);
  });

  it("accepts the signature over the URL with the scheme's default port written out, as Twilio's own validator does", async () => {
    service = await startService(env({ PUBLIC_BASE_URL: PUBLIC }));
    const d = await sendOne(service);
    const params: [string, string][] = [
      ['MessageSid', d.providerMessageId as string],
      ['MessageStatus', 'sent'],
    ];
    const inject = (signedUrl: string) =>
      service?.app.inject({
        method: 'POST',
        url: `/webhooks/sms?delivery=${d.id}`,
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': twilioSignature(AUTH, signedUrl, params) },
        payload: new URLSearchParams(params).toString(),
      });
    expect((await inject(`https://desk.example.com:8443/notify/webhooks/sms?delivery=${d.id}`))?.statusCode).toBe(403);
    expect((await inject(`https://desk.example.com:443/notify/webhooks/sms?delivery=${d.id}`))?.statusCode).toBe(200);
    expect((await service.store.get(d.id))?.status).toBe('sent');
  });

  it('acknowledges a signed callback for a message it does not know with 200, changing nothing', async () => {
    service = await startService(env({ PUBLIC_BASE_URL: PUBLIC }));
    const d = await sendOne(service);
    const params: [string, string][] = [
      ['MessageSid', `SM${'f'.repeat(32)}`],
      ['MessageStatus', 'delivered'],
    ];
    const res = await service.app.inject({
      method: 'POST',
      url: '/webhooks/sms?delivery=not-a-delivery',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-twilio-signature': twilioSignature(AUTH, `${PUBLIC}/webhooks/sms?delivery=not-a-delivery`, params),
      },
      payload: new URLSearchParams(params).toString(),
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ received: 1, applied: 0, unchanged: 0, unknown: 1, ignored: 0 });
    expect((await service.store.get(d.id))?.status).toBe('queued');
  });
});

describe('arbitrary callbacks', () => {
  it('never get a 500: signed or not, any form body is applied, refused with 403, or invalid with 422', async () => {
    service = await startService(env({ PUBLIC_BASE_URL: PUBLIC }));
    const h = service;
    const param = fc.tuple(fc.constantFrom('MessageSid', 'MessageStatus', 'ErrorCode', 'To', 'Other', ''), fc.string({ maxLength: 80 }));
    await fc.assert(
      fc.asyncProperty(fc.array(param, { maxLength: 6 }), fc.boolean(), fc.string({ maxLength: 40 }), async (params, signed, query) => {
        const path = `/webhooks/sms?delivery=${encodeURIComponent(query)}`;
        const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
        if (signed) headers['x-twilio-signature'] = twilioSignature(AUTH, `${PUBLIC}${path}`, params);
        const res = await h.app.inject({ method: 'POST', url: path, headers, payload: new URLSearchParams(params).toString() });
        expect([200, 403, 422]).toContain(res.statusCode);
        if (!signed) expect(res.statusCode).toBe(403);
      }),
      { numRuns: 300 },
    );
  });
});
