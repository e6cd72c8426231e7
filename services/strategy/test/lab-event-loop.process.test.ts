import { monitorEventLoopDelay } from 'node:perf_hooks';
import { mainThreadCpuMs } from '@fxdesk/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { harness, type Harness } from './helpers.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function submit(app: Harness['app'], body: object): Promise<string> {
  const res = await app.inject({ method: 'POST', url: '/backtests', payload: body });
  expect(res.statusCode, res.body).toBe(202);
  return res.json<{ id: string }>().id;
}

/** The job's record once it has finished (done or failed), read every 20 ms. */
async function finished(app: Harness['app'], id: string): Promise<{ status: string; error: unknown; candles: number }> {
  for (;;) {
    const record = (await app.inject({ url: `/backtests/${id}` })).json<{ status: string; error: unknown; candles: number }>();
    if (record.status !== 'queued' && record.status !== 'running') return record;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * The most CPU time the main thread spent between two turns of a 10 ms timer until stopped: what
 * one turn of the event loop held it for at worst, whether or not the machine is busy (a wall-clock
 * delay also counts the time the process waited for a core).
 */
function watchTurns() {
  let worstMs = 0;
  let lastMs = mainThreadCpuMs();
  const timer = setInterval(() => {
    const nowMs = mainThreadCpuMs();
    worstMs = Math.max(worstMs, nowMs - lastMs);
    lastMs = nowMs;
  }, 10);
  return {
    stop: () => {
      clearInterval(timer);
      return worstMs;
    },
  };
}

describe("the lab's simulated history on the service's event loop", () => {
  it('never holds the loop for 100 ms of CPU while five years of D1 and two months of M1 load, run and chart', async () => {
    h = await harness({ env: { RATE_LIMIT_GET_PER_MINUTE: '100000', RATE_LIMIT_POST_PER_MINUTE: '1000', LAB_WORKERS: '1', SIM_TICK_INTERVAL_MS: '1000' } });
    const { app } = h;
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const turns = watchTurns();

    const daily = await submit(app, { instruments: ['EUR_USD', 'GBP_USD'], timeframe: 'D1', from: '2021-01-01', to: '2026-01-01' });
    const minutes = await submit(app, { instruments: ['USD_JPY'], timeframe: 'M1', from: '2025-10-01', to: '2025-12-01' });
    const [d1, m1] = [await finished(app, daily), await finished(app, minutes)];
    const chart = await app.inject({ url: `/backtests/${daily}/candles?instrument=EUR_USD&limit=500` });
    const worstTurnCpuMs = turns.stop();
    delay.disable();

    expect(d1).toMatchObject({ status: 'done', error: null });
    expect(m1).toMatchObject({ status: 'done', error: null });
    expect(d1.candles).toBeGreaterThan(2 * 1250);
    expect(m1.candles).toBeGreaterThan(40_000);
    expect(chart.statusCode, chart.body).toBe(200);
    const seen = `worst turn ${worstTurnCpuMs} ms of CPU; worst event-loop delay ${(delay.max / 1e6 - 10).toFixed(0)} ms of wall time`;
    expect(worstTurnCpuMs, seen).toBeLessThan(100);
  }, 300_000);
});
