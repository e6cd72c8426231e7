import http from 'node:http';
import { ExecutionClient, NotificationClient } from '@fxdesk/client';
import { createLogger } from '@fxdesk/core';
import { LogCapture } from '@fxdesk/core/testing';
import {
  CandleEventSchema,
  DeliveryEventSchema,
  DownstreamEventSchema,
  LabEventSchema,
  OrderEventSchema,
  PairRecordSchema,
  STRATEGY_EVENTS,
  StrategySignalSchema,
  StrategyStatusSchema,
  type PairRecord,
  type StrategyEventName,
} from '@fxdesk/schemas';
import type { z } from 'zod';
import { afterEach, describe, expect, it } from 'vitest';
import { LAB_EVERY_MS } from '../src/event-hub.js';
import { EventReader, type ReadEvent } from './event-reader.js';
import { accepted, fakeService, filled, type FakeService } from './fake-service.js';
import { harness, type Harness, type HarnessOptions } from './helpers.js';
import { instantRunner, ManualRunner } from './lab-jobs.fixture.js';

const SCHEMAS: Record<Exclude<StrategyEventName, 'reset'>, z.ZodType> = {
  status: StrategyStatusSchema,
  pair: PairRecordSchema,
  candle: CandleEventSchema,
  signal: StrategySignalSchema,
  order: OrderEventSchema,
  delivery: DeliveryEventSchema,
  downstream: DownstreamEventSchema,
  lab: LabEventSchema,
};

let cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

async function desk(options: HarnessOptions = {}): Promise<{ h: Harness; base: string; open: (headers?: Record<string, string>) => Promise<EventReader> }> {
  const h = await harness({ ...options, env: { MIN_CONFLUENCE: '1', ...options.env } });
  cleanups.push(() => h.close());
  const base = await h.app.listen({ host: '127.0.0.1', port: 0 });
  const open = async (headers?: Record<string, string>) => {
    const reader = await EventReader.open(`${base}/events`, headers);
    cleanups.push(() => reader.close());
    return reader;
  };
  return { h, base, open };
}

async function fake(handler: Parameters<typeof fakeService>[0]): Promise<FakeService> {
  const service = await fakeService(handler);
  cleanups.push(service.close);
  return service;
}

/**
 * Moves the clock a few seconds at a time, letting the sockets flush in between: in one jump of
 * minutes a stream's writes would pile up unflushed and the 30 s stuck timer would fire, which
 * real time, where I/O runs between any two of those seconds, never does.
 */
async function walk(h: Harness, ms: number, stepMs = 5000): Promise<void> {
  for (let walked = 0; walked < ms; walked += stepMs) await h.advance(Math.min(stepMs, ms - walked));
}

/** Walks until the store holds a signal (the simulated market is deterministic). */
async function walkUntilSignal(h: Harness): Promise<void> {
  for (let i = 0; i < 200 * 30 && (await h.store.page({ limit: 1 })).signals.length === 0; i++) await h.advance(10_000);
  expect((await h.store.page({ limit: 1 })).signals).toHaveLength(1);
}

function expectConsecutive(events: readonly ReadEvent[]): void {
  const ids = events.map((e) => e.local);
  expect(ids).toEqual(ids.map((_, i) => ids[0]! + i));
}

describe('GET /events', () => {
  it('answers an event stream that starts with the retry hint and a status', async () => {
    const { open } = await desk();
    const reader = await open();
    await reader.until((r) => r.events.length > 0);
    expect(reader.status).toBe(200);
    expect(reader.headers).toMatchObject({ 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' });
    expect(reader.raw.startsWith('retry: 2000\n\n')).toBe(true);
    expect(reader.events[0]?.event).toBe('status');
    expect(StrategyStatusSchema.parse(reader.events[0]?.data)).toMatchObject({ running: false });
  });

  it('tells a start, the pairs warming up and ready, each closed candle, a signal and the status after it, each event one id after the last', async () => {
    const { h, open } = await desk();
    const reader = await open();
    await h.app.inject({ method: 'POST', url: '/start', payload: { instruments: ['EUR_USD', 'GBP_USD'], dry_run: true } });
    await h.advance(1000);
    await reader.until((r) => r.ofType('pair').filter((e) => (e.data as PairRecord).status === 'monitoring').length === 2);
    expect(reader.ofType('pair').map((e) => [(e.data as PairRecord).instrument, (e.data as PairRecord).status])).toEqual([
      ['EUR_USD', 'warming_up'],
      ['GBP_USD', 'warming_up'],
      ['EUR_USD', 'monitoring'],
      ['GBP_USD', 'monitoring'],
    ]);
    // The warm-up history closed before the start: no candle event for it.
    expect(reader.ofType('candle')).toHaveLength(0);

    await walkUntilSignal(h);
    await h.settle();
    const signal = (await h.store.page({ limit: 1 })).signals[0]!;
    await reader.until((r) => r.events.at(-1)?.local === h.events.lastId);
    expect(reader.ofType('signal').map((e) => e.data)).toEqual([signal]);
    expect(reader.ofType('status').at(-1)?.data).toMatchObject({ running: true, total_signals_today: 1, last_signal_time: signal.generated_at });

    const candles = reader.ofType('candle').map((e) => CandleEventSchema.parse(e.data));
    const chart = (await h.app.inject({ url: '/pairs/EUR_USD/candles?limit=500' })).json<{ candles: unknown[] }>().candles;
    const eurCandles = candles.filter((c) => c.instrument === 'EUR_USD').map((c) => c.candle);
    expect(eurCandles.length).toBeGreaterThan(0);
    expect(eurCandles).toEqual(chart.slice(chart.length - eurCandles.length));
    expect(candles.every((c) => c.timeframe === 'M5')).toBe(true);

    for (const event of reader.events) SCHEMAS[event.event as keyof typeof SCHEMAS].parse(event.data);
    expectConsecutive(reader.events);
  });

  it("tells a live signal's order and delivery, and the execution and notification services answering", async () => {
    const execution = await fake(filled);
    const notification = await fake(accepted);
    const executionClient = new ExecutionClient({ baseUrl: execution.url, timeoutMs: 2000 });
    const notificationClient = new NotificationClient({ baseUrl: notification.url, timeoutMs: 2000 });
    cleanups.push(
      () => executionClient.close(),
      () => notificationClient.close(),
    );
    const { h, open } = await desk({ deps: { execution: executionClient, notification: notificationClient } });
    const reader = await open();
    await h.app.inject({ method: 'POST', url: '/start', payload: { instruments: ['EUR_USD'], dry_run: false } });
    await walkUntilSignal(h);
    await h.settle();
    const signal = (await h.store.page({ limit: 1 })).signals[0]!;
    await reader.until((r) => r.ofType('delivery').length === 1);
    expect(reader.ofType('order').map((e) => e.data)).toEqual([{ signal_id: signal.signal_id, instrument: 'EUR_USD', execution: signal.execution }]);
    expect(signal.execution.status).toBe('filled');
    expect(reader.ofType('delivery').map((e) => e.data)).toEqual([{ signal_id: signal.signal_id, instrument: 'EUR_USD', notification: signal.notification }]);
    expect(signal.notification.status).toBe('sent');
    expect(reader.ofType('downstream').map((e) => e.data)).toEqual([
      // The in-process market answered the start's catalog read: unknown → ok.
      { service: 'market_data', state: expect.objectContaining({ state: 'ok' }) },
      { service: 'execution', state: expect.objectContaining({ state: 'ok' }) },
      { service: 'notification', state: expect.objectContaining({ state: 'ok' }) },
    ]);
    const seen = new Set(reader.events.map((e) => e.event));
    // The lab's events have their test below.
    expect(STRATEGY_EVENTS.filter((name) => !seen.has(name))).toEqual(['lab', 'reset']);
  });

  it('tells a downstream service that stops answering, once', async () => {
    const execution = await fake(filled);
    await execution.close();
    const client = new ExecutionClient({ baseUrl: execution.url, timeoutMs: 2000 });
    cleanups.push(() => client.close());
    const { h, open } = await desk({ env: { DOWNSTREAM_RETRIES: '0' }, deps: { execution: client } });
    const reader = await open();
    await h.app.inject({ method: 'POST', url: '/start', payload: { instruments: ['EUR_USD'], dry_run: false } });
    await walkUntilSignal(h);
    await h.settle();
    await reader.until((r) => r.ofType('order').length === 1);
    expect(reader.ofType('order')[0]?.data).toMatchObject({ execution: { status: 'failed' } });
    expect(
      reader
        .ofType('downstream')
        .filter((e) => (e.data as { service: string }).service === 'execution')
        .map((e) => e.data),
    ).toEqual([{ service: 'execution', state: expect.objectContaining({ state: 'failing', consecutive_failures: 1 }) }]);
  });

  it('resumes after Last-Event-ID with every event since, in order, none twice', async () => {
    const { h, open } = await desk();
    const witness = await open();
    const first = await open();
    await h.app.inject({ method: 'POST', url: '/start', payload: { dry_run: true } });
    await h.advance(1000);
    await first.until((r) => r.ofType('pair').length >= 8);
    const resumeAfter = first.events.at(-1)!;
    first.close();
    await walk(h, 15 * 60_000);
    const newest = h.events.lastId;
    expect(newest).toBeGreaterThan(resumeAfter.local + 10);
    await witness.until((r) => r.events.at(-1)?.local === newest);

    const resumed = await open({ 'last-event-id': resumeAfter.id });
    await resumed.until((r) => r.events.some((e) => e.local === newest));
    const missed = witness.events.filter((e) => e.local > resumeAfter.local);
    expect(resumed.events.slice(0, missed.length)).toEqual(missed);
    expect(resumed.events[0]?.local).toBe(resumeAfter.local + 1);
    expectConsecutive(resumed.events);
  });

  it('resumes after a Last-Event-ID the ring no longer keeps with the desk events since, from the log, then the pairs as they are', async () => {
    const { h, open } = await desk({ env: { EVENTS_REPLAY: '50' } });
    const witness = await open();
    await h.app.inject({ method: 'POST', url: '/start', payload: { instruments: ['EUR_USD', 'GBP_USD'], dry_run: true } });
    await h.advance(1000);
    await witness.until((r) => r.ofType('pair').length >= 4);
    const resumeAfter = witness.events.at(-1)!;
    // 15 minutes: 6 candles, 2 pairs' quotes each second or so, far more events than the ring's 50.
    await walk(h, 15 * 60_000);
    await witness.until((r) => r.events.at(-1)?.local === h.events.lastId);
    const resumed = await open({ 'last-event-id': resumeAfter.id });
    await resumed.until((r) => r.ofType('status').length > 0);
    const desks = (events: readonly ReadEvent[]) =>
      events.filter((e) => e.desk > resumeAfter.desk && e.local <= h.events.lastId && e.event !== 'pair' && e.event !== 'status' && e.event !== 'downstream');
    const missed = desks(witness.events);
    expect(missed.map((e) => e.event)).toContain('candle');
    expect(resumed.events.slice(0, missed.length).map((e) => [e.event, e.desk, e.data])).toEqual(missed.map((e) => [e.event, e.desk, e.data]));
    expect(resumed.events.slice(missed.length, missed.length + 2).map((e) => [e.event, (e.data as PairRecord).instrument])).toEqual([
      ['pair', 'EUR_USD'],
      ['pair', 'GBP_USD'],
    ]);
  });

  it('sends reset first when Last-Event-ID is older than the ring and the log can tell', async () => {
    const { h, open } = await desk({ env: { EVENTS_REPLAY: '10' } });
    const witness = await open();
    await h.app.inject({ method: 'POST', url: '/start', payload: { dry_run: true } });
    await walk(h, 15 * 60_000);
    await witness.until((r) => r.events.at(-1)?.local === h.events.lastId);
    const lastId = h.events.lastId;
    // More desk events since its id (four pairs' candles) than the EVENTS_REPLAY a resume reads from the log.
    expect(h.events.desk - witness.events[0]!.desk).toBeGreaterThan(10);
    const late = await open({ 'last-event-id': witness.events[0]!.id });
    await late.until((r) => r.events.length >= 2);
    expect(late.events[0]).toEqual({ event: 'reset', id: `${h.events.desk}.${h.events.name}.${lastId}`, desk: h.events.desk, local: lastId, data: {} });
    expect(late.events[1]).toMatchObject({ event: 'status', local: lastId + 1 });
  });

  it("tells a backtest's every status at once and its progress at most once a second", async () => {
    const runner = new ManualRunner();
    const { h, open } = await desk({ labRunner: runner });
    const reader = await open();
    const labs = () => reader.ofType('lab').map((e) => LabEventSchema.parse(e.data));
    const submitted = await h.app.inject({ method: 'POST', url: '/backtests', payload: { instruments: ['EUR_USD'], from: '2025-12-01', to: '2025-12-06' } });
    const { id } = submitted.json<{ id: string }>();
    const call = await runner.next();
    // The loading's progress (its fifth) waits for the second after `running`; the run's moves, for the next.
    await h.advance(LAB_EVERY_MS);
    call.onProgress(0.5);
    call.onProgress(0.75);
    // Each move is written to the store, then told: both before the second is up.
    await h.settle();
    await h.advance(LAB_EVERY_MS);
    call.finish();
    await h.lab.whenIdle();
    await reader.until(() => labs().at(-1)?.status === 'done');
    expect(labs().map((e) => [e.kind, e.id, e.status, Number(e.progress.toFixed(6)), e.sweep_id])).toEqual([
      ['backtest', id, 'queued', 0, null],
      ['backtest', id, 'running', 0, null],
      ['backtest', id, 'running', 0.2, null],
      ['backtest', id, 'running', 0.8, null],
      ['backtest', id, 'done', 1, null],
    ]);
  });

  it("tells a sweep's states, and its backtests' from when they start", async () => {
    const { h, open } = await desk({ labRunner: instantRunner });
    const reader = await open();
    const labs = () => reader.ofType('lab').map((e) => LabEventSchema.parse(e.data));
    const payload = { base: { instruments: ['EUR_USD'], from: '2025-12-01', to: '2025-12-06' }, grid: { min_confluence: [1, 2] }, rank_by: 'net_profit' };
    const { id } = (await h.app.inject({ method: 'POST', url: '/sweeps', payload })).json<{ id: string }>();
    await h.lab.whenIdle();
    await reader.until(() => labs().some((e) => e.kind === 'sweep' && e.status === 'done'));
    const members = (await h.app.inject({ url: `/sweeps/${id}` })).json<{ results: Array<{ backtest_id: string }> }>().results.map((r) => r.backtest_id);
    // Each job's statuses in turn (progress alone may repeat one).
    const statuses = (jobId: string) =>
      labs()
        .filter((e) => e.id === jobId)
        .map((e) => e.status)
        .filter((status, i, all) => status !== all[i - 1]);
    expect(statuses(id)).toEqual(['queued', 'running', 'done']);
    for (const member of members) {
      expect(statuses(member)).toEqual(['running', 'done']);
      expect(
        labs()
          .filter((e) => e.id === member)
          .every((e) => e.kind === 'backtest' && e.sweep_id === id),
      ).toBe(true);
    }
  });

  it('ends its streams when the service closes, with no warning logged', async () => {
    const logs = new LogCapture();
    const { h, open } = await desk({ deps: { logger: createLogger({ name: 'strategy', level: 'info', stream: logs }) } });
    const readers = await Promise.all([open(), open()]);
    await Promise.all(readers.map((r) => r.until((x) => x.events.length > 0)));
    await h.app.close();
    await Promise.all(readers.map((r) => r.ended));
    const levels = logs.lines.map((line) => (JSON.parse(line) as { level: number }).level);
    expect(levels.filter((level) => level >= 40)).toEqual([]);
    expect(logs.text()).toContain('/events stream closed');
  });

  it('answers 503 TOO_MANY_CLIENTS past EVENTS_MAX_CLIENTS', async () => {
    const { base, open } = await desk({ env: { EVENTS_MAX_CLIENTS: '1' } });
    const reader = await open();
    await reader.until((r) => r.events.length > 0);
    const refused = await fetch(`${base}/events`);
    expect(refused.status).toBe(503);
    expect(await refused.json()).toMatchObject({ code: 'TOO_MANY_CLIENTS' });
  });
});

describe('a client that reads nothing', () => {
  it('costs the service no more than its socket buffer, however many events it misses, and is dropped after 30 s', async () => {
    const { h, base } = await desk({ env: { EVENTS_REPLAY: '1000' } });
    const paused = await new Promise<http.IncomingMessage>((resolve) => {
      const req = http.get(`${base}/events`, (res) => {
        res.pause();
        resolve(res);
      });
      cleanups.push(() => req.destroy());
    });
    const closed = new Promise<void>((resolve) => paused.socket.once('close', () => resolve()));
    await h.settle();
    const [stream] = h.events.openStreams();
    const note = 'x'.repeat(16 * 1024);
    let published = 0;
    const publish = (n: number) => {
      for (let i = 0; i < n; i++, published++) h.events.downstream({ service: 'execution', state: { last_error: { message: note } } as never });
    };
    const turn = () => new Promise((resolve) => setImmediate(resolve));
    // Publish until the kernel's buffers are full too: the socket then takes nothing, turn after turn.
    for (let still = 0, last = -1; still < 20;) {
      publish(10);
      await turn();
      await turn();
      still = stream!.backpressured && stream!.lastSentId === last ? still + 1 : 0;
      last = stream!.lastSentId;
      // The socket's 16 KB high-water mark, and the one event (16 KB and its framing) that crossed it.
      expect(stream!.socketWritableLength).toBeLessThanOrEqual(16 * 1024 + 16 * 1024 + 512);
    }
    const held = stream!.socketWritableLength;
    const sent = stream!.lastSentId;
    publish(2000);
    await turn();
    // Missed events cost nothing: they are in the ring all clients share, not in a queue of this one.
    expect(stream!.socketWritableLength).toBe(held);
    expect(stream!.lastSentId).toBe(sent);
    expect(h.events.lastId - sent).toBeGreaterThan(2000);

    await h.advance(30_000);
    expect(stream!.closed).toBe(true);
    // The client, once it reads again, finds the stream dropped.
    paused.resume();
    await closed;
    expect(h.events.openStreams()).toHaveLength(0);
  });
});
