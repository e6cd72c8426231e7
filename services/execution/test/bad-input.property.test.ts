/**
 * Property: no malformed or hostile submission gets a 500, every answer is the error envelope,
 * and none of them reaches order_check or order_send. 2,100 generated submissions in all.
 */
import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY, NOW, simulatedApp, type SimulatedHarness } from './helpers.js';

let h: SimulatedHarness;
beforeAll(async () => {
  h = await simulatedApp({ env: { MAX_DEVIATION_POINTS: '20' } });
});
afterAll(async () => {
  await h.app.close();
});

function expectRefusal(res: LightMyRequestResponse): void {
  expect(res.statusCode, res.body).toBeGreaterThanOrEqual(400);
  expect(res.statusCode, res.body).toBeLessThan(500);
  const body = JSON.parse(res.body) as Record<string, unknown>;
  expect(body).toMatchObject({ error: true, code: expect.any(String), message: expect.any(String), timestamp: expect.any(String) });
  expect(res.body).not.toMatch(/"stack"|at \w+ \(/);
}

function post(payload: string, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  return h.app.inject({
    method: 'POST',
    url: '/v1/signals',
    headers: { 'x-api-key': API_KEY, 'content-type': 'application/json', ...headers },
    payload,
  });
}

const FIELDS = [
  'signal_id',
  'occurred_at',
  'execution_type',
  'symbol',
  'direction',
  'volume',
  'source',
  'entry_price',
  'stop_loss',
  'take_profit',
  'stop_loss_distance',
  'take_profit_distance',
  'expires_at',
  'deviation_points',
  'note',
  'ignore_signal_age',
];
const REQUIRED = FIELDS.slice(0, 7);
const DECIMAL_FIELDS = ['volume', 'entry_price', 'stop_loss', 'take_profit', 'stop_loss_distance', 'take_profit_distance'];

const notAString = fc.oneof(fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.array(fc.jsonValue(), { maxLength: 3 }), fc.object({ maxDepth: 1 }));
const badDecimal = fc.oneof(
  fc.constantFrom('', ' 1', '1 ', '1.', '.5', '+1', '-0.1', '1e5', '0x10', 'NaN', 'Infinity', '١٫٥', '1,5', '0', '0.000', '00000000000000001.1'.repeat(3)),
  fc.stringMatching(/^[0-9]{16,40}$/),
  notAString,
);
const badTimestamp = fc.oneof(
  fc.constantFrom(
    '2026-01-05T12:00:00',
    '2026-01-05 12:00:00Z',
    '2026-13-01T00:00:00Z',
    '2026-02-29T00:00:00Z',
    '05/01/2026',
    '',
    'now',
    '2026-01-05T24:00:00Z',
    '2026-01-05T12:00:00+25:00',
  ),
  fc.integer(),
  notAString,
);
const badUuid = fc.oneof(
  fc.constantFrom(
    '',
    'not-a-uuid',
    '7b0c6a9e3f0e4a8e9d442f1b2c3d4e5f',
    '7b0c6a9e-3f0e-4a8e-9d44-2f1b2c3d4e5',
    '{7b0c6a9e-3f0e-4a8e-9d44-2f1b2c3d4e5f}',
    'g' + '0'.repeat(35),
  ),
  fc.string({ maxLength: 40 }).filter((s) => !/^[0-9a-f-]{36}$/i.test(s)),
  notAString,
);
const badEnum = fc.oneof(fc.constantFrom('', 'BUY', 'Market', 'long', 'stop_limit', 'market ', 'sell\u0000'), notAString);

/** One change that by itself makes a valid submission invalid (or refused before the terminal). */
const breaking: fc.Arbitrary<(s: Record<string, unknown>) => void> = fc.oneof(
  fc.constantFrom(...REQUIRED).map((f) => (s: Record<string, unknown>) => void delete s[f]),
  fc
    .tuple(
      fc.string({ minLength: 1, maxLength: 20 }).filter((k) => !FIELDS.includes(k)),
      fc.jsonValue(),
    )
    .map(
      ([k, v]) =>
        (s: Record<string, unknown>) =>
          void Object.defineProperty(s, k, { value: v, enumerable: true, writable: true, configurable: true }),
    ),
  fc.tuple(fc.constantFrom(...DECIMAL_FIELDS.slice(0, 1)), badDecimal).map(
    ([f, v]) =>
      (s: Record<string, unknown>) =>
        void (s[f] = v),
  ),
  fc
    .tuple(
      fc.constantFrom('stop_loss', 'take_profit', 'stop_loss_distance', 'take_profit_distance'),
      badDecimal.filter((v) => typeof v !== 'string' || !/^\d{1,15}(\.\d{1,10})?$/.test(v) || !/[1-9]/.test(v)),
    )
    .map(
      ([f, v]) =>
        (s: Record<string, unknown>) =>
          void (s[f] = v),
    ),
  fc.tuple(fc.constantFrom('occurred_at', 'expires_at'), badTimestamp).map(
    ([f, v]) =>
      (s: Record<string, unknown>) =>
        void (s[f] = v),
  ),
  badUuid.map((v) => (s: Record<string, unknown>) => void (s.signal_id = v)),
  fc.tuple(fc.constantFrom('execution_type', 'direction'), badEnum).map(
    ([f, v]) =>
      (s: Record<string, unknown>) =>
        void (s[f] = v),
  ),
  fc.oneof(fc.constantFrom('eurusd', 'EURUSD ', 'EUR/USD', 'BTCUSD', 'EURGBP', ''), notAString).map((v) => (s: Record<string, unknown>) => void (s.symbol = v)),
  fc
    .oneof(fc.constantFrom('TradingView', 'evil', 'trading view', 'x'.repeat(40), '../etc'), notAString)
    .map((v) => (s: Record<string, unknown>) => void (s.source = v)),
  fc
    .oneof(
      fc.double().filter((d) => !Number.isInteger(d) || d < 0 || d > 20),
      fc.constantFrom(-1, 21, 1e9, '5', true, null),
    )
    .map((v) => (s: Record<string, unknown>) => void (s.deviation_points = v)),
  fc.oneof(fc.constantFrom('true', 1, 0, 'yes', null), fc.object({ maxDepth: 0 })).map((v) => (s: Record<string, unknown>) => void (s.ignore_signal_age = v)),
  fc.oneof(fc.string({ minLength: 501, maxLength: 600 }), notAString).map((v) => (s: Record<string, unknown>) => void (s.note = v)),
  fc.constant((s: Record<string, unknown>) => void (s.entry_price = '0.5')),
  // A buy stop below the market is refused even when another change supplies entry_price.
  fc.constant((s: Record<string, unknown>) => void Object.assign(s, { execution_type: 'stop' })),
  fc.constant((s: Record<string, unknown>) => void Object.assign(s, { stop_loss: '1.0', stop_loss_distance: '0.01' })),
  fc.constant((s: Record<string, unknown>) => void Object.assign(s, { take_profit: '1.2', take_profit_distance: '0.01' })),
  // Valid shape, refused by the service's rules before order_check.
  fc.constantFrom('0.015', '0.001', '10.01', '1000').map((v) => (s: Record<string, unknown>) => void (s.volume = v)),
  fc.constant((s: Record<string, unknown>) => void (s.occurred_at = new Date(NOW + 3_600_000).toISOString())),
  fc.constant((s: Record<string, unknown>) => void Object.assign(s, { occurred_at: new Date(NOW - 3_600_000).toISOString(), ignore_signal_age: false })),
  fc.constant((s: Record<string, unknown>) => void (s.expires_at = new Date(NOW - 1).toISOString())),
  fc.constant((s: Record<string, unknown>) => void (s.stop_loss = '1.1234567')),
  fc.constant((s: Record<string, unknown>) => void (s.take_profit = '0.5')),
);

const mutatedSubmission = fc
  .record({ id: fc.uuid(), volume: fc.constantFrom('0.01', '0.10', '1'), changes: fc.array(breaking, { minLength: 1, maxLength: 3 }) })
  .map(({ id, volume, changes }) => {
    const s: Record<string, unknown> = {
      signal_id: id,
      occurred_at: new Date(NOW).toISOString(),
      execution_type: 'market',
      symbol: 'EURUSD',
      direction: 'buy',
      volume,
      source: 'tradingview',
    };
    for (const change of changes) change(s);
    return JSON.stringify(s);
  });

// Hundreds of requests each: seconds on a shared machine, more than vitest's 5 s default.
describe('hostile submissions to POST /v1/signals', { timeout: 60_000 }, () => {
  it('answers 1,200 broken signals with a 4xx envelope and never reaches the terminal', async () => {
    await fc.assert(
      fc.asyncProperty(mutatedSubmission, async (payload) => expectRefusal(await post(payload))),
      { numRuns: 1200 },
    );
    expect(h.terminal.stats.orderCheckCalls + h.terminal.stats.orderSendCalls).toBe(0);
  });

  it('answers 400 arbitrary JSON values with a 4xx envelope and never reaches the terminal', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue({ maxDepth: 3 }), async (value) => expectRefusal(await post(JSON.stringify(value) ?? 'null'))),
      { numRuns: 400 },
    );
    expect(h.terminal.stats.orderCheckCalls + h.terminal.stats.orderSendCalls).toBe(0);
  });

  it('answers 300 raw byte strings, prototype tricks and wrong content types with a 4xx envelope', async () => {
    const raw = fc.oneof(
      fc.string({ maxLength: 200 }),
      fc.constantFrom('{"__proto__":{"admin":true}}', '{"constructor":{"prototype":{"x":1}}}', '{', '[]', 'null', '"\\ud800"', '{"a":1}{"b":2}'),
    );
    const contentType = fc.constantFrom('application/json', 'application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded');
    await fc.assert(
      fc.asyncProperty(raw, contentType, async (payload, type) => expectRefusal(await post(payload, { 'content-type': type }))),
      {
        numRuns: 300,
      },
    );
    expect(h.terminal.stats.orderCheckCalls + h.terminal.stats.orderSendCalls).toBe(0);
  });

  it('answers 200 submissions with a missing, wrong or oversized key with 401 and the envelope', async () => {
    const key = fc.oneof(
      fc.constant(undefined),
      fc.string({ unit: 'grapheme-ascii', maxLength: 50 }),
      fc.constant(`${API_KEY} `),
      fc.constant('x'.repeat(5000)),
    );
    await fc.assert(
      fc.asyncProperty(key, async (k) => {
        const headers: Record<string, string> = { 'content-type': 'application/json' };
        if (k !== undefined) headers['x-api-key'] = k;
        const res = await h.app.inject({ method: 'POST', url: '/v1/signals', headers, payload: '{}' });
        if (k === API_KEY) return;
        expect(res.statusCode).toBe(401);
        expectRefusal(res);
      }),
      { numRuns: 200 },
    );
    expect(h.terminal.stats.orderCheckCalls + h.terminal.stats.orderSendCalls).toBe(0);
  });
});
