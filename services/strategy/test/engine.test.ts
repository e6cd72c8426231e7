import { ManualClock } from '@fxdesk/primitives';
import { describe, expect, it } from 'vitest';
import type { MarketSource } from '../src/market-source.js';
import { signalIdFor } from '../src/signal-id.js';
import { advanceUntilSignal, harness, MONDAY_NOON, sourceWith } from './helpers.js';

const M5 = 300_000;

async function pairs(h: Awaited<ReturnType<typeof harness>>) {
  return (await h.app.inject({ method: 'GET', url: '/pairs' })).json().pairs as {
    instrument: string;
    status: string;
    last_candle_time: string | null;
    supertrend: unknown;
  }[];
}

describe('the engine', () => {
  it('warms every pair up from history at start, so pairs are monitoring without waiting for a candle', async () => {
    const h = await harness();
    try {
      await h.app.inject({ method: 'POST', url: '/start' });
      await h.settle();
      const list = await pairs(h);
      expect(list.map((p) => p.status)).toEqual(['monitoring', 'monitoring', 'monitoring', 'monitoring']);
      // The last closed M5 candle at 12:00 opened at 11:55.
      expect(list.every((p) => p.last_candle_time === '2026-01-05T11:55:00.000Z')).toBe(true);
    } finally {
      await h.close();
    }
  });

  it('shows warming_up until the history has arrived', async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const h = await harness({ deps: {} });
    const real = h.deps.source;
    const slow = sourceWith(real, {
      closedCandles: async (...args: Parameters<MarketSource['closedCandles']>) => {
        await gate;
        return real.closedCandles(...args);
      },
    });
    const h2 = await harness({ clock: h.clock, deps: { source: slow } });
    try {
      await h2.app.inject({ method: 'POST', url: '/start', payload: { instruments: ['EUR_USD'] } });
      expect((await pairs(h2))[0]?.status).toBe('warming_up');
      release();
      await h2.settle();
      expect((await pairs(h2))[0]?.status).toBe('monitoring');
    } finally {
      await h2.close();
      await h.close();
    }
  });

  it('retries a failed warm-up within seconds rather than at the next candle close', async () => {
    const h = await harness({ deps: {} });
    const real = h.deps.source;
    let failures = 2;
    const flaky = sourceWith(real, {
      closedCandles: async (...args: Parameters<MarketSource['closedCandles']>) => {
        if (failures > 0) {
          failures -= 1;
          throw new Error('connect ECONNREFUSED 127.0.0.1:8010');
        }
        return real.closedCandles(...args);
      },
    });
    const h2 = await harness({ clock: h.clock, deps: { source: flaky } });
    try {
      await h2.app.inject({ method: 'POST', url: '/start', payload: { instruments: ['EUR_USD'] } });
      await h2.settle();
      expect((await pairs(h2))[0]?.status).toBe('warming_up');
      // Two failures: retried after 1 s, then 2 s; far sooner than the next close (at 12:05).
      await h2.advance(1000);
      await h2.advance(2000);
      expect((await pairs(h2))[0]?.status).toBe('monitoring');
    } finally {
      await h2.close();
      await h.close();
    }
  });

  it('feeds each closed candle once, at its close', async () => {
    const h = await harness();
    try {
      await h.app.inject({ method: 'POST', url: '/start', payload: { instruments: ['EUR_USD'] } });
      await h.settle();
      await h.advance(M5 - 1);
      expect((await pairs(h))[0]?.last_candle_time).toBe('2026-01-05T11:55:00.000Z');
      await h.advance(1);
      expect((await pairs(h))[0]?.last_candle_time).toBe('2026-01-05T12:00:00.000Z');
      const candles = (await h.app.inject({ method: 'GET', url: '/pairs/EUR_USD/candles?limit=500' })).json().candles as { time: string }[];
      const times = candles.map((c) => c.time);
      expect(new Set(times).size).toBe(times.length);
      expect(times.at(-1)).toBe('2026-01-05T12:00:00.000Z');
    } finally {
      await h.close();
    }
  });

  it('waits CANDLE_CLOSE_DELAY_MS after a close before reading the candle', async () => {
    const h = await harness({ env: { CANDLE_CLOSE_DELAY_MS: '2000' } });
    try {
      await h.app.inject({ method: 'POST', url: '/start', payload: { instruments: ['EUR_USD'] } });
      await h.settle();
      await h.advance(M5 + 1999);
      expect((await pairs(h))[0]?.last_candle_time).toBe('2026-01-05T11:55:00.000Z');
      await h.advance(1);
      expect((await pairs(h))[0]?.last_candle_time).toBe('2026-01-05T12:00:00.000Z');
    } finally {
      await h.close();
    }
  });

  it('turns a pair stale when no data arrives for STALE_AFTER_SECONDS (the market closes Friday 22:00 UTC), and monitoring again when it reopens', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 9, 21, 50));
    const h = await harness({ clock, env: { SIM_MARKET_HOURS: 'true', STALE_AFTER_SECONDS: '120' } });
    try {
      await h.app.inject({ method: 'POST', url: '/start', payload: { instruments: ['EUR_USD'] } });
      await h.settle();
      expect((await pairs(h))[0]?.status).toBe('monitoring');
      await h.advance(10 * 60_000 + 60_000);
      expect((await pairs(h))[0]?.status).toBe('monitoring');
      await h.advance(2 * 60_000);
      expect((await pairs(h))[0]?.status).toBe('stale');
      clock.set(Date.UTC(2026, 0, 11, 22, 0));
      // Sunday's open is thin: the first EURUSD tick of this seed comes within three minutes.
      await h.advance(3 * 60_000);
      expect((await pairs(h))[0]?.status).toBe('monitoring');
    } finally {
      await h.close();
    }
  });

  it("is stale at once when started on a weekend, though the feed opens with Friday's last quote (as the market-data stream does)", async () => {
    const saturday = Date.UTC(2026, 0, 10, 12, 0);
    const base = await harness({ clock: new ManualClock(saturday), env: { SIM_MARKET_HOURS: 'true' } });
    const real = base.deps.source;
    const fridayClose = Date.UTC(2026, 0, 9, 22, 0);
    const replaying = sourceWith(real, {
      subscribe: (symbols, handlers) => {
        for (const symbol of symbols) handlers.onQuote({ symbol, bid: 1.1, ask: 1.1002, time: fridayClose - 1000 });
        return real.subscribe(symbols, handlers);
      },
    });
    const h = await harness({ clock: base.clock, deps: { source: replaying }, env: { SIM_MARKET_HOURS: 'true', STALE_AFTER_SECONDS: '120' } });
    try {
      await h.app.inject({ method: 'POST', url: '/start', payload: { instruments: ['EUR_USD'] } });
      await h.settle();
      const [pair] = await pairs(h);
      expect(pair?.status).toBe('stale');
      // The console's copy and the event stream's records come from the same record.
      expect((await h.app.inject({ url: '/console/pairs' })).json().pairs[0].status).toBe('stale');
    } finally {
      await h.close();
      await base.close();
    }
  });

  it('decides only on a candle that closed within the last timeframe: no signal comes from the warm-up history', async () => {
    const h = await harness({ env: { MIN_CONFLUENCE: '1', INSTRUMENTS: 'EUR_USD,GBP_USD,USD_JPY,AUD_USD,XAU_USD,EUR_JPY,GBP_JPY' } });
    try {
      await h.app.inject({ method: 'POST', url: '/start' });
      await h.settle();
      const signals = (await h.store.page({ limit: 500 })).signals;
      expect(signals.every((s) => s.candle_time === '2026-01-05T11:55:00.000Z')).toBe(true);
    } finally {
      await h.close();
    }
  });

  it('gives each signal the id derived from its instrument, timeframe and candle', async () => {
    const h = await harness({ env: { MIN_CONFLUENCE: '1' } });
    try {
      await h.app.inject({ method: 'POST', url: '/start' });
      await advanceUntilSignal(h);
      for (const s of (await h.store.page({ limit: 500 })).signals) {
        expect(s.signal_id).toBe(signalIdFor(s.instrument, 'M5', Date.parse(s.candle_time) / 1000));
      }
    } finally {
      await h.close();
    }
  });

  it('never produces the same signal twice when restarted inside the candle it came from', async () => {
    const h = await harness({ env: { MIN_CONFLUENCE: '1' } });
    try {
      await h.app.inject({ method: 'POST', url: '/start' });
      await advanceUntilSignal(h);
      const before = (await h.store.page({ limit: 500 })).signals.map((s) => s.signal_id).sort();
      await h.advance(60_000);
      const restarted = await h.app.inject({ method: 'POST', url: '/restart' });
      expect(restarted.statusCode).toBe(200);
      await h.settle();
      expect((await h.store.page({ limit: 500 })).signals.map((s) => s.signal_id).sort()).toEqual(before);
      expect((await h.app.inject({ method: 'POST', url: '/stop' })).json().signals_generated).toBe(0);
    } finally {
      await h.close();
    }
  });

  it('keeps running when the market source fails, and shows the failure in /status downstream', async () => {
    const h = await harness();
    const failing = sourceWith(h.deps.source, {
      closedCandles: async () => {
        throw Object.assign(new Error('market-data: connect ECONNREFUSED'), { code: 'network_error' });
      },
    });
    const h2 = await harness({ clock: h.clock, deps: { source: failing } });
    try {
      await h2.app.inject({ method: 'POST', url: '/start', payload: { instruments: ['EUR_USD'] } });
      await h2.advance(M5);
      const status = (await h2.app.inject({ method: 'GET', url: '/status' })).json();
      expect(status.running).toBe(true);
      expect(status.downstream.market_data).toMatchObject({ state: 'failing', last_error: { code: 'network_error' } });
      expect(status.downstream.market_data.consecutive_failures).toBeGreaterThanOrEqual(2);
      expect((await pairs(h2))[0]?.status).toBe('warming_up');
      expect(h2.engine.isRunning).toBe(true);
    } finally {
      await h2.close();
      await h.close();
    }
  });

  it('keeps the clock-driven work constant per candle: one poll per pair per close', async () => {
    const h = await harness();
    let calls = 0;
    const real = h.deps.source;
    const counting = sourceWith(real, {
      closedCandles: (...args: Parameters<MarketSource['closedCandles']>) => {
        calls++;
        return real.closedCandles(...args);
      },
    });
    const h2 = await harness({ clock: new ManualClock(MONDAY_NOON), deps: { source: counting } });
    try {
      await h2.app.inject({ method: 'POST', url: '/start', payload: { instruments: ['EUR_USD', 'GBP_USD'] } });
      await h2.settle();
      expect(calls).toBe(2);
      for (let i = 0; i < 5; i++) await h2.advance(M5);
      expect(calls).toBe(12);
    } finally {
      await h2.close();
      await h.close();
    }
  });
});
