import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { envelopeOf, startOanda, type OandaHarness } from './helpers.js';

const BROKER_ROUTES = ['/api/v1/account/summary', '/api/v1/account/details', '/api/v1/account/instruments', '/api/v1/account/changes?sinceTransactionId=1'];

describe('account service when OANDA fails', () => {
  let h: OandaHarness;

  beforeEach(async () => {
    h = await startOanda();
  });

  afterEach(async () => {
    await h.close();
  });

  for (const url of BROKER_ROUTES) {
    it(`answers 502 broker_error when OANDA refuses the token (${url})`, async () => {
      h.fake.inject({ kind: 'status', status: 401, errorMessage: 'Insufficient authorization to perform request.' });
      const res = await h.get(url);
      expect(res.statusCode).toBe(502);
      expect(envelopeOf(res)).toMatchObject({ code: 'broker_error', message: expect.stringContaining('credentials') });
    });

    it(`answers 503 broker_unavailable with OANDA's Retry-After on a 429 (${url})`, async () => {
      h.fake.inject({ kind: 'status', status: 429, errorMessage: 'Too many requests', headers: { 'retry-after': '4' } });
      const res = await h.get(url);
      expect(res.statusCode).toBe(503);
      expect(res.headers['retry-after']).toBe('4');
      expect(envelopeOf(res).code).toBe('broker_unavailable');
    });

    it(`answers 504 broker_timeout when OANDA does not answer in time (${url})`, async () => {
      h.fake.inject({ kind: 'hang' });
      const pending = h.get(url);
      await h.fake.waitForRequests(1);
      h.clock.advance(5000);
      const res = await pending;
      expect(res.statusCode).toBe(504);
      expect(envelopeOf(res).code).toBe('broker_timeout');
    });

    it(`answers 502 broker_error for malformed upstream JSON (${url})`, async () => {
      h.fake.inject({ kind: 'malformed' });
      const res = await h.get(url);
      expect(res.statusCode).toBe(502);
      expect(envelopeOf(res)).toMatchObject({ code: 'broker_error', message: expect.stringContaining('not JSON') });
    });
  }

  it('answers a 429 without Retry-After with Retry-After: 1', async () => {
    h.fake.inject({ kind: 'status', status: 429, errorMessage: 'Too many requests' });
    const res = await h.get('/api/v1/account/summary');
    expect(res.headers['retry-after']).toBe('1');
  });

  it('answers 503 broker_unavailable with Retry-After when OANDA is down', async () => {
    h.fake.inject({ kind: 'status', status: 503, errorMessage: 'Service Unavailable' });
    const res = await h.get('/api/v1/account/details');
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('5');
    expect(envelopeOf(res).code).toBe('broker_unavailable');
  });

  it('answers 502 broker_error when OANDA answers a shape it does not document', async () => {
    h.fake.inject({ kind: 'json', status: 200, body: { account: { id: 'x' }, lastTransactionID: '1' } });
    const res = await h.get('/api/v1/account/summary');
    expect(res.statusCode).toBe(502);
    expect(envelopeOf(res).code).toBe('broker_error');
  });

  it('stores no snapshot when the broker read fails', async () => {
    h.fake.inject({ kind: 'status', status: 503, errorMessage: 'Service Unavailable' });
    await h.get('/api/v1/account/summary');
    expect((await h.get('/api/v1/account/snapshots')).json().snapshots).toEqual([]);
  });

  it('does not cache a failed instrument read', async () => {
    h.fake.inject({ kind: 'status', status: 503, errorMessage: 'Service Unavailable' });
    expect((await h.get('/api/v1/account/instruments')).statusCode).toBe(503);
    const res = await h.get('/api/v1/account/instruments');
    expect(res.statusCode).toBe(200);
    expect(res.json().cached).toBe(false);
  });

  it('keeps answering after a broker failure', async () => {
    h.fake.inject({ kind: 'malformed' });
    await h.get('/api/v1/account/summary');
    expect((await h.get('/api/v1/account/summary')).statusCode).toBe(200);
  });
});
