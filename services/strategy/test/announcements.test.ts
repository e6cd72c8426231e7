import path from 'node:path';
import { NotificationClient } from '@fxdesk/client';
import type { Env } from '@fxdesk/core';
import { ManualClock } from '@fxdesk/primitives';
import type { JournalTrade, StrategySignal } from '@fxdesk/schemas';
import { afterEach, describe, expect, it } from 'vitest';
import { ANNOUNCE_CHECK_MS } from '../src/announcements.js';
import type { Leadership } from '../src/leadership.js';
import type { PaperTrade } from '../src/store/index.js';
import { accepted, envelope, fakeService, type FakeAnswer, type FakeService, type RecordedRequest } from './fake-service.js';
import { harness, MONDAY_NOON, tempDir, type Harness } from './helpers.js';
import { signalFixture } from './signal-fixture.js';

let cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

const HOUR_MS = 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString();

/** A replica that never takes the lead. */
const follower: Leadership = {
  replicaId: 'follower',
  isLeader: false,
  start: () => {},
  announce: () => {},
  check: async () => ({ ok: true, detail: 'follower: replica leader leads' }),
  stop: async () => {},
};

interface DeskOptions {
  notification?: FakeService;
  env?: Env;
  dbFile?: string;
  clock?: ManualClock;
  leadership?: Leadership;
}

async function desk(options: DeskOptions = {}): Promise<Harness> {
  const notification = options.notification && new NotificationClient({ baseUrl: options.notification.url, apiKey: 'notify-key-123', timeoutMs: 2000 });
  const h = await harness({ env: options.env, dbFile: options.dbFile, clock: options.clock, deps: { notification, leadership: options.leadership } });
  let isClosed = false;
  const close = async () => {
    if (isClosed) return;
    isClosed = true;
    await h.close();
    await notification?.close();
  };
  cleanups.push(close);
  return { ...h, close };
}

async function fake(handler: (request: RecordedRequest) => FakeAnswer = accepted): Promise<FakeService> {
  const service = await fakeService(handler);
  cleanups.push(service.close);
  return service;
}

/** One check of the announcements: the clock moved to it, and the round it starts finished. */
async function nextCheck(h: Harness): Promise<void> {
  await h.advance(ANNOUNCE_CHECK_MS);
  await h.deps.announcements.whenIdle();
}

const LIVE = signalFixture({
  signal_id: '11111111-1111-5111-8111-111111111111',
  type: 'SHORT',
  instrument: 'GBP_USD',
  symbol: 'GBPUSD',
  entry_price: 1.27,
  stop_loss: 1.272,
  take_profit: 1.266,
  dry_run: false,
  execution: {
    status: 'filled',
    code: null,
    message: null,
    tickets: { order: '5001', deal: '6001', position: '5001' },
    attempts: 1,
    updated_at: iso(MONDAY_NOON),
  },
});
const PAPER = signalFixture({ signal_id: '22222222-2222-5222-8222-222222222222' });

function paperTradeOf(signal: StrategySignal): PaperTrade {
  return {
    signalId: signal.signal_id,
    instrument: signal.instrument,
    side: 1,
    units: 10_000,
    entry: signal.entry_price,
    stopLoss: signal.stop_loss,
    takeProfit: signal.take_profit,
    candleTime: Date.parse(signal.candle_time) / 1000,
    openedAt: signal.generated_at,
  };
}

/** The paper trade of PAPER entered at the 12:00 open at 1.10005, and, with `exit`, closed at its target. */
async function paperTrade(h: Harness, exit?: { price: number; pnl: number; rMultiple: number; exitMs: number }): Promise<void> {
  const trade = paperTradeOf(PAPER);
  await h.stores.signals.insert(PAPER, trade);
  const entryTime = MONDAY_NOON / 1000;
  await h.stores.paperTrades.keep({
    ...trade,
    entry: 1.10005,
    entryTime,
    stop: trade.stopLoss,
    stopReason: 'stop',
    candlesHeld: 0,
    lastCandleTime: entryTime,
    closing: null,
    volumeLots: 0.1,
  });
  if (!exit) return;
  await h.stores.paperTrades.closePaperTrade(PAPER.signal_id, exit.price, exit.pnl, iso(exit.exitMs), {
    reason: 'target',
    exitTime: exit.exitMs / 1000,
    commission: 0,
    rMultiple: exit.rMultiple,
  });
}

function liveTrade(over: Partial<JournalTrade> = {}): JournalTrade {
  return {
    id: 'live:5001',
    account: 'live',
    signal_id: LIVE.signal_id,
    position: '5001',
    instrument: 'GBP_USD',
    side: 'SHORT',
    volume_lots: 0.1,
    entry_time: iso(MONDAY_NOON),
    entry_price: 1.27001,
    exit_time: iso(MONDAY_NOON + 2 * HOUR_MS + 300_000),
    exit_price: 1.27202,
    exit_reason: 'stop',
    pnl: -20.45,
    commission: -0.35,
    swap: -0.1,
    r_multiple: -1.02,
    duration_seconds: 7500,
    ...over,
  };
}

const keysOf = (service: FakeService) => service.requests.map((r) => (r.body as { idempotencyKey: string }).idempotencyKey);
/** The subject and message of the announcement sent under `key`. */
function bodyOf(service: FakeService, key: string): { subject: string; message: string } {
  const body = service.requests.find((r) => (r.body as { idempotencyKey: string }).idempotencyKey === key)?.body as { subject: string; message: string };
  return { subject: body.subject, message: body.message };
}

describe('announcements of fills and exits', () => {
  it('announces a live fill, a paper fill and each exit under its key, fills first, on the configured channels', async () => {
    const notification = await fake();
    const h = await desk({ notification, env: { NOTIFICATION_CHANNELS: 'CHAT_APP,EMAIL' } });
    await h.stores.signals.insert(LIVE);
    await paperTrade(h, { price: 1.102, pnl: 19.95, rMultiple: 1.9762, exitMs: MONDAY_NOON + HOUR_MS });
    await h.stores.journal.record(liveTrade());
    await nextCheck(h);
    expect(keysOf(notification)).toEqual([`fill:${LIVE.signal_id}`, `fill:${PAPER.signal_id}`, `exit:paper:${PAPER.signal_id}`, 'exit:live:5001']);
    const request = notification.requests[0]!;
    expect(request.url).toBe('/notifications');
    expect(request.headers['x-api-key']).toBe('notify-key-123');
    expect(request.body).toMatchObject({ channels: ['CHAT_APP', 'EMAIL'], source: 'fxdesk-strategy' });
    expect(bodyOf(notification, `fill:${LIVE.signal_id}`)).toEqual({
      subject: 'Filled: SHORT GBP_USD (live)',
      message: expect.stringContaining('order 5001 · position 5001'),
    });
    expect(bodyOf(notification, `fill:${PAPER.signal_id}`).subject).toBe('Filled: LONG EUR_USD at 1.10005 (paper)');
    expect(bodyOf(notification, `fill:${PAPER.signal_id}`).message).toContain('stop 1.099 · target 1.102');
    expect(bodyOf(notification, `exit:paper:${PAPER.signal_id}`)).toEqual({
      subject: 'Closed: LONG EUR_USD +19.95 USD (target, paper)',
      message: [
        'LONG EUR_USD closed by target (paper)',
        'entry 1.10005 → exit 1.102',
        'P/L +19.95 USD · +1.98 R',
        `0.10 lots, held 1h 0m, closed ${iso(MONDAY_NOON + HOUR_MS)}`,
        `trade paper:${PAPER.signal_id}`,
      ].join('\n'),
    });
    expect(bodyOf(notification, 'exit:live:5001').message).toContain('P/L −20.45 (account currency) · −1.02 R');
    expect(bodyOf(notification, 'exit:live:5001').message).toContain('SHORT GBP_USD closed by stop (live)\nentry 1.27001 → exit 1.27202');
  });

  it('announces nothing of a signal whose order did not fill, nor of a paper trade waiting for its entry', async () => {
    const notification = await fake();
    const h = await desk({ notification });
    await h.stores.signals.insert({ ...LIVE, execution: { ...LIVE.execution, status: 'rejected', tickets: null, code: 'invalid_stops' } });
    await h.stores.signals.insert(PAPER, paperTradeOf(PAPER));
    await nextCheck(h);
    expect(notification.requests).toEqual([]);
  });

  it('sends each once: a later check and a restart on the same DATA_DIR send none of them again', async () => {
    const temp = tempDir();
    cleanups.push(temp.remove);
    const dbFile = path.join(temp.dir, 'strategy.db');
    const notification = await fake();
    const clock = new ManualClock(MONDAY_NOON);
    const first = await desk({ notification, dbFile, clock });
    await first.stores.signals.insert(LIVE);
    await paperTrade(first, { price: 1.102, pnl: 19.95, rMultiple: 1.9762, exitMs: MONDAY_NOON + HOUR_MS });
    await nextCheck(first);
    await nextCheck(first);
    expect(notification.requests).toHaveLength(3);
    await first.close();

    const second = await desk({ notification, dbFile, clock });
    await second.stores.journal.record(liveTrade());
    await nextCheck(second);
    expect(keysOf(notification)).toEqual([`fill:${LIVE.signal_id}`, `fill:${PAPER.signal_id}`, `exit:paper:${PAPER.signal_id}`, 'exit:live:5001']);
  });

  it('tries a failed send again at the next check, in order, until the notification service takes it', async () => {
    let isDown = true;
    const notification = await fake(() => (isDown ? { status: 503, body: envelope('unavailable') } : accepted()));
    const h = await desk({ notification });
    await paperTrade(h, { price: 1.102, pnl: 19.95, rMultiple: 1.9762, exitMs: MONDAY_NOON + HOUR_MS });
    await nextCheck(h);
    await nextCheck(h);
    // The fill failed twice; its exit waited behind it.
    expect(keysOf(notification)).toEqual([`fill:${PAPER.signal_id}`, `fill:${PAPER.signal_id}`]);
    expect((await h.app.inject({ url: '/status' })).json().downstream.notification).toMatchObject({ state: 'failing', consecutive_failures: 2 });
    isDown = false;
    await nextCheck(h);
    await nextCheck(h);
    expect(keysOf(notification)).toEqual([`fill:${PAPER.signal_id}`, `fill:${PAPER.signal_id}`, `fill:${PAPER.signal_id}`, `exit:paper:${PAPER.signal_id}`]);
    expect((await h.app.inject({ url: '/status' })).json().downstream.notification.state).toBe('ok');
  });

  it('sends the same key and bytes again when what a send came to could not be kept (a crash between the answer and the write)', async () => {
    const notification = await fake();
    const h = await desk({ notification });
    await paperTrade(h, { price: 1.102, pnl: 19.95, rMultiple: 1.9762, exitMs: MONDAY_NOON + HOUR_MS });
    const journal = h.stores.journal;
    const keep = journal.markAnnounced.bind(journal);
    let isFailing = true;
    journal.markAnnounced = async (id, outcome) => {
      if (!isFailing) return keep(id, outcome);
      isFailing = false;
      throw new Error('SQLITE_IOERR: disk I/O error');
    };
    await nextCheck(h);
    await nextCheck(h);
    await nextCheck(h);
    const exits = notification.requests.filter((r) => (r.body as { idempotencyKey: string }).idempotencyKey === `exit:paper:${PAPER.signal_id}`);
    expect(exits).toHaveLength(2);
    expect(exits[1]!.body).toEqual(exits[0]!.body);
    expect(keysOf(notification).filter((key) => key.startsWith('fill:'))).toHaveLength(1);
  });

  it('keeps going past a refusal, which is final', async () => {
    const notification = await fake((request) =>
      (request.body as { idempotencyKey: string }).idempotencyKey.startsWith('fill:') ? { status: 422, body: envelope('validation_error') } : accepted(),
    );
    const h = await desk({ notification });
    await paperTrade(h, { price: 1.102, pnl: 19.95, rMultiple: 1.9762, exitMs: MONDAY_NOON + HOUR_MS });
    await nextCheck(h);
    await nextCheck(h);
    expect(keysOf(notification)).toEqual([`fill:${PAPER.signal_id}`, `exit:paper:${PAPER.signal_id}`]);
  });

  it('announces nothing on a follower: the rows wait for the leader', async () => {
    const notification = await fake();
    const h = await desk({ notification, leadership: follower });
    await paperTrade(h, { price: 1.102, pnl: 19.95, rMultiple: 1.9762, exitMs: MONDAY_NOON + HOUR_MS });
    await nextCheck(h);
    await h.deps.announcements.sweep();
    expect(notification.requests).toEqual([]);
    expect(await h.stores.paperTrades.unannouncedFills(10)).toHaveLength(1);
    expect(await h.stores.journal.unannounced(10)).toHaveLength(1);
  });

  it('sends no kind switched off, and switching it on later sends no backlog', async () => {
    const temp = tempDir();
    cleanups.push(temp.remove);
    const dbFile = path.join(temp.dir, 'strategy.db');
    const notification = await fake();
    const clock = new ManualClock(MONDAY_NOON);
    const off = await desk({ notification, dbFile, clock, env: { ANNOUNCE_FILLS: 'false', ANNOUNCE_EXITS: 'false' } });
    await off.stores.signals.insert(LIVE);
    await paperTrade(off, { price: 1.102, pnl: 19.95, rMultiple: 1.9762, exitMs: MONDAY_NOON + HOUR_MS });
    await nextCheck(off);
    expect(notification.requests).toEqual([]);
    await off.close();

    const on = await desk({ notification, dbFile, clock });
    await on.stores.journal.record(liveTrade());
    await nextCheck(on);
    expect(keysOf(notification)).toEqual(['exit:live:5001']);
  });

  it('marks what comes without NOTIFICATION_URL as not sent, so configuring it later sends no backlog', async () => {
    const h = await desk();
    await paperTrade(h, { price: 1.102, pnl: 19.95, rMultiple: 1.9762, exitMs: MONDAY_NOON + HOUR_MS });
    await nextCheck(h);
    expect(await h.stores.paperTrades.unannouncedFills(10)).toEqual([]);
    expect(await h.stores.journal.unannounced(10)).toEqual([]);
  });
});

describe('announcements of a halt and a resume', () => {
  const RISK_ENV = { DAILY_LOSS_LIMIT: '3', ANNOUNCE_FILLS: 'false', ANNOUNCE_EXITS: 'false', ANNOUNCE_DAILY_SUMMARY: 'false' };

  it('announces a halt at once and its resume under halt:<account>:<at> and resume:<account>:<ms>, whatever the ANNOUNCE_* settings', async () => {
    const notification = await fake();
    const h = await desk({ notification, env: RISK_ENV });
    await h.deps.risk.markEquity('paper', MONDAY_NOON - 60_000, 10_000);
    await h.deps.risk.markEquity('paper', MONDAY_NOON, 9_700);
    await h.deps.announcements.whenIdle();
    expect(keysOf(notification)).toEqual([`halt:paper:${MONDAY_NOON}`]);
    const halt = notification.requests[0]?.body as { subject: string; message: string };
    expect(halt.subject).toBe('Halted: the daily loss limit reached (paper)');
    expect(halt.message).toContain("lost 300.00 of the day's 10000.00: the limit is 3%");
    expect((await h.app.inject({ method: 'POST', url: '/risk/resume', payload: { account: 'paper' } })).statusCode).toBe(200);
    await h.deps.announcements.whenIdle();
    await nextCheck(h);
    expect(keysOf(notification)).toEqual([`halt:paper:${MONDAY_NOON}`, `resume:paper:${MONDAY_NOON}`]);
    expect((notification.requests[1]?.body as { subject: string }).subject).toBe('Resumed: the paper account trades again');
  });

  it('announces a halt a failed send left at the next check, under the same key', async () => {
    let isDown = true;
    const notification = await fake(() => (isDown ? { status: 503, body: envelope('unavailable') } : accepted()));
    const h = await desk({ notification, env: RISK_ENV });
    await h.deps.risk.markEquity('live', MONDAY_NOON - 60_000, 10_000);
    await h.deps.risk.markEquity('live', MONDAY_NOON, 9_000);
    await h.deps.announcements.whenIdle();
    isDown = false;
    await nextCheck(h);
    await nextCheck(h);
    expect(keysOf(notification)).toEqual([`halt:live:${MONDAY_NOON}`, `halt:live:${MONDAY_NOON}`]);
  });
});

describe('the daily summary', () => {
  const ONLY_DAILY = { ANNOUNCE_FILLS: 'false', ANNOUNCE_EXITS: 'false', DAILY_SUMMARY_UTC_HOUR: '6', LIVE_JOURNAL_SYNC_SECONDS: '60' };
  /** Tuesday 06:00 UTC and the delay after it: 2 × 60 s + 1 minute. */
  const MONDAY_DUE = Date.UTC(2026, 0, 6, 6, 3, 0);

  async function tradedMonday(h: Harness): Promise<void> {
    await paperTrade(h, { price: 1.102, pnl: 19.95, rMultiple: 1.9762, exitMs: MONDAY_NOON + HOUR_MS });
    await h.stores.journal.record(liveTrade());
    await h.stores.journal.record(liveTrade({ id: 'live:5002', position: '5002', pnl: 40.5, r_multiple: 2.01, exit_reason: 'target' }));
    // Tuesday's trade is Tuesday's summary.
    await h.stores.journal.record(liveTrade({ id: 'live:5003', position: '5003', pnl: 7, exit_time: iso(Date.UTC(2026, 0, 6, 1, 0, 0)) }));
  }

  it("sends each account's summary of a UTC day once, at DAILY_SUMMARY_UTC_HOUR of the next day", async () => {
    const notification = await fake();
    const clock = new ManualClock(MONDAY_NOON);
    const h = await desk({ notification, clock, env: ONLY_DAILY });
    await tradedMonday(h);
    clock.set(MONDAY_DUE - ANNOUNCE_CHECK_MS - 1);
    await nextCheck(h);
    expect(notification.requests).toEqual([]);
    await nextCheck(h);
    expect(keysOf(notification)).toEqual(['daily:live:2026-01-05', 'daily:paper:2026-01-05']);
    expect(bodyOf(notification, 'daily:live:2026-01-05')).toEqual({
      subject: 'Day 2026-01-05 (live): 2 trades, +20.05 (account currency)',
      message: ['2026-01-05 UTC, live account', '2 trades: 1 won, 1 lost (50 % won)', 'P/L +20.05 (account currency) · +0.99 R'].join('\n'),
    });
    expect(bodyOf(notification, 'daily:paper:2026-01-05').subject).toBe('Day 2026-01-05 (paper): 1 trade, +19.95 USD');
    await nextCheck(h);
    expect(notification.requests).toHaveLength(2);
  });

  it('catches up the days it missed after a restart, and never sends a day twice', async () => {
    const temp = tempDir();
    cleanups.push(temp.remove);
    const dbFile = path.join(temp.dir, 'strategy.db');
    const notification = await fake();
    const clock = new ManualClock(MONDAY_NOON);
    const first = await desk({ notification, clock, dbFile, env: ONLY_DAILY });
    await tradedMonday(first);
    await nextCheck(first);
    await first.close();

    // Down until Thursday: Monday's and Tuesday's summaries go at the first check; Wednesday had no trade.
    clock.set(Date.UTC(2026, 0, 8, 9, 0, 0));
    const second = await desk({ notification, clock, dbFile, env: ONLY_DAILY });
    await nextCheck(second);
    expect(keysOf(notification)).toEqual(['daily:live:2026-01-05', 'daily:paper:2026-01-05', 'daily:live:2026-01-06']);
    await second.close();

    const third = await desk({ notification, clock, dbFile, env: ONLY_DAILY });
    await nextCheck(third);
    expect(notification.requests).toHaveLength(3);
  });

  it('tries a day again after a failure, the account already sent under the same key', async () => {
    let answers = 0;
    // The second send of the round fails once.
    const notification = await fake(() => (++answers === 2 ? { status: 502, body: envelope('bad_gateway') } : accepted()));
    const clock = new ManualClock(MONDAY_NOON);
    const h = await desk({ notification, clock, env: ONLY_DAILY });
    await tradedMonday(h);
    await nextCheck(h);
    clock.set(MONDAY_DUE);
    await nextCheck(h);
    await nextCheck(h);
    expect(keysOf(notification)).toEqual(['daily:live:2026-01-05', 'daily:paper:2026-01-05', 'daily:live:2026-01-05', 'daily:paper:2026-01-05']);
    await nextCheck(h);
    expect(notification.requests).toHaveLength(4);
  });

  it('sends no summary of a day already due when announcements began', async () => {
    const notification = await fake();
    const clock = new ManualClock(MONDAY_DUE + HOUR_MS);
    const h = await desk({ notification, clock, env: ONLY_DAILY });
    await tradedMonday(h);
    await nextCheck(h);
    expect(notification.requests).toEqual([]);
    clock.set(Date.UTC(2026, 0, 7, 7, 0, 0));
    await nextCheck(h);
    expect(keysOf(notification)).toEqual(['daily:live:2026-01-06']);
  });

  it('sends no summary with ANNOUNCE_DAILY_SUMMARY off, nor of those days once it is on', async () => {
    const temp = tempDir();
    cleanups.push(temp.remove);
    const dbFile = path.join(temp.dir, 'strategy.db');
    const notification = await fake();
    const clock = new ManualClock(MONDAY_NOON);
    const off = await desk({ notification, clock, dbFile, env: { ...ONLY_DAILY, ANNOUNCE_DAILY_SUMMARY: 'false' } });
    await tradedMonday(off);
    await nextCheck(off);
    clock.set(Date.UTC(2026, 0, 9, 12, 0, 0));
    await nextCheck(off);
    await off.close();
    const on = await desk({ notification, clock, dbFile, env: ONLY_DAILY });
    await nextCheck(on);
    expect(notification.requests).toEqual([]);
  });
});
