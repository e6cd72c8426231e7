import type { App } from '@fxdesk/core';
import type { Clock } from '@fxdesk/primitives';
import { StrategyStatusSchema } from '@fxdesk/schemas';
import type { AccountView } from '../account-view.js';
import type { DownstreamHealth } from '../downstream.js';
import type { StrategyEngine } from '../engine.js';
import type { PaperAccount } from '../paper-account.js';
import type { RateLimitHooks } from '../rate-limits.js';
import { utcDay, type StrategyStore } from '../store.js';
import type { StrategyConfig } from '../config.js';
import { limitedBy, RATE_LIMITED_RESPONSE } from './options.js';

export interface StatusRouteOptions {
  config: StrategyConfig;
  clock: Clock;
  engine: StrategyEngine;
  store: StrategyStore;
  account: AccountView;
  paper: PaperAccount;
  health: DownstreamHealth;
  limits: RateLimitHooks;
}

/** GET /status: spec 000's status record, with the downstream services' health. */
export function registerStatusRoute(app: App, o: StatusRouteOptions): void {
  app.get(
    '/status',
    {
      ...limitedBy(o.limits.get),
      schema: {
        tags: ['strategy'],
        summary: 'Overall strategy status',
        description:
          '`total_signals_today` counts signals since 00:00 UTC. `account` comes from the account service when ACCOUNT_URL is set, else from the paper account. ' +
          '`downstream` shows how the market-data, execution, account and notification services have answered.',
        response: { 200: StrategyStatusSchema, ...RATE_LIMITED_RESPONSE },
      },
    },
    async () => {
      const state = o.engine.state;
      const priceOf = (instrument: string) => o.engine.pair(instrument)?.currentPrice ?? null;
      return {
        running: o.engine.isRunning,
        started_at: state.startedAt === null ? null : new Date(state.startedAt).toISOString(),
        active_pairs: state.instruments,
        total_signals_today: o.store.countOnDay(utcDay(o.clock.now())),
        last_signal_time: o.store.lastSignalTime() ?? null,
        account: await o.account.current(),
        account_source: o.account.source,
        paper_account: o.paper.snapshot(priceOf),
        dry_run: state.dryRun,
        timeframe: o.config.TIMEFRAME,
        downstream: o.health.view(),
      };
    },
  );
}
