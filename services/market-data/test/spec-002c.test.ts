/**
 * Spec 002 (C)'s table of connection states and readiness results: each `it` covers one row.
 * Runs on the fake feed with a manual clock (Monday 2026-01-05 12:00 UTC, market open unless
 * the row says otherwise).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { buildTestService, quoteEverySymbol, ready, type TestService } from './helpers.js';

let service: TestService | undefined;

afterEach(async () => {
  await service?.app.close();
  service = undefined;
});

describe('GET /health/ready, one test per row of the spec state table', () => {
  it('answers 503 with details when the broker session is absent', async () => {
    service = await buildTestService({ prepare: (feed) => (feed.failConnects = 100) });
    const { status, body } = await ready(service);
    expect(status).toBe(503);
    expect(body.status).toBe('not_ready');
    expect(body.checks.broker).toEqual({ ok: false, detail: expect.stringContaining('broker session disconnected') });
  });

  it('stays ready with the reason when connected with no quote yet and the market is closed', async () => {
    service = await buildTestService({ prepare: (feed) => (feed.marketOpen = false) });
    service.clock.advance(3_600_000);
    const { status, body } = await ready(service);
    expect(status).toBe(200);
    expect(body.checks.ticks).toEqual({ ok: true, detail: 'market closed; no quotes received yet' });
  });

  it('answers 503 with details when the last quote is older than TICK_STALENESS_SECONDS while the market is open', async () => {
    service = await buildTestService({ config: { TICK_STALENESS_SECONDS: '30' } });
    quoteEverySymbol(service.feed);
    service.clock.advance(30_001);
    const { status, body } = await ready(service);
    expect(status).toBe(503);
    expect(body.checks.ticks).toEqual({
      ok: false,
      detail: expect.stringMatching(/^last quote 30 s ago while the market is open, over TICK_STALENESS_SECONDS=30$/),
    });
    expect(body.checks.broker?.ok).toBe(true);
  });

  it('answers 200 when connected with a quote within TICK_STALENESS_SECONDS', async () => {
    service = await buildTestService({ config: { TICK_STALENESS_SECONDS: '30' } });
    quoteEverySymbol(service.feed);
    service.clock.advance(30_000);
    const { status, body } = await ready(service);
    expect(status).toBe(200);
    expect(body).toEqual({
      status: 'ready',
      checks: { broker: { ok: true, detail: 'connected since 2026-01-05T12:00:00.000Z' }, ticks: { ok: true, detail: 'last quote 30 s ago (limit 30 s)' } },
    });
  });
});
