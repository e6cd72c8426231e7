/**
 * GET /v1/signals: the filters, the order, the cursor paging and the strict query, on the
 * simulated terminal with a manual clock (each signal is received when the clock says).
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor, receivedBound } from '../src/signal-list.js';
import { API_KEY, expectEnvelope, getSignal, postSignal, signal, simulatedApp, type SimulatedHarness } from './helpers.js';

let harness: SimulatedHarness | undefined;
afterEach(async () => {
  await harness?.app.close();
  harness = undefined;
});

interface Seeded {
  id: string;
  state: string;
  symbol: string;
  source: string;
  receivedAt: string;
}

const FILLED = {};
const PLACED = { execution_type: 'limit', entry_price: '1.0000' };
/** Off the 0.01 volume step: rejected after the claim, so stored. */
const REJECTED = { volume: '0.015' };

/** Submits a signal `afterMs` after the previous one and notes what the list should show for it. */
async function submit(h: SimulatedHarness, seeded: Seeded[], fields: Record<string, unknown>, afterMs = 1000): Promise<Seeded> {
  await h.clock.advanceAsync(afterMs);
  const body = signal(fields);
  const res = await postSignal(h.app, body);
  expect([200, 422]).toContain(res.statusCode);
  const entry = {
    id: body.signal_id as string,
    state: res.json<{ state?: string }>().state ?? 'rejected',
    symbol: body.symbol as string,
    source: body.source as string,
    receivedAt: new Date(h.clock.now()).toISOString(),
  };
  seeded.push(entry);
  return entry;
}

/** Six signals, one a second from 12:00:01: every state the list can tell apart, two symbols, two sources. */
async function seedDesk(): Promise<{ h: SimulatedHarness; seeded: Seeded[] }> {
  harness = await simulatedApp();
  const h = harness;
  const seeded: Seeded[] = [];
  await submit(h, seeded, { ...FILLED, symbol: 'EURUSD', source: 'tradingview' });
  await submit(h, seeded, { ...FILLED, symbol: 'GBPUSD', source: 'tradingview' });
  await submit(h, seeded, { ...FILLED, symbol: 'EURUSD', source: 'manual' });
  await submit(h, seeded, { ...REJECTED, symbol: 'EURUSD', source: 'tradingview' });
  await submit(h, seeded, { ...PLACED, symbol: 'EURUSD', source: 'manual' });
  await submit(h, seeded, { ...REJECTED, symbol: 'GBPUSD', source: 'manual' });
  expect(seeded.map((s) => s.state)).toEqual(['filled', 'filled', 'filled', 'rejected', 'placed', 'rejected']);
  return { h, seeded };
}

interface Page {
  signals: { signal_id: string; received_at: string }[];
  next_cursor: string | null;
}

async function list(h: SimulatedHarness, query: string): Promise<Page> {
  const res = await h.app.inject({ url: `/v1/signals${query ? `?${query}` : ''}`, headers: { 'x-api-key': API_KEY } });
  if (res.statusCode !== 200) throw new Error(`GET /v1/signals?${query} answered ${res.statusCode} ${res.body}`);
  return res.json<Page>();
}

async function ids(h: SimulatedHarness, query: string): Promise<string[]> {
  return (await list(h, query)).signals.map((s) => s.signal_id);
}

/** The ids of `seeded` that pass `keep`, newest received first, then by signal_id, descending. */
function expected(seeded: Seeded[], keep: (s: Seeded) => boolean = () => true): string[] {
  const key = (s: Seeded) => `${s.receivedAt} ${s.id}`;
  return seeded
    .filter(keep)
    .sort((a, b) => (key(a) < key(b) ? 1 : -1))
    .map((s) => s.id);
}

/** Follows next_cursor from the first page to the last, calling `between` before each further page. */
async function everyPage(h: SimulatedHarness, query: string, between: () => Promise<void> = () => Promise.resolve()): Promise<Page[]> {
  const pages = [await list(h, query)];
  for (let cursor = pages[0]?.next_cursor; cursor; cursor = pages.at(-1)?.next_cursor) {
    await between();
    pages.push(await list(h, `${query}&cursor=${cursor}`));
  }
  return pages;
}

function queryError(res: { statusCode: number; body: string }): string[] {
  const body = expectEnvelope(res as never, 422, 'validation_error') as { details?: { path: string }[] };
  return (body.details ?? []).map((d) => d.path);
}

describe('GET /v1/signals', () => {
  it('lists every stored signal newest received first, each as the record GET /v1/signals/{signal_id} answers', async () => {
    const { h, seeded } = await seedDesk();
    const page = await list(h, '');
    expect(page.signals.map((s) => s.signal_id)).toEqual(expected(seeded));
    expect(page.next_cursor).toBeNull();
    for (const record of page.signals) expect(record).toEqual((await getSignal(h.app, record.signal_id)).json());
    expect(page.signals.map((s) => s.received_at)).toEqual(expected(seeded).map((id) => seeded.find((s) => s.id === id)?.receivedAt));
  });

  it('filters by state', async () => {
    const { h, seeded } = await seedDesk();
    for (const state of ['filled', 'placed', 'rejected']) expect(await ids(h, `state=${state}`)).toEqual(expected(seeded, (s) => s.state === state));
    expect(await ids(h, 'state=unknown')).toEqual([]);
  });

  it('filters by the exact symbol', async () => {
    const { h, seeded } = await seedDesk();
    expect(await ids(h, 'symbol=GBPUSD')).toEqual(expected(seeded, (s) => s.symbol === 'GBPUSD'));
    expect(await ids(h, 'symbol=gbpusd')).toEqual([]);
  });

  it('filters by source', async () => {
    const { h, seeded } = await seedDesk();
    expect(await ids(h, 'source=manual')).toEqual(expected(seeded, (s) => s.source === 'manual'));
    expect(await ids(h, 'source=webhook')).toEqual([]);
  });

  it('filters by received time, from inclusive and to exclusive, in any zone and to the nanosecond', async () => {
    const { h, seeded } = await seedDesk();
    const at = (i: number) => seeded[i]?.receivedAt as string;
    expect(await ids(h, `from=${at(1)}&to=${at(4)}`)).toEqual([seeded[3], seeded[2], seeded[1]].map((s) => s?.id));
    // 12:00:02 written as 13:00:02+01:00; a nanosecond past 12:00:05 leaves the signal received at 12:00:05.000 out.
    const from = encodeURIComponent(at(1).replace('T12', 'T13').replace('.000Z', '+01:00'));
    expect(await ids(h, `from=${from}&to=${at(4).replace('.000Z', '.000000001Z')}`)).toEqual([seeded[4], seeded[3], seeded[2], seeded[1]].map((s) => s?.id));
    expect(await ids(h, `from=${at(5)}`)).toEqual([seeded[5]?.id]);
    expect(await ids(h, `to=${at(0)}`)).toEqual([]);
  });

  it('combines the filters with AND', async () => {
    const { h, seeded } = await seedDesk();
    const eurusdTradingview = (s: Seeded) => s.symbol === 'EURUSD' && s.source === 'tradingview';
    expect(await ids(h, 'symbol=EURUSD&source=tradingview')).toEqual(expected(seeded, eurusdTradingview));
    expect(await ids(h, 'state=rejected&symbol=EURUSD&source=tradingview')).toEqual(expected(seeded, (s) => eurusdTradingview(s) && s.state === 'rejected'));
    expect(await ids(h, `state=filled&source=manual&from=${seeded[1]?.receivedAt}&to=${seeded[5]?.receivedAt}`)).toEqual([seeded[2]?.id]);
    expect(await ids(h, 'state=placed&symbol=GBPUSD')).toEqual([]);
  });

  it('answers 50 records by default and at most `limit`, 1 to 500', async () => {
    harness = await simulatedApp();
    const seeded: Seeded[] = [];
    for (let i = 0; i < 51; i++) await submit(harness, seeded, FILLED, 10);
    const first = await list(harness, '');
    expect(first.signals.map((s) => s.signal_id)).toEqual(expected(seeded).slice(0, 50));
    expect((await list(harness, `cursor=${first.next_cursor}`)).signals.map((s) => s.signal_id)).toEqual([seeded[0]?.id]);
    expect((await ids(harness, 'limit=1')).length).toBe(1);
    expect((await ids(harness, 'limit=500')).length).toBe(51);
  });

  it('pages without a gap or a duplicate while new signals arrive, signals of one millisecond split across pages', async () => {
    harness = await simulatedApp();
    const h = harness;
    const seeded: Seeded[] = [];
    // Bursts of three in one millisecond: only the signal_id orders them.
    for (let i = 0; i < 12; i++) await submit(h, seeded, i % 2 === 0 ? FILLED : REJECTED, i % 3 === 0 ? 1000 : 0);
    const before = expected(seeded);
    const arrived: Seeded[] = [];
    const pages = await everyPage(h, 'limit=5', async () => {
      await submit(h, arrived, FILLED, 0);
      await submit(h, arrived, REJECTED, 400);
    });
    expect(pages.map((p) => p.signals.length)).toEqual([5, 5, 2]);
    expect(pages.flatMap((p) => p.signals.map((s) => s.signal_id))).toEqual(before);
    expect(pages.at(-1)?.next_cursor).toBeNull();
    // Read again, the list holds the signals that arrived meanwhile too, in their place.
    expect(await ids(h, 'limit=500')).toEqual(expected([...seeded, ...arrived]));
  });

  it('pages a filtered list with the same filters', async () => {
    const { h, seeded } = await seedDesk();
    const pages = await everyPage(h, 'source=tradingview&limit=1');
    expect(pages.flatMap((p) => p.signals.map((s) => s.signal_id))).toEqual(expected(seeded, (s) => s.source === 'tradingview'));
  });

  it('refuses an unknown or repeated parameter, a bad filter or limit, and a cursor it did not issue with 422 validation_error', async () => {
    const { h } = await seedDesk();
    const get = (query: string) => h.app.inject({ url: `/v1/signals?${query}`, headers: { 'x-api-key': API_KEY } });
    expect(queryError(await get('instrument=EURUSD'))).toEqual(['querystring']);
    expect(queryError(await get('state=filled&state=placed'))).toEqual(['querystring.state']);
    expect(queryError(await get('state=done'))).toEqual(['querystring.state']);
    expect(queryError(await get('source=Trading%20View'))).toEqual(['querystring.source']);
    expect(queryError(await get('from=2026-01-05T12:00:00'))).toEqual(['querystring.from']);
    for (const limit of ['0', '501', '2.5', 'ten']) expect(queryError(await get(`limit=${limit}`))).toEqual(['querystring.limit']);
    for (const cursor of ['', 'bm9wZQ', 'x'.repeat(29), `${'A'.repeat(29)}=`, 'A'.repeat(31)]) {
      expect(queryError(await get(`cursor=${encodeURIComponent(cursor)}`))).toEqual(['querystring.cursor']);
    }
  });

  it('asks for the X-API-Key like every /v1 route', async () => {
    harness = await simulatedApp();
    expectEnvelope(await harness.app.inject({ url: '/v1/signals' }), 401, 'unauthorized');
    expectEnvelope(await harness.app.inject({ url: '/v1/signals', headers: { 'x-api-key': 'wrong' } }), 401, 'unauthorized');
  });
});

describe('the list cursor and time bounds', () => {
  it('gives back the position it was made from', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: Date.UTC(9999, 11, 31, 23, 59, 59, 999) }), fc.uuid(), (ms, id) => {
        const position = { receivedAt: new Date(ms).toISOString(), signalId: id.toLowerCase() };
        const cursor = encodeCursor(position);
        expect(cursor).toMatch(/^[A-Za-z0-9_-]{30}$/);
        expect(decodeCursor(cursor)).toEqual(position);
      }),
    );
  });

  it('reads any 30 base64url characters as a position with a received_at and a signal_id in their stored form', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z0-9_-]{30}$/), (cursor) => {
        const { receivedAt, signalId } = decodeCursor(cursor);
        expect(receivedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
        expect(signalId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      }),
    );
  });

  it('bounds received_at at the first stored millisecond at or after an instant', () => {
    expect(receivedBound('2026-01-05T12:00:00Z')).toBe('2026-01-05T12:00:00.000Z');
    expect(receivedBound('2026-01-05T13:00:00.250+01:00')).toBe('2026-01-05T12:00:00.250Z');
    expect(receivedBound('2026-01-05T12:00:00.250000000z')).toBe('2026-01-05T12:00:00.250Z');
    expect(receivedBound('2026-01-05T12:00:00.000000001Z')).toBe('2026-01-05T12:00:00.001Z');
    expect(receivedBound('2026-01-05T12:00:00.9999Z')).toBe('2026-01-05T12:00:01.000Z');
    expect(receivedBound('0000-01-01T00:30:00+01:00') < receivedBound('0000-01-01T00:00:00Z')).toBe(true);
    expect(receivedBound('9999-12-31T23:30:00-01:00')).toBe('9999-12-31T23:59:59.999Z');
  });
});
