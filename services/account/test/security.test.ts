import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { envelopeOf, KEY_HEADER, startOanda, TEST_KEY, type OandaHarness } from './helpers.js';

const PROTECTED_ROUTES = [
  '/api/v1/account/summary',
  '/api/v1/account/details',
  '/api/v1/account/instruments',
  '/api/v1/account/snapshots',
  '/api/v1/account/changes?sinceTransactionId=1',
  // Spec 001 (B) keys every non-health route: the API pages and the metrics too.
  '/docs',
  '/docs/json',
  '/metrics',
];

describe('X-Internal-API-Key', () => {
  let h: OandaHarness;

  beforeEach(async () => {
    h = await startOanda();
  });

  afterEach(async () => {
    await h.close();
  });

  for (const url of PROTECTED_ROUTES) {
    it(`answers 401 unauthorized without the key (${url})`, async () => {
      const res = await h.get(url, {});
      expect(res.statusCode).toBe(401);
      expect(envelopeOf(res).code).toBe('unauthorized');
    });

    it(`answers 401 unauthorized with a wrong key (${url})`, async () => {
      const res = await h.get(url, { 'x-internal-api-key': `${TEST_KEY}x` });
      expect(res.statusCode).toBe(401);
      expect(envelopeOf(res).code).toBe('unauthorized');
    });

    it(`answers with the key (${url})`, async () => {
      expect((await h.get(url, KEY_HEADER)).statusCode).toBeLessThan(400);
    });
  }

  it('does not take the key from a Bearer header', async () => {
    const res = await h.get('/api/v1/account/summary', { authorization: `Bearer ${TEST_KEY}` });
    expect(res.statusCode).toBe(401);
  });

  it('never calls the broker for a request without the key', async () => {
    await h.get('/api/v1/account/summary', {});
    expect(h.fake.requests).toHaveLength(0);
  });

  it('serves /health/live and /health/ready without a key', async () => {
    expect((await h.get('/health/live', {})).statusCode).toBe(200);
    expect((await h.get('/health/ready', {})).statusCode).toBe(200);
  });
});

describe('logs', () => {
  it('never contain the internal key, a presented wrong key or the OANDA token, even at trace level', async () => {
    const h = await startOanda({ logLevel: 'trace' });
    const wrongKey = 'wrong-key-c0ffee-1234';
    await h.get('/api/v1/account/summary');
    await h.get('/api/v1/account/details', { 'x-internal-api-key': wrongKey });
    await h.get('/api/v1/account/instruments', { ...KEY_HEADER, authorization: `Bearer ${h.fake.token}` });
    h.fake.inject({ kind: 'status', status: 401, errorMessage: 'Insufficient authorization to perform request.' });
    await h.get('/api/v1/account/changes?sinceTransactionId=1');
    await h.get('/health/ready', {});
    await h.close();
    const text = h.logs.text();
    expect(h.logs.lines.length).toBeGreaterThan(4);
    expect(text).toContain('rejected request without a valid API key');
    expect(text).not.toContain(TEST_KEY);
    expect(text).not.toContain(wrongKey);
    expect(text).not.toContain(h.fake.token);
  });
});
