import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEY_HEADER, startOanda, type OandaHarness } from './helpers.js';

const ROUTES = ['summary', 'details', 'instruments', 'snapshots', 'changes', 'no-such-route'];
const PARAMS = ['limit', 'kind', 'instruments', 'sinceTransactionId', 'other'];

/** Values a careless or hostile client sends: numbers, near-misses, unicode, huge, empty. */
const value = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.integer().map(String),
  fc.double().map(String),
  fc.constantFrom('', '0', '-1', '501', '1e3', 'EUR_USD', 'EUR_USD,', ',,,', 'eur_usd', 'summary', 'DETAILS', '9'.repeat(30), 'A'.repeat(3000)),
);

function expectNoServerError(res: { statusCode: number; body: string }): void {
  expect(res.statusCode).toBeLessThan(500);
  if (res.statusCode >= 400) {
    const body = JSON.parse(res.body) as Record<string, unknown>;
    expect(body).toMatchObject({ error: true, code: expect.any(String), message: expect.any(String) });
    expect(res.body).not.toMatch(/"stack"|at \w+ \(/);
  }
}

describe('bad input never sees a 500', () => {
  let h: OandaHarness;

  beforeAll(async () => {
    h = await startOanda();
  });

  afterAll(async () => {
    await h.close();
  });

  it('answers generated query parameters on every route with a 2xx or the 4xx envelope', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...ROUTES), fc.dictionary(fc.constantFrom(...PARAMS), value, { maxKeys: 4 }), async (route, query) => {
        const search = new URLSearchParams(query).toString();
        expectNoServerError(await h.get(`/api/v1/account/${route}?${search}`));
      }),
      { numRuns: 300 },
    );
  });

  it('answers raw, unencoded query strings with a 2xx or the 4xx envelope', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...ROUTES), fc.string({ unit: 'grapheme-ascii', maxLength: 60 }), async (route, raw) => {
        const url = `/api/v1/account/${route}?${raw.replace(/[#\s]/g, '')}`;
        expectNoServerError(await h.get(url));
      }),
      { numRuns: 200 },
    );
  });

  it('answers any printable key header with 401 or a success, never a 500', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...ROUTES), fc.string({ unit: 'grapheme-ascii', maxLength: 80 }), async (route, key) => {
        const res = await h.get(`/api/v1/account/${route}?sinceTransactionId=1`, { 'x-internal-api-key': key.trim() || 'x' });
        expectNoServerError(res);
        if (key.trim() !== KEY_HEADER['x-internal-api-key'] && route !== 'no-such-route') expect(res.statusCode).toBe(401);
      }),
      { numRuns: 150 },
    );
  });
});
