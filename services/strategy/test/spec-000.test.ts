import { ErrorEnvelopeSchema, StrategySignalSchema } from '@fxdesk/schemas';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { advanceUntilSignal, harness, type Harness } from './helpers.js';

/**
 * Spec 000, row by row: every resource field, state transition, endpoint and error code. Each
 * `it` names the row it covers. Time is the manual clock on a Monday; prices are the in-process
 * simulated market.
 */

let h: Harness;
beforeEach(async () => {
  h = await harness({ env: { MIN_CONFLUENCE: '1' } });
});
afterEach(async () => {
  await h.close();
});

const get = (url: string) => h.app.inject({ method: 'GET', url });
const post = (url: string, payload?: unknown) =>
  h.app.inject({ method: 'POST', url, ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }) });

async function start(payload?: unknown) {
  const res = await post('/start', payload);
  await h.settle();
  return res;
}

function expectEnvelope(res: { statusCode: number; body: string }, status: number, code: string) {
  expect(res.statusCode).toBe(status);
  const body = ErrorEnvelopeSchema.parse(JSON.parse(res.body));
  expect(body).toMatchObject({ error: true, code });
  expect(Number.isNaN(Date.parse(body.timestamp))).toBe(false);
  return body;
}

describe('Health record (GET /health)', () => {
  it('answers status healthy, timestamp (server time), uptime_seconds and version', async () => {
    await h.advance(90_000);
    const res = await get('/health');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'healthy', timestamp: new Date(h.clock.now()).toISOString(), uptime_seconds: 90, version: '0.1.0' });
  });

  it('answers status unhealthy with 503 when the signal database does not answer', async () => {
    await h.stores.close();
    const res = await get('/health');
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({ status: 'unhealthy' });
  });
});

describe('Status record (GET /status)', () => {
  it('says running false, started_at null and no active_pairs before any start', async () => {
    const body = (await get('/status')).json();
    expect(body).toMatchObject({ running: false, started_at: null, active_pairs: [], total_signals_today: 0, last_signal_time: null });
  });

  it('says running true with started_at and the monitored active_pairs while running', async () => {
    const started = (await start({ instruments: ['EUR_USD', 'USD_JPY'] })).json();
    const body = (await get('/status')).json();
    expect(body).toMatchObject({ running: true, started_at: started.started_at, active_pairs: ['EUR_USD', 'USD_JPY'] });
  });

  it('counts total_signals_today and gives last_signal_time of the newest signal', async () => {
    await start();
    await advanceUntilSignal(h);
    const newest = (await h.store.page({ limit: 1 })).signals[0]!;
    const body = (await get('/status')).json();
    expect(body.total_signals_today).toBe((await h.store.page({ limit: 500 })).signals.length);
    expect(body.total_signals_today).toBeGreaterThan(0);
    expect(body.last_signal_time).toBe(newest.generated_at);
  });

  it('gives the account object with balance, equity, margin_used and margin_available as numbers', async () => {
    const body = (await get('/status')).json();
    expect(body.account).toEqual({ balance: 100_000, equity: 100_000, margin_used: 0, margin_available: 100_000 });
    expect(body.account_source).toBe('paper');
  });
});

describe('Pair record (GET /pairs)', () => {
  it('answers pairs, each with instrument, status monitoring, current_price, supertrend and stochrsi', async () => {
    await start({ instruments: ['EUR_USD', 'XAU_USD'] });
    const { pairs } = (await get('/pairs')).json();
    expect(pairs.map((p: { instrument: string }) => p.instrument)).toEqual(['EUR_USD', 'XAU_USD']);
    for (const pair of pairs) {
      expect(pair.status).toBe('monitoring');
      expect(pair.current_price).toEqual(expect.any(Number));
      expect([1, -1]).toContain(pair.supertrend.direction);
      expect(pair.supertrend.value).toEqual(expect.any(Number));
      expect(pair.stochrsi).toEqual({ k: expect.any(Number), d: expect.any(Number) });
    }
  });

  it('gives last_signal null while the pair has no signal, then its type, time and entry_price', async () => {
    await start({ instruments: ['EUR_USD', 'GBP_USD', 'USD_JPY', 'AUD_USD'] });
    await advanceUntilSignal(h);
    const { pairs } = (await get('/pairs')).json();
    for (const pair of pairs) {
      const latest = await h.store.latest(pair.instrument);
      expect(pair.last_signal).toEqual(latest ? { type: latest.type, time: latest.generated_at, entry_price: latest.entry_price } : null);
    }
    expect(pairs.some((p: { last_signal: unknown }) => p.last_signal !== null)).toBe(true);
  });

  it('gives an empty list before any start', async () => {
    expect((await get('/pairs')).json()).toEqual({ pairs: [] });
  });
});

describe('Signal record (GET /signals/{instrument})', () => {
  it('answers instrument and signal with type, generated_at, entry_price, stop_loss, take_profit, risk_reward, indicators and confluence_score', async () => {
    await start();
    await advanceUntilSignal(h);
    const stored = (await h.store.page({ limit: 1 })).signals[0]!;
    const res = await get(`/signals/${stored.instrument}`);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.instrument).toBe(stored.instrument);
    const signal = StrategySignalSchema.parse(body.signal);
    expect(['LONG', 'SHORT']).toContain(signal.type);
    expect(Object.keys(signal.indicators).sort()).toEqual(['fvg', 'stochrsi', 'supertrend', 'volume_profile']);
    expect(signal.confluence_score).toBeGreaterThanOrEqual(1);
    expect(signal.confluence_score).toBeLessThanOrEqual(4);
    const long = signal.type === 'LONG';
    expect(long ? signal.stop_loss < signal.entry_price : signal.stop_loss > signal.entry_price).toBe(true);
    expect(long ? signal.take_profit > signal.entry_price : signal.take_profit < signal.entry_price).toBe(true);
    expect(signal.risk_reward).toBeCloseTo(Math.abs(signal.take_profit - signal.entry_price) / Math.abs(signal.entry_price - signal.stop_loss), 2);
  });

  it('writes trend as bullish or bearish, signal as a Stochastic RSI state and fvg.type as bullish, bearish or none', async () => {
    await start();
    await advanceUntilSignal(h);
    const { signal } = (await get(`/signals/${(await h.store.page({ limit: 1 })).signals[0]!.instrument}`)).json();
    expect(['bullish', 'bearish']).toContain(signal.indicators.supertrend.trend);
    expect(['oversold', 'overbought', 'bullish_cross', 'bearish_cross', 'neutral']).toContain(signal.indicators.stochrsi.signal);
    expect(['bullish', 'bearish', 'none']).toContain(signal.indicators.fvg.type);
    expect(signal.indicators.volume_profile).toEqual({ poc: expect.any(Number), vah: expect.any(Number), val: expect.any(Number) });
  });

  it('answers signal null and a message when the pair has no signal yet', async () => {
    const res = await get('/signals/EUR_USD');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ instrument: 'EUR_USD', signal: null, message: expect.any(String) });
  });

  it('answers 404 INSTRUMENT_NOT_FOUND for an instrument the market does not list', async () => {
    expectEnvelope(await get('/signals/ABC_XYZ'), 404, 'INSTRUMENT_NOT_FOUND');
  });

  it('answers 404 INSTRUMENT_NOT_FOUND for a name that is not an instrument at all', async () => {
    expectEnvelope(await get('/signals/eurusd'), 404, 'INSTRUMENT_NOT_FOUND');
  });

  it('answers 404 INSTRUMENT_NOT_FOUND for an over-long name, on the signal and the candles routes alike', async () => {
    const name = `EUR_${'U'.repeat(300)}`;
    expectEnvelope(await get(`/signals/${name}`), 404, 'INSTRUMENT_NOT_FOUND');
    expectEnvelope(await get(`/pairs/${name}/candles`), 404, 'INSTRUMENT_NOT_FOUND');
  });

  it('knows an instrument the market lists even when it is not monitored', async () => {
    expect((await get('/signals/NZD_USD')).statusCode).toBe(200);
  });
});

describe('States: not running → POST /start → running', () => {
  it('answers success true with started_at and the configured default instruments', async () => {
    const res = await start();
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      success: true,
      message: expect.any(String),
      started_at: new Date(h.clock.now()).toISOString(),
      instruments: ['EUR_USD', 'GBP_USD', 'USD_JPY', 'AUD_USD'],
      dry_run: false,
    });
  });

  it('monitors the requested instruments', async () => {
    const res = await start({ instruments: ['XAU_USD', 'EUR_JPY'] });
    expect(res.json().instruments).toEqual(['XAU_USD', 'EUR_JPY']);
    expect((await get('/status')).json().active_pairs).toEqual(['XAU_USD', 'EUR_JPY']);
  });

  it('selects paper trading with dry_run true', async () => {
    expect((await start({ dry_run: true })).json().dry_run).toBe(true);
    await advanceUntilSignal(h);
    const signal = (await h.store.page({ limit: 1 })).signals[0]!;
    expect(signal.dry_run).toBe(true);
    expect(signal.execution.status).toBe('paper');
  });

  it('takes an empty JSON body as no body', async () => {
    const res = await h.app.inject({ method: 'POST', url: '/start', headers: { 'content-type': 'application/json' }, payload: '' });
    expect(res.statusCode).toBe(200);
    expect(res.json().instruments).toHaveLength(4);
  });
});

describe('States: running → POST /start', () => {
  it('answers 409 STRATEGY_ALREADY_RUNNING', async () => {
    await start();
    expectEnvelope(await post('/start'), 409, 'STRATEGY_ALREADY_RUNNING');
  });
});

describe('States: running → POST /stop → not running', () => {
  it('answers stopped_at and signals_generated, the signals of the start it ends', async () => {
    await start();
    await advanceUntilSignal(h);
    const generated = (await h.store.page({ limit: 500 })).signals.length;
    const res = await post('/stop');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ success: true, message: expect.any(String), stopped_at: new Date(h.clock.now()).toISOString(), signals_generated: generated });
    expect((await get('/status')).json()).toMatchObject({ running: false, active_pairs: [] });
  });

  it('shows the pairs as stopped, their last values kept', async () => {
    await start({ instruments: ['EUR_USD'] });
    const before = (await get('/pairs')).json().pairs[0];
    await post('/stop');
    const after = (await get('/pairs')).json().pairs[0];
    expect(after).toEqual({ ...before, status: 'stopped' });
  });
});

describe('States: not running → POST /stop', () => {
  it('answers 409 STRATEGY_NOT_RUNNING', async () => {
    expectEnvelope(await post('/stop'), 409, 'STRATEGY_NOT_RUNNING');
  });
});

describe('States: running → POST /restart → running', () => {
  it('stops then starts, answering restarted_at, and keeps the instruments and dry_run', async () => {
    await start({ instruments: ['GBP_USD'], dry_run: true });
    await h.advance(60_000);
    const res = await post('/restart');
    await h.settle();
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      success: true,
      message: expect.any(String),
      restarted_at: new Date(h.clock.now()).toISOString(),
      instruments: ['GBP_USD'],
      dry_run: true,
    });
    expect((await get('/status')).json()).toMatchObject({ running: true, started_at: res.json().restarted_at, active_pairs: ['GBP_USD'], dry_run: true });
    expect((await get('/pairs')).json().pairs[0].status).toBe('monitoring');
  });
});

describe('States: not running → POST /restart (not shown; DESIGN §4)', () => {
  it('answers 409 STRATEGY_NOT_RUNNING', async () => {
    expectEnvelope(await post('/restart'), 409, 'STRATEGY_NOT_RUNNING');
  });
});

describe('POST /start body (malformed: not shown; DESIGN §4)', () => {
  it('answers 422 VALIDATION_ERROR for instruments that are not an array of names', async () => {
    const body = expectEnvelope(await post('/start', { instruments: 'EUR_USD' }), 422, 'VALIDATION_ERROR');
    expect(body.details?.[0]?.path).toBe('body.instruments');
  });

  it('answers 422 VALIDATION_ERROR for dry_run that is not a boolean', async () => {
    expectEnvelope(await post('/start', { dry_run: 'yes' }), 422, 'VALIDATION_ERROR');
  });

  it('answers 422 VALIDATION_ERROR for an unknown field', async () => {
    expectEnvelope(await post('/start', { instrument: ['EUR_USD'] }), 422, 'VALIDATION_ERROR');
  });

  it('answers 422 VALIDATION_ERROR for a name that is not BASE_QUOTE', async () => {
    const body = expectEnvelope(await post('/start', { instruments: ['EUR_USD', 'eurusd'] }), 422, 'VALIDATION_ERROR');
    expect(body.details?.[0]?.path).toBe('body.instruments.1');
  });

  it('answers 422 VALIDATION_ERROR naming an instrument the market does not list', async () => {
    const body = expectEnvelope(await post('/start', { instruments: ['EUR_USD', 'ABC_XYZ'] }), 422, 'VALIDATION_ERROR');
    expect(body.details).toEqual([{ path: 'body.instruments.1', message: expect.stringContaining('ABC_XYZ') }]);
    expect((await get('/status')).json().running).toBe(false);
  });

  it('answers 400 INVALID_JSON for a body that is not JSON', async () => {
    const res = await h.app.inject({ method: 'POST', url: '/start', headers: { 'content-type': 'application/json' }, payload: '{"dry_run": tru' });
    expectEnvelope(res, 400, 'INVALID_JSON');
  });
});

describe('Errors', () => {
  it('answers INTERNAL_ERROR 500 with the envelope (error, code, message, timestamp) on a server failure', async () => {
    await h.stores.close();
    const body = expectEnvelope(await get('/status'), 500, 'INTERNAL_ERROR');
    expect(body.message).toBe('internal error');
  });
});

describe('GET /docs and GET /redoc', () => {
  it('serves Swagger UI at /docs listing every spec 000 endpoint', async () => {
    expect((await get('/docs/')).headers['content-type']).toContain('text/html');
    const paths = Object.keys((await get('/docs/json')).json().paths);
    expect(paths).toEqual(expect.arrayContaining(['/health', '/status', '/pairs', '/signals/{instrument}', '/start', '/stop', '/restart']));
  });

  it('serves /redoc from the local Redoc bundle, never a CDN', async () => {
    const page = await get('/redoc');
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    expect(page.body).toContain('<script src="/redoc/redoc.standalone.js">');
    expect(page.body).not.toMatch(/https?:\/\//);
    const bundle = await get('/redoc/redoc.standalone.js');
    expect(bundle.statusCode).toBe(200);
    expect(bundle.headers['content-type']).toContain('javascript');
    expect(bundle.body.length).toBeGreaterThan(500_000);
  });
});

describe('Limits: confluence_score', () => {
  it('lies between 1 and 4 and equals the aligned indicators of every signal', async () => {
    await start({ instruments: ['EUR_USD', 'GBP_USD', 'USD_JPY', 'AUD_USD', 'XAU_USD', 'EUR_JPY'] });
    for (let i = 0; i < 40; i++) await h.advance(300_000);
    const signals = (await h.store.page({ limit: 500 })).signals;
    expect(signals.length).toBeGreaterThan(3);
    for (const s of signals) {
      const long = s.type === 'LONG';
      const ind = s.indicators;
      expect(ind.supertrend.direction).toBe(long ? 1 : -1);
      const fvg = Number(ind.fvg.type === (long ? 'bullish' : 'bearish'));
      const volumeProfile = Number(long ? s.entry_price > ind.volume_profile.poc : s.entry_price < ind.volume_profile.poc);
      // The record shows %K but not %D, so Stochastic RSI is known aligned only on its cross.
      const stochrsi = s.confluence_score - 1 - fvg - volumeProfile;
      expect([0, 1]).toContain(stochrsi);
      if (ind.stochrsi.signal === (long ? 'bullish_cross' : 'bearish_cross')) expect(stochrsi).toBe(1);
      expect(s.confluence_score).toBeGreaterThanOrEqual(1);
      expect(s.confluence_score).toBeLessThanOrEqual(4);
    }
  });
});
