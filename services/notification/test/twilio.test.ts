import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { DeliveryRecord } from '@fxdesk/schemas';
import { FakeTwilio } from './fake-twilio.js';
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

async function sendOne(h: Harness): Promise<DeliveryRecord> {
  const res = await h.notify({ message: 'EUR_USD long filled at 1.0850', channels: ['SMS'], source: 'strategy' });
  expect(res.statusCode).toBe(201);
  await h.outbox.settle();
  return h.store.get((res.json.deliveryIds as string[])[0] as string) as DeliveryRecord;
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
    expect(service.store.get(d.id)).toMatchObject({ status: 'sent', attempts: 2, error: null });
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
    expect(service.store.get(d.id)).toMatchObject({ status: 'failed', attempts: 1 });
    expect(twilio.messages).toHaveLength(1);
  });

  it('resends an at-least-once SMS: the recipient may get it twice', async () => {
    service = await startService(env());
    twilio.failAfterCreating();
    const d = await sendOne(service);
    expect(d).toMatchObject({ status: 'pending', error: { code: '20500', httpStatus: 500 } });
    await service.clock.advanceAsync(500);
    await service.outbox.settle();
    expect(service.store.get(d.id)).toMatchObject({ status: 'sent', attempts: 2 });
    expect(twilio.messages).toHaveLength(2);
  });
});
