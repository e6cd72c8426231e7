import { depthCheckedJsonParser, type App } from '@fxdesk/core';
import {
  ErrorEnvelopeSchema,
  RestartResponseSchema,
  StartBodySchema,
  StartResponseSchema,
  StopBodySchema,
  StopResponseSchema,
  StrategyConflictSchema,
  StrategyRateLimitedSchema,
} from '@fxdesk/schemas';
import { SCOPE_LIMITED } from '../rate-limits.js';
import type { StrategyControl } from '../strategy-control.js';
import { CONSOLE_REFUSALS } from '../console-access.js';

/**
 * POST /start, /stop and /restart (spec 000), or, with `prefix` '/console', the console's own
 * copies: the same answers, but console routes (the session and its CSRF token when a login is
 * required, the kit's rate limit rather than spec 000's counters). They take an optional JSON
 * body (start and stop read one), so within this scope an empty body sent as `application/json`
 * counts as no body, as most HTTP clients send one; any other content is parsed by the kit's
 * JSON parser (Fastify's own, behind the nesting limit).
 */
export async function registerControlRoutes(app: App, strategy: StrategyControl, { prefix = '' }: { prefix?: '' | '/console' } = {}): Promise<void> {
  const isConsole = prefix === '/console';
  const limits = isConsole ? {} : SCOPE_LIMITED;
  const tags = [isConsole ? 'console' : 'strategy'];
  const refusals = isConsole ? { 409: StrategyConflictSchema, ...CONSOLE_REFUSALS } : { 409: StrategyConflictSchema, 429: StrategyRateLimitedSchema };
  const asConsole = (summary: string) => (isConsole ? `${summary}, from the console` : summary);
  await app.register(async (scope) => {
    const parseJson = depthCheckedJsonParser(scope);
    scope.removeContentTypeParser('application/json');
    scope.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
      if (body === '' || (typeof body === 'string' && body.trim() === '')) return done(null, undefined);
      return parseJson(request, body as string, done);
    });

    scope.post(
      `${prefix}/start`,
      {
        ...limits,
        schema: {
          tags,
          summary: asConsole('Start the strategy'),
          description:
            'Body optional. `instruments` default to INSTRUMENTS; each must be a BASE_QUOTE name the market lists (else 422 VALIDATION_ERROR). ' +
            '`dry_run` true trades the paper account instead of sending orders. 409 STRATEGY_ALREADY_RUNNING while running. ' +
            'With replicas (DATABASE_URL), any replica takes it: the start is recorded in the shared run and the leading replica runs it.',
          body: StartBodySchema,
          response: { 200: StartResponseSchema, 422: ErrorEnvelopeSchema, ...refusals },
        },
      },
      async (request) => strategy.start(request.body ?? {}),
    );

    scope.post(
      `${prefix}/stop`,
      {
        ...limits,
        schema: {
          tags,
          summary: asConsole('Stop the strategy'),
          description:
            '`signals_generated` counts the signals of the start this stop ends. 409 STRATEGY_NOT_RUNNING when not running. ' +
            'With replicas (DATABASE_URL), any replica takes it and every replica stops. ' +
            'Body optional (beyond spec 000): `{"close_positions": true}` then closes what the run opened, and `closed` says what was closed: ' +
            'a live run every position of its orders (comment source SIGNAL_SOURCE) through the execution service’s close-all, each once (an `unknown` one is never resent: check it at the broker); ' +
            'a paper run every paper trade at the market now, journaled with exit reason `flatten`. The stop stands even when the closes fail (`closed.error`).',
          body: StopBodySchema,
          response: { 200: StopResponseSchema, 422: ErrorEnvelopeSchema, ...refusals },
        },
      },
      async (request) => strategy.stop(request.body ?? {}),
    );

    scope.post(
      `${prefix}/restart`,
      {
        ...limits,
        schema: {
          tags,
          summary: asConsole('Restart the strategy (stop then start)'),
          description:
            'Keeps the instruments and dry_run of the running start; indicators warm up again. 409 STRATEGY_NOT_RUNNING when not running. ' +
            'With replicas (DATABASE_URL), any replica takes it and every replica restarts.',
          response: { 200: RestartResponseSchema, 422: ErrorEnvelopeSchema, ...refusals },
        },
      },
      async () => strategy.restart(),
    );
  });
}
