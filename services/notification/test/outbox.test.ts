import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DeliveryError, type OutboundMessage, type SendResult, type Transport } from '../src/channels/transport.js';
import { retryDelayMs } from '../src/retry.js';
import { startService, type Harness } from './harness.js';

/** A transport that counts what it is asked to send, each send taking a turn of the event loop. */
class CountingTransport implements Transport {
  readonly provider = 'telegram' as const;
  readonly sent: string[] = [];
  async send(message: OutboundMessage): Promise<SendResult> {
    await new Promise((resolve) => setImmediate(resolve));
    this.sent.push(message.deliveryId);
    return { provider: this.provider, providerMessageId: String(this.sent.length) };
  }
}

/** A transport whose first call never answers until released: the process "dies" inside it. */
class HangingTransport implements Transport {
  readonly provider = 'telegram' as const;
  calls = 0;
  private release: ((err: Error) => void) | undefined;
  send(): Promise<SendResult> {
    this.calls += 1;
    return new Promise((_resolve, reject) => {
      this.release = reject;
    });
  }
  abandon(): void {
    this.release?.(new DeliveryError({ code: 'network_error', message: 'process gone' }, { retryable: true, inDoubt: true }));
  }
}

/** Lets the event loop turn until `check` holds (group commits and claims take a few turns). */
async function until(check: () => boolean): Promise<void> {
  for (let turn = 0; !check(); turn++) {
    if (turn > 1000) throw new Error('condition not met');
    await new Promise((resolve) => setImmediate(resolve));
  }
}

let dir: string;
const open: Harness[] = [];
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fxdesk-outbox-'));
});
afterEach(async () => {
  for (const h of open.splice(0)) await h.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function on(env: Record<string, string>, transport: Transport): Promise<Harness> {
  const h = await startService(
    { DATA_DIR: dir, CHAT_APP_CHAT_IDS: Array.from({ length: 20 }, (_, i) => String(i + 1)).join(','), ...env },
    { transports: { CHAT_APP: transport } },
  );
  open.push(h);
  return h;
}

describe('the outbox', () => {
  it('sends each delivery once when two workers share the database', async () => {
    const one = new CountingTransport();
    const two = new CountingTransport();
    const a = await on({ OUTBOX_CONCURRENCY: '3' }, one);
    const b = await on({ OUTBOX_CONCURRENCY: '3' }, two);
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) {
      const res = await (i % 2 === 0 ? a : b).notify({ message: `m${i}`, channels: ['CHAT_APP'], source: 'test' });
      ids.push(...(res.json.deliveryIds as string[]));
    }
    await Promise.all([a.outbox.settle(), b.outbox.settle()]);
    const all = [...one.sent, ...two.sent];
    expect(all).toHaveLength(200);
    expect(new Set(all).size).toBe(200);
    expect(one.sent.length).toBeGreaterThan(0);
    expect(two.sent.length).toBeGreaterThan(0);
    expect(await a.store.countByStatus()).toEqual({ sent: 200 });
  });

  it('sends again at its start, not after the lease, a delivery its dead process left in flight (at-least-once)', async () => {
    // The SQLite file is one process's (the DATA_DIR lock): what is in flight when it starts is a dead one's.
    const hanging = new HangingTransport();
    const dead = await on({ CHAT_APP_CHAT_IDS: '111' }, hanging);
    const res = await dead.notify({ message: 'm', channels: ['CHAT_APP'], source: 'test' });
    const id = (res.json.deliveryIds as string[])[0] as string;
    await until(() => hanging.calls === 1);
    expect(await dead.store.get(id)).toMatchObject({ status: 'sending', attempts: 1 });

    const counting = new CountingTransport();
    const restarted = await on({ CHAT_APP_CHAT_IDS: '111' }, counting);
    await restarted.outbox.settle();
    expect(counting.sent).toEqual([id]);
    expect(await restarted.store.get(id)).toMatchObject({ status: 'sent', attempts: 2 });
    hanging.abandon();
  });

  it('fails instead, with outcome_unknown, on a channel set to at-most-once', async () => {
    const hanging = new HangingTransport();
    const dead = await on({ CHAT_APP_CHAT_IDS: '111', AT_MOST_ONCE_CHANNELS: 'CHAT_APP' }, hanging);
    const res = await dead.notify({ message: 'm', channels: ['CHAT_APP'], source: 'test' });
    const id = (res.json.deliveryIds as string[])[0] as string;
    await until(() => hanging.calls === 1);

    const counting = new CountingTransport();
    const restarted = await on({ CHAT_APP_CHAT_IDS: '111', AT_MOST_ONCE_CHANNELS: 'CHAT_APP' }, counting);
    await restarted.clock.advanceAsync(35_001);
    await restarted.outbox.settle();
    expect(counting.sent).toEqual([]);
    expect(await restarted.store.get(id)).toMatchObject({ status: 'failed', error: { code: 'outcome_unknown' } });
    hanging.abandon();
  });

  it('fails a timed-out call on an at-most-once channel rather than risk a duplicate', async () => {
    const timingOut: Transport = {
      provider: 'twilio',
      send: async () => {
        throw new DeliveryError({ code: 'timeout', message: 'UND_ERR_HEADERS_TIMEOUT' }, { retryable: true, inDoubt: true });
      },
    };
    const h = await startService({ SMS_TO: '+14155550100', AT_MOST_ONCE_CHANNELS: 'SMS' }, { transports: { SMS: timingOut } });
    open.push(h);
    const res = await h.notify({ message: 'm', channels: ['SMS'], source: 'test' });
    await h.outbox.settle();
    expect(await h.store.get((res.json.deliveryIds as string[])[0] as string)).toMatchObject({
      status: 'failed',
      attempts: 1,
      error: { code: 'outcome_unknown' },
    });
  });

  it('picks up, after a graceful restart, the deliveries still waiting for a retry', async () => {
    let failing = true;
    const flaky: Transport = {
      provider: 'telegram',
      send: async (m) => {
        if (failing) throw new DeliveryError({ code: '503', message: 'Service Unavailable', httpStatus: 503 }, { retryable: true });
        return { provider: 'telegram', providerMessageId: m.deliveryId };
      },
    };
    const first = await on({ CHAT_APP_CHAT_IDS: '111,222' }, flaky);
    const res = await first.notify({ message: 'm', channels: ['CHAT_APP'], source: 'test' });
    await first.outbox.settle();
    expect(await first.store.countByStatus()).toEqual({ pending: 2 });
    await first.close();
    open.splice(open.indexOf(first), 1);

    failing = false;
    const second = await on({ CHAT_APP_CHAT_IDS: '111,222' }, flaky);
    await second.clock.advanceAsync(1000);
    await second.outbox.settle();
    expect(await Promise.all((res.json.deliveryIds as string[]).map(async (id) => (await second.store.get(id))?.status))).toEqual(['sent', 'sent']);
  });

  it('holds a delivery for the wait a transport asks, without spending its attempts', async () => {
    let holds = 3;
    const pacing: Transport = {
      provider: 'telegram',
      send: async (m) => {
        if (holds-- > 0) throw new DeliveryError({ code: 'paced', message: 'wait' }, { retryable: true, retryAfterMs: 6000, spendsAttempt: false });
        return { provider: 'telegram', providerMessageId: m.deliveryId };
      },
    };
    const h = await on({ CHAT_APP_CHAT_IDS: '111', MAX_DELIVERY_ATTEMPTS: '1' }, pacing);
    const id = ((await h.notify({ message: 'm', channels: ['CHAT_APP'], source: 'test' })).json.deliveryIds as string[])[0] as string;
    await h.outbox.settle();
    expect(await h.store.get(id)).toMatchObject({ status: 'pending', attempts: 0, error: { code: 'paced' } });
    expect(Date.parse((await h.store.get(id))?.nextAttemptAt as string) - h.clock.now()).toBe(6000);
    for (let i = 0; i < 3; i++) {
      await h.clock.advanceAsync(6000);
      await h.outbox.settle();
    }
    expect(await h.store.get(id)).toMatchObject({ status: 'sent', attempts: 1, error: null });
  });
});

describe('retryDelayMs', () => {
  const policy = { maxAttempts: 10, baseMs: 1000, capMs: 30_000 };

  it('draws uniformly below min(cap, base·2^(attempt-1))', () => {
    expect(retryDelayMs(policy, 1, () => 0.999)).toBe(999);
    expect(retryDelayMs(policy, 3, () => 0.5)).toBe(2000);
    expect(retryDelayMs(policy, 10, () => 0.999)).toBe(29_970);
    expect(retryDelayMs(policy, 3, () => 0)).toBe(0);
  });

  it("never waits less than the provider's retry-after, even past the cap", () => {
    expect(retryDelayMs(policy, 1, () => 0.5, 7000)).toBe(7000);
    expect(retryDelayMs(policy, 10, () => 0.5, 120_000)).toBe(120_000);
    expect(retryDelayMs(policy, 5, () => 0.9, 10)).toBe(14_400);
  });
});
