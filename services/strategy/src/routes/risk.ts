import type { App } from '@fxdesk/core';
import { ErrorEnvelopeSchema, RiskReportSchema, RiskResumeRequestSchema, RiskResumeResponseSchema, StrategyRateLimitedSchema } from '@fxdesk/schemas';
import { CONSOLE_REFUSALS } from '../console-access.js';
import type { DeskRisk } from '../desk-risk.js';
import { readRouteOptions, type ReadRouteOptions } from './read-routes.js';

/** GET /risk and POST /risk/resume (not spec 000); with `prefix` '/console', the console's copies. */
export function registerRiskRoutes(app: App, risk: DeskRisk, options: ReadRouteOptions = {}): void {
  const { prefix, limits, tags } = readRouteOptions(options, 'risk');
  const refusals = prefix ? CONSOLE_REFUSALS : { 429: StrategyRateLimitedSchema };
  app.get(
    `${prefix}/risk`,
    {
      ...limits,
      schema: {
        tags,
        summary: 'The desk’s risk limits, their use now and the halt, per account',
        description:
          'For the live and the paper account: every limit checked before an entry (ONE_POSITION_PER_PAIR, MAX_OPEN_TRADES, MAX_CURRENCY_EXPOSURE_LOTS, DAILY_LOSS_LIMIT, MAX_DRAWDOWN, the cooldown after COOLDOWN_LOSSES losses in a row), its use now (open trades, net lots by currency, the trading day’s loss, the drawdown below the peak, the cooldown), and the halt: ' +
          'an account that reached the daily loss limit or the drawdown sends no new entry until a person resumes it (POST /risk/resume). A limit of null is off (its setting is 0). ' +
          'The leader answers from its books; a follower (DATABASE_URL) as the leader last stored them.',
        response: { 200: RiskReportSchema, ...refusals },
      },
    },
    async () => risk.report(),
  );

  app.post(
    `${prefix}/risk/resume`,
    {
      ...limits,
      schema: {
        tags,
        summary: prefix ? 'Resume a halted account, from the console' : 'Resume a halted account',
        description:
          'A person’s resume of an account the desk halted: entries go out again, and its trading day and equity peak start again from its equity now (live: the account service’s, paper: the paper account’s; the last equity marked when it cannot be read). ' +
          'Recorded in the store on any replica and announced (key resume:<account>:<ms>); the leader takes it at once when it received it, else at its next check (LEADER_CHECK_MS). ' +
          '409 NOT_HALTED when the account is not halted; 503 DOWNSTREAM_UNAVAILABLE when no equity is known to restart from.',
        body: RiskResumeRequestSchema,
        response: { 200: RiskResumeResponseSchema, 409: ErrorEnvelopeSchema, 422: ErrorEnvelopeSchema, 503: ErrorEnvelopeSchema, ...refusals },
      },
    },
    async (request) => {
      const { resumedAt, account } = await risk.resumeNow(request.body.account);
      return {
        success: true as const,
        message: `the ${account.account} account resumed: entries go out again`,
        resumed_at: new Date(resumedAt).toISOString(),
        account,
      };
    },
  );
}
