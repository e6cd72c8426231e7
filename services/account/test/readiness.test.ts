import type { AccountReader, Instrument } from '@fxdesk/broker';
import { ManualClock } from '@fxdesk/primitives';
import { describe, expect, it } from 'vitest';
import { buildTestApp, sqliteStore, startOanda, SUMMARY, testConfig } from './helpers.js';

describe('/health/ready on OANDA', () => {
  it('is ready when the configuration, the database, the credentials and the instrument metadata pass', async () => {
    const h = await startOanda();
    const res = await h.get('/health/ready', {});
    await h.close();
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      status: 'ready',
      checks: {
        configuration: { ok: true, detail: expect.stringContaining('oanda (practice') },
        database: { ok: true },
        broker_auth: { ok: true },
        instrument_metadata: { ok: true, detail: '5 instruments' },
      },
    });
  });

  it('answers 503 naming broker_auth when OANDA refuses the token', async () => {
    const h = await startOanda({ env: { OANDA_API_TOKEN: 'a-token-oanda-does-not-know' } });
    const res = await h.get('/health/ready', {});
    await h.close();
    expect(res.statusCode).toBe(503);
    expect(res.json().status).toBe('not_ready');
    expect(res.json().checks.broker_auth).toEqual({ ok: false, detail: expect.stringContaining('HTTP 401') });
  });

  it('never shows the token in its answer', async () => {
    const h = await startOanda();
    const res = await h.get('/health/ready', {});
    await h.close();
    expect(res.body).not.toContain(h.fake.token);
  });
});

/** A reader whose instrument list is whatever the test says. */
function readerWithInstruments(instruments: () => Promise<Instrument[]>): AccountReader {
  return {
    name: 'stub',
    summary: async () => SUMMARY,
    details: async () => ({ ...SUMMARY, positions: [], trades: [], orders: [] }),
    instruments,
    changesSince: async () => {
      throw new Error('not used');
    },
    close: async () => {},
  };
}

async function readiness(reader: AccountReader) {
  const store = sqliteStore();
  const app = await buildTestApp(testConfig(), { clock: new ManualClock(), broker: reader, store, close: () => store.close() });
  const res = await app.inject({ method: 'GET', url: '/health/ready' });
  await app.close();
  return res;
}

describe('/health/ready instrument-metadata smoke test', () => {
  it('answers 503 naming instrument_metadata when the broker lists no instruments', async () => {
    const res = await readiness(readerWithInstruments(async () => []));
    expect(res.statusCode).toBe(503);
    expect(res.json().checks.instrument_metadata).toEqual({ ok: false, detail: 'the broker lists no instruments' });
    expect(res.json().checks.broker_auth.ok).toBe(true);
  });

  it('answers 503 naming instrument_metadata when the instrument call fails', async () => {
    const res = await readiness(
      readerWithInstruments(async () => {
        throw new Error('instrument endpoint down');
      }),
    );
    expect(res.statusCode).toBe(503);
    expect(res.json().checks.instrument_metadata).toEqual({ ok: false, detail: 'instrument endpoint down' });
  });
});
