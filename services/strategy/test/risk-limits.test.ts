import { SimulatedMarket } from '@fxdesk/broker';
import { ManualClock } from '@fxdesk/primitives';
import type { StrategySignal } from '@fxdesk/schemas';
import { describe, expect, it } from 'vitest';
import { simulatedTermsOf } from '../src/paper-account.js';
import { simulatedCandles } from './lab-fixtures.js';
import { allSignals, deskBacktest, recordedSource } from './recorded-desk.js';
import { harness, testConfig } from './helpers.js';
import { baseEnv, CLOSES, CODES, FROM, LIMITS, MINUTE, WARMUP } from './risk-limits.fixture.js';

/* Each limit on its own, over recorded M1 candles, refuses signals on the paper account exactly as the lab does, pair by pair, reason by reason. */

/** The signals skipped, `<instrument> <code>` → how many. */
function skippedCounts(signals: readonly StrategySignal[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const s of signals.filter((x) => x.execution.status === 'skipped')) {
    const key = `${s.instrument} ${s.execution.code}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

describe('each limit refuses on paper as in the lab', () => {
  for (const limit of LIMITS) {
    it(`${limit.code}: the paper account skips the signals the lab skips, pair by pair`, async () => {
      const market = new SimulatedMarket({ seed: 'risk-limits', tickIntervalMs: 1000, marketHours: false, clock: new ManualClock(0) });
      const pairs = limit.instruments.map((i) => simulatedCandles(market, i, 'M1', FROM, FROM + (WARMUP + CLOSES) * MINUTE));
      const startMs = FROM + WARMUP * MINUTE;
      const clock = new ManualClock(startMs);
      const env = { ...baseEnv(limit.instruments), ...limit.env };
      const h = await harness({ clock, env, deps: { source: recordedSource(market, pairs, clock) } });
      let paper: Map<string, number>;
      try {
        await h.app.inject({ method: 'POST', url: '/start', payload: { dry_run: true } });
        await h.settle();
        for (let i = 0; i < CLOSES; i++) await h.advance(MINUTE);
        paper = skippedCounts(await allSignals(h));
      } finally {
        await h.close();
      }
      const config = testConfig(env);
      const result = deskBacktest(config, pairs, WARMUP, startMs / 1000 + CLOSES * 60, {
        terms: Object.fromEntries(limit.instruments.map((i) => [i, simulatedTermsOf(i)!])),
      });
      for (const instrument of limit.instruments) {
        for (const code of CODES) {
          expect(paper.get(`${instrument} ${code}`) ?? 0, `${instrument} ${code}`).toBe(result.metrics.skipped?.per_pair[instrument]?.[code] ?? 0);
        }
      }
      expect(result.metrics.skipped?.overall[limit.code]).toBeGreaterThan(0);
    }, 120_000);
  }
});
