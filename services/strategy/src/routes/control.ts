import type { App } from '@fxdesk/core';
import type { Clock } from '@fxdesk/primitives';
import {
  ErrorEnvelopeSchema,
  RestartResponseSchema,
  StartRequestSchema,
  StartResponseSchema,
  StopResponseSchema,
} from '@fxdesk/schemas';
import type { StrategyEngine } from '../engine.js';
import type { RateLimitHooks } from '../rate-limits.js';
import { limitedBy, RATE_LIMITED_RESPONSE } from './options.js';

export interface ControlRoutesOptions {
  engine: StrategyEngine;
  clock: Clock;
  limits: RateLimitHooks;
}

const CONFLICT = { 409: ErrorEnvelopeSchema.meta({ description: 'STRATEGY_ALREADY_RUNNING or STRATEGY_NOT_RUNNING' }) };

function describe(instruments: string[], dryRun: boolean): string {
  return `${instruments.length} instrument${instruments.length === 1 ? '' : 's'} (${instruments.join(', ')})${dryRun ? ', paper trading' : ''}`;
}

/**
 * POST /start, /stop and /restart. They take an optional JSON body (only /start reads one), so
 * within this scope an empty body sent as `application/json` counts as no body, as most HTTP
 * clients send one; any other content is parsed by Fastify's own JSON parser.
 */
export async function registerControlRoutes(app: App, o: ControlRoutesOptions): Promise<void> {
  await app.register(async (scope) => {
    const parseJson = scope.getDefaultJsonParser('error', 'error');
    scope.removeContentTypeParser('application/json');
    scope.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
      if (body === '' || (typeof body === 'string' && body.trim() === '')) return done(null, undefined);
      return parseJson(request, body as string, done);
    });
    const post = limitedBy(o.limits.post);
    const iso = (ms: number) => new Date(ms).toISOString();

    scope.post(
      '/start',
      {
        ...post,
        schema: {
          tags: ['strategy'],
          summary: 'Start the strategy',
          description:
            'Body optional. `instruments` default to INSTRUMENTS; each must be a BASE_QUOTE name the market lists (else 422 VALIDATION_ERROR). ' +
            '`dry_run` true trades the paper account instead of sending orders. 409 STRATEGY_ALREADY_RUNNING while running.',
          body: StartRequestSchema.nullish(),
          response: { 200: StartResponseSchema, 422: ErrorEnvelopeSchema, ...CONFLICT, ...RATE_LIMITED_RESPONSE },
        },
      },
      async (request) => {
        const started = await o.engine.start(request.body ?? {});
        return {
          success: true,
          message: `strategy started on ${describe(started.instruments, started.dryRun)}`,
          started_at: iso(started.startedAt),
          instruments: started.instruments,
          dry_run: started.dryRun,
        };
      },
    );

    scope.post(
      '/stop',
      {
        ...post,
        schema: {
          tags: ['strategy'],
          summary: 'Stop the strategy',
          description: '`signals_generated` counts the signals of the start this stop ends. 409 STRATEGY_NOT_RUNNING when not running.',
          response: { 200: StopResponseSchema, ...CONFLICT, ...RATE_LIMITED_RESPONSE },
        },
      },
      async () => {
        const stopped = o.engine.stop();
        return {
          success: true,
          message: `strategy stopped after ${stopped.signalsGenerated} signal${stopped.signalsGenerated === 1 ? '' : 's'}`,
          stopped_at: iso(stopped.stoppedAt),
          signals_generated: stopped.signalsGenerated,
        };
      },
    );

    scope.post(
      '/restart',
      {
        ...post,
        schema: {
          tags: ['strategy'],
          summary: 'Restart the strategy (stop then start)',
          description: 'Keeps the instruments and dry_run of the running start; indicators warm up again. 409 STRATEGY_NOT_RUNNING when not running.',
          response: { 200: RestartResponseSchema, 422: ErrorEnvelopeSchema, ...CONFLICT, ...RATE_LIMITED_RESPONSE },
        },
      },
      async () => {
        const restarted = await o.engine.restart();
        return {
          success: true,
          message: `strategy restarted on ${describe(restarted.instruments, restarted.dryRun)}`,
          restarted_at: iso(restarted.restartedAt),
          instruments: restarted.instruments,
          dry_run: restarted.dryRun,
        };
      },
    );
  });
}
