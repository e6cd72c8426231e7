import type { App } from '@fxdesk/core';
import {
  ActionAnswerSchema,
  ClosePositionBodySchema,
  ClosePositionsAnswerSchema,
  ErrorEnvelopeSchema,
  IdempotencyHeadersSchema,
  OpenPositionListSchema,
  TicketParamsSchema,
} from '@fxdesk/schemas';
import type { FastifyReply } from 'fastify';
import { CONSOLE_REFUSALS } from '../console-access.js';
import type { ConsolePositions } from '../console-positions.js';

const NOT_CONFIGURED = ErrorEnvelopeSchema.describe('NOT_CONFIGURED: the strategy has no EXECUTION_URL');
const UNREACHED = {
  502: ErrorEnvelopeSchema.describe('DOWNSTREAM_ERROR: the execution service answered with a server error (its code in the message)'),
  504: ErrorEnvelopeSchema.describe('DOWNSTREAM_TIMEOUT: the execution service did not answer within DOWNSTREAM_TIMEOUT_MS'),
};

/** The failures of an action: the execution service's own answers, passed on, and those of no answer. */
const ACTION_FAILURES = {
  404: ErrorEnvelopeSchema.describe('NOT_CONFIGURED: no EXECUTION_URL; POSITION_NOT_FOUND: the execution service has no such open position'),
  409: ErrorEnvelopeSchema.describe('IDEMPOTENCY_CONFLICT: another request under the key; ACTION_IN_PROGRESS: the same one still runs'),
  422: ErrorEnvelopeSchema.describe('VALIDATION_ERROR: no or a malformed Idempotency-Key, or a body the strategy or the execution service refuses'),
  503: ErrorEnvelopeSchema.describe(
    'EXECUTION_OUTCOME_UNKNOWN: the terminal’s answer was ambiguous, stored unknown and never resent (check it at the broker); DOWNSTREAM_UNAVAILABLE: the service cannot be reached',
  ),
  ...UNREACHED,
};

const IDEMPOTENCY =
  'Idempotent by the required `Idempotency-Key` header, forwarded as it is to the execution service: repeat a request whose answer was lost with the same key, never a new one; ' +
  'the stored answer comes back with `Idempotent-Replayed: true`. The strategy sends it once and never retries it. The execution service’s answer is passed on, its refusals ' +
  '(codes upper-cased) and its 503 EXECUTION_OUTCOME_UNKNOWN included; a timeout (504) or a lost connection (503 DOWNSTREAM_UNAVAILABLE) leaves the outcome unknown too: repeat it with the same key.';

function replayed(reply: FastifyReply, isReplayed: boolean): void {
  if (isReplayed) reply.header('idempotent-replayed', 'true');
}

/** GET /console/positions, POST /console/positions/{ticket}/close and /console/positions/close-all: the desk's positions through the execution service. */
export function registerConsolePositionRoutes(app: App, positions: ConsolePositions): void {
  app.get(
    '/console/positions',
    {
      schema: {
        tags: ['console'],
        summary: "The open positions of the strategy's orders (the execution service's GET /v1/positions?source=SIGNAL_SOURCE)",
        response: {
          200: OpenPositionListSchema,
          ...CONSOLE_REFUSALS,
          404: NOT_CONFIGURED,
          503: ErrorEnvelopeSchema.describe('DOWNSTREAM_UNAVAILABLE: the execution service cannot be reached or is not ready'),
          ...UNREACHED,
        },
      },
    },
    async () => positions.open(),
  );

  app.post(
    '/console/positions/close-all',
    {
      schema: {
        tags: ['console'],
        summary: "Flatten: close every open position of the strategy's orders (the execution service's close-all for SIGNAL_SOURCE)",
        description: `One record per position at the execution service, so a repeat under the key closes only what it had not reached; 200 lists each position’s outcome. ${IDEMPOTENCY}`,
        headers: IdempotencyHeadersSchema,
        response: { 200: ClosePositionsAnswerSchema, ...CONSOLE_REFUSALS, ...ACTION_FAILURES },
      },
    },
    async (request, reply) => {
      const { result, replayed: isReplayed } = await positions.closeAll(request.headers['idempotency-key']);
      replayed(reply, isReplayed);
      return result;
    },
  );

  app.post(
    '/console/positions/:ticket/close',
    {
      schema: {
        tags: ['console'],
        summary: "Close all or part of a position (the execution service's POST /v1/positions/{ticket}/close)",
        description: `Body optional: \`volume\` lots, the whole position without it. ${IDEMPOTENCY}`,
        params: TicketParamsSchema,
        headers: IdempotencyHeadersSchema,
        body: ClosePositionBodySchema.nullish(),
        response: { 200: ActionAnswerSchema, ...CONSOLE_REFUSALS, ...ACTION_FAILURES },
      },
    },
    async (request, reply) => {
      const { result, replayed: isReplayed } = await positions.close(request.params.ticket, request.headers['idempotency-key'], request.body ?? {});
      replayed(reply, isReplayed);
      return result;
    },
  );
}
