import type { App } from '@fxdesk/core';
import { StrategyRateLimitedSchema, StrategyStatusSchema } from '@fxdesk/schemas';
import { CONSOLE_REFUSALS } from '../console-access.js';
import type { StrategyControl } from '../strategy-control.js';
import { readRouteOptions, type ReadRouteOptions } from './read-routes.js';

/**
 * GET /status: spec 000's status record, with the downstream services' health; with `prefix`
 * '/console', the console's own copy (its access rules and its own read budget).
 */
export function registerStatusRoutes(app: App, strategy: StrategyControl, options: ReadRouteOptions = {}): void {
  const { prefix, limits, tags } = readRouteOptions(options, 'strategy');
  app.get(
    `${prefix}/status`,
    {
      ...limits,
      schema: {
        tags,
        summary: 'Overall strategy status',
        description:
          '`total_signals_today` counts signals since 00:00 UTC. `account` comes from the account service when ACCOUNT_URL is set, else from the paper account. ' +
          "`downstream` shows how the market-data, execution, account and notification services have answered: with replicas, execution and notification as the leader last saw them (only it sends orders and announcements), market-data and account as this replica's own calls.",
        response: { 200: StrategyStatusSchema, 429: StrategyRateLimitedSchema, ...(prefix ? CONSOLE_REFUSALS : {}) },
      },
    },
    async () => strategy.status(),
  );
}
