import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TELEGRAM_LIMITS } from '../src/channels/telegram-pacer.js';
import { fakeTelegram, telegramError, type FakeProvider, type TelegramCall } from './fakes.js';
import { drainOutbox, startService, type Harness } from './harness.js';

const TOKEN = '123456:pacing-test';

let telegram: FakeProvider & { calls: TelegramCall[] };
let service: Harness | undefined;
let dir: string;
beforeAll(async () => {
  // The fake judges the Bot FAQ's limits by the service's own (manual) clock.
  telegram = await fakeTelegram(TOKEN, { now: () => service?.clock.now() ?? Date.now(), migrated: { '-4001': -1004001 } }).start();
});
afterAll(() => telegram.stop());
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fxdesk-telegram-'));
});
afterEach(async () => {
  await service?.close();
  service = undefined;
  telegram.reset();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function start(chats: string[], env: Record<string, string> = {}): Promise<Harness> {
  service = await startService({ CHAT_APP_BOT_TOKEN: TOKEN, CHAT_APP_BASE_URL: telegram.url, CHAT_APP_CHAT_IDS: chats.join(','), DATA_DIR: dir, ...env });
  return service;
}

async function notify(h: Harness, message: string): Promise<string[]> {
  const res = await h.notify({ message, channels: ['CHAT_APP'], source: 'strategy' });
  expect(res.statusCode).toBe(201);
  return res.json.deliveryIds as string[];
}

const accepted = (calls: TelegramCall[], chat: string) => calls.filter((c) => c.chat === chat && 'messageId' in c.outcome);
const floods = (calls: TelegramCall[]) => calls.filter((c) => 'errorCode' in c.outcome && c.outcome.errorCode === 429);

/** Every 429 was waited out: no call to its chat before its retry_after had passed, and one after. */
function everyFloodWaitedOut(calls: TelegramCall[], held: TelegramCall[]): boolean {
  return held.every((f) => {
    const wait = 'retryAfter' in f.outcome ? (f.outcome.retryAfter ?? 0) * 1000 : 0;
    const later = calls.filter((c) => c.chat === f.chat && c.at > f.at);
    return later.length > 0 && later.every((c) => c.at >= f.at + wait);
  });
}

describe('Telegram pacing', () => {
  it('holds only the chat that got a 429, for its retry_after, and spends no attempt on it', async () => {
    const h = await start(['111', '222']);
    telegram.next(telegramError(429, 'Too Many Requests: retry after 5', { retry_after: 5 }));
    const t0 = h.clock.now();
    const ids = [...(await notify(h, 'm1')), ...(await notify(h, 'm2')), ...(await notify(h, 'm3'))];
    await drainOutbox(h);

    expect((await Promise.all(ids.map((id) => h.store.get(id)))).map((d) => [d?.status, d?.attempts])).toEqual(Array.from({ length: 6 }, () => ['sent', 1]));
    // 222 goes on a message a second; 111 waits the 5 s, then goes on the same way.
    expect(accepted(telegram.calls, '222').map((c) => c.at - t0)).toEqual([0, 1000, 2000]);
    expect(accepted(telegram.calls, '111').map((c) => c.at - t0)).toEqual([5000, 6000, 7000]);
    expect(telegram.received).toHaveLength(7);
  });

  it('sends a message a second to a chat, 20 a minute to a group and 30 a second from the bot, with no 429', async () => {
    const privateChats = Array.from({ length: 40 }, (_, i) => String(1000 + i));
    const h = await start([...privateChats, '-777']);
    const t0 = h.clock.now();
    for (let i = 0; i < 22; i++) await notify(h, `alert ${i}`);
    await drainOutbox(h);

    expect(floods(telegram.calls)).toEqual([]);
    expect(await h.store.countByStatus()).toEqual({ sent: 22 * 41 });
    // 902 messages at 30 a second: the bot's limit is reached, and never passed, in any second.
    const inSecondFrom = (at: number) => telegram.calls.filter((c) => c.at >= at && c.at < at + 1000).length;
    expect(Math.max(...telegram.calls.map((c) => inSecondFrom(c.at)))).toBe(TELEGRAM_LIMITS.perBot.limit);
    // Each private chat a second apart at least; the group's first 20 within its first minute, the 21st after it.
    const gaps = (times: number[]) => times.slice(1).map((t, i) => t - (times[i] as number));
    expect(Math.min(...gaps(accepted(telegram.calls, '1000').map((c) => c.at)))).toBeGreaterThanOrEqual(1000);
    const group = accepted(telegram.calls, '-777').map((c) => c.at - t0);
    expect(group[19]).toBeLessThan(60_000);
    expect(group[20]).toBeGreaterThanOrEqual((group[0] as number) + 60_000);
  });
});

describe('a group upgraded to a supergroup', () => {
  it('is sent to at its new id, and every later delivery goes there, after a restart too', async () => {
    let h = await start(['-4001']);
    const [first] = await notify(h, 'before the move');
    await drainOutbox(h);
    expect(telegram.calls.map((c) => [c.chat, 'messageId' in c.outcome ? 'ok' : c.outcome.errorCode])).toEqual([
      ['-4001', 400],
      ['-1004001', 'ok'],
    ]);
    const sentTo = telegram.calls[1]?.outcome;
    expect(await h.store.get(first as string)).toMatchObject({
      status: 'sent',
      attempts: 1,
      error: null,
      recipient: '-4001',
      providerMessageId: `-1004001:${sentTo && 'messageId' in sentTo ? sentTo.messageId : ''}`,
    });
    expect(await h.store.routeOf('CHAT_APP', '-4001')).toBe('-1004001');

    await h.close();
    telegram.reset();
    h = await start(['-4001']);
    const [later] = await notify(h, 'after the move');
    await drainOutbox(h);
    expect(telegram.calls.map((c) => c.chat)).toEqual(['-1004001']);
    expect(await h.store.get(later as string)).toMatchObject({ status: 'sent', recipient: '-4001' });
  });
});

describe('a message longer than 4096 characters', () => {
  const lines = ['a', 'b', 'c'].map((c) => c.repeat(3000));

  it('goes as parts cut at line breaks, each sent once even when one of them must be retried', async () => {
    const h = await start(['111'], { RETRY_BASE_MS: '1000' });
    telegram.next(() => undefined, telegramError(502, 'Bad Gateway'));
    const [id] = await notify(h, lines.join('\n'));
    await drainOutbox(h);

    const texts = telegram.received.map((r) => r.json?.text);
    expect(texts).toEqual([lines[0], lines[1], lines[1], lines[2]]);
    const record = await h.store.get(id as string);
    expect(record).toMatchObject({ status: 'sent', attempts: 2, error: null });
    const messageIds = accepted(telegram.calls, '111').map((c) => ('messageId' in c.outcome ? String(c.outcome.messageId) : ''));
    expect(record?.providerMessageId).toBe(messageIds.join(','));
    expect((await h.store.partsSent(id as string)).map((p) => [p.part, p.parts])).toEqual([
      [0, 3],
      [1, 3],
      [2, 3],
    ]);
  });

  it('carries on after the parts already accepted when a restarted worker sends it again', async () => {
    let h = await start(['111']);
    const [id] = await notify(h, lines.join('\n'));
    await h.outbox.settle(); // the first part goes; the second waits for the chat's next second
    expect(telegram.received.map((r) => r.json?.text)).toEqual([lines[0]]);
    await h.close();

    h = await start(['111']);
    await drainOutbox(h);
    expect(telegram.received.map((r) => r.json?.text)).toEqual(lines);
    expect((await h.store.get(id as string))?.status).toBe('sent');
  });

  it('is recorded sent without sending again when every part was accepted before the worker stopped', async () => {
    const h = await start(['111']);
    await h.outbox.settle(); // idle: nothing claims the row before its parts are in
    const message = lines.join('\n');
    const id = randomUUID();
    // As a worker leaves it when it stops between Telegram's last acceptance and its commit of `sent`.
    await h.store.create({
      requestId: randomUUID(),
      source: 'strategy',
      idempotencyKey: undefined,
      message,
      subject: undefined,
      contentType: 'text',
      channels: ['CHAT_APP'],
      payloadHash: 'h',
      deliveries: [{ id, channel: 'CHAT_APP', recipient: '111' }],
      now: h.clock.now(),
    });
    for (const part of [0, 1, 2]) await h.store.recordPart(id, { part, parts: 3, address: '111', providerMessageId: String(500 + part) }, h.clock.now());
    await drainOutbox(h);
    expect(telegram.received).toEqual([]);
    expect(await h.store.get(id)).toMatchObject({ status: 'sent', providerMessageId: '500,501,502' });
  });
});

describe('a burst of 200 alerts', () => {
  it.each([
    ['one chat', ['111']],
    ['10 chats', ['111', '222', '333', '444', '555', '666', '777', '-1001', '-1002', '@fx_alerts']],
  ])(
    'to %s ends with every delivery sent and every 429 waited out',
    async (_name, chats) => {
      const h = await start(chats);
      // Telegram may hold a chat even under the documented limits: one flood wait after 100 messages.
      const held: TelegramCall[] = [];
      telegram.next(...Array.from({ length: 100 }, () => () => undefined), (req) => {
        held.push({ at: h.clock.now(), chat: String(req.json?.chat_id), outcome: { errorCode: 429, retryAfter: 10 } });
        return telegramError(429, 'Too Many Requests: retry after 10', { retry_after: 10 });
      });
      const t0 = h.clock.now();
      const wallStart = performance.now();
      const ids: string[] = [];
      for (let i = 0; i < 200; i++) ids.push(...(await notify(h, `EUR_USD alert ${i}`)));
      const simulatedMs = await drainOutbox(h);
      const wallMs = performance.now() - wallStart;

      expect(held).toHaveLength(1);
      expect(await h.store.countByStatus()).toEqual({ sent: 200 * chats.length });
      expect((await Promise.all(ids.map((id) => h.store.get(id)))).every((d) => d?.attempts === 1)).toBe(true);
      expect(everyFloodWaitedOut(telegram.calls, held)).toBe(true);
      // The fake found no message over a documented limit: the pacer kept under all of them.
      expect(floods(telegram.calls)).toEqual([]);
      // Groups set the pace: 20 a minute, so 200 take 9 full minutes and 20 s; a private chat 199 s; plus the 10 s hold.
      const slowest = chats.some((c) => c.startsWith('-') || c.startsWith('@')) ? 9 * 60_000 + 19_000 : 199_000;
      expect(h.clock.now() - t0).toBeGreaterThanOrEqual(slowest);
      expect(h.clock.now() - t0).toBeLessThanOrEqual(slowest + 11_000);
      console.info(`200 alerts to ${chats.length} chat(s): ${Math.round(simulatedMs / 1000)} s simulated, ${Math.round(wallMs)} ms wall`);
    },
    120_000,
  );
});
