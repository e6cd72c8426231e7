import { SimulatedMarket } from '@fxdesk/broker';
import { ServiceError } from '@fxdesk/client';
import { ManualClock } from '@fxdesk/primitives';
import type { StrategySignal } from '@fxdesk/schemas';
import { describe, expect, it } from 'vitest';
import { allSignals } from './recorded-desk.js';
import { harness } from './helpers.js';
import { barSource, simulatedVenue, terminalAccount } from './live-desk.js';
import { baseEnv, CLOSES, FROM, LIMITS, MINUTE, WARMUP } from './risk-limits.fixture.js';

/* Each limit on its own refuses on a live run whose orders go through the execution service to the simulated terminal: a refused signal sends no order. */

/** A live run of `env` over CLOSES M1 closes of the simulated market, its orders through the execution service to the simulated terminal. */
async function runLive(env: Record<string, string>): Promise<{ signals: StrategySignal[]; unknownToVenue: Set<string> }> {
  const startMs = FROM + WARMUP * MINUTE;
  const clock = new ManualClock(startMs);
  const market = new SimulatedMarket({ seed: 'risk-limits', tickIntervalMs: 1000, marketHours: false, clock });
  const venue = await simulatedVenue(market, clock);
  const { terminal, client } = venue;
  const h = await harness({
    clock,
    env: { ACCOUNT_REFRESH_SECONDS: '0', ...env },
    deps: { source: barSource(market), execution: client, account: terminalAccount(terminal) },
  });
  const unknownToVenue = new Set<string>();
  try {
    expect((await h.app.inject({ method: 'POST', url: '/start', payload: { dry_run: false } })).statusCode).toBe(200);
    await h.settle();
    for (let i = 0; i < CLOSES; i++) await h.advance(MINUTE);
    const signals = await allSignals(h);
    // The execution service never heard of a skipped signal.
    for (const s of signals.filter((x) => x.execution.status === 'skipped')) {
      const isUnknown = await client.signal(s.signal_id).then(
        () => false,
        (err: unknown) => err instanceof ServiceError && err.status === 404,
      );
      if (isUnknown) unknownToVenue.add(s.signal_id);
    }
    return { signals, unknownToVenue };
  } finally {
    await h.close();
    await venue.close();
  }
}

describe('each limit refuses live, on the simulated terminal', () => {
  for (const limit of LIMITS) {
    it(`${limit.code}: a live run skips signals with it and sends them no order`, async () => {
      const { signals, unknownToVenue } = await runLive({ ...baseEnv(limit.instruments), ...limit.env });
      const skipped = signals.filter((s) => s.execution.status === 'skipped' && s.execution.code === limit.code);
      expect(skipped.length).toBeGreaterThan(0);
      for (const s of skipped) expect(unknownToVenue.has(s.signal_id), s.signal_id).toBe(true);
      expect(signals.some((s) => s.execution.status === 'filled')).toBe(true);
    }, 120_000);
  }
});
