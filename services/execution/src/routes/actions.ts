import { AppError, type App } from '@fxdesk/core';
import {
  ActionAnswerSchema,
  ActionListQuerySchema,
  ActionListSchema,
  ClosePositionBodySchema,
  ClosePositionsAnswerSchema,
  ClosePositionsBodySchema,
  ErrorEnvelopeSchema,
  IdempotencyHeadersSchema,
  ModifyPositionBodySchema,
  TicketParamsSchema,
} from '@fxdesk/schemas';
import type { FastifyReply } from 'fastify';
import type { PositionActions } from '../actions.js';
import type { Answer } from '../pipeline.js';

const ANSWERS = { 200: ActionAnswerSchema, 409: ErrorEnvelopeSchema, 422: ErrorEnvelopeSchema, 503: ErrorEnvelopeSchema };
const IDEMPOTENCY =
  'Idempotent by the required `Idempotency-Key` header: the action is claimed before the terminal is called; a retry with the same key and the same request ' +
  'gets the stored answer, byte for byte, with `Idempotent-Replayed: true` (refusals included); a different request under the key is 409 `idempotency_conflict`, ' +
  'a retry while it runs 409 `action_in_progress`. An ambiguous answer of the terminal is stored `unknown` (503 `execution_outcome_unknown`) and never resent.';

/** The stored answer goes out exactly as stored: a string is never re-serialized. */
function send(reply: FastifyReply, answer: Answer): FastifyReply {
  if (answer.replayed) reply.header('idempotent-replayed', 'true');
  return reply
    .status(answer.status as 200)
    .type('application/json; charset=utf-8')
    .send(answer.body);
}

export function registerActionRoutes(app: App, actions: PositionActions): void {
  // PATCH /v1/positions/{ticket} would take `close-all` as a ticket (422): the flatten's path
  // answers a PATCH as any documented path answers a method it does not have.
  app.route({
    method: 'PATCH',
    url: '/v1/positions/close-all',
    schema: { hide: true },
    handler: (request) => {
      throw new AppError('method_not_allowed', `PATCH is not allowed on ${request.url.split('?')[0] ?? ''}; allowed: POST`, { headers: { allow: 'POST' } });
    },
  });

  app.post(
    '/v1/positions/close-all',
    {
      schema: {
        tags: ['positions'],
        operationId: 'closeAllPositions',
        summary: 'Flatten: close every open position, or those of one symbol or source (idempotent by Idempotency-Key)',
        description:
          'One record per position, keyed by the Idempotency-Key and the ticket: a retry with the same key and body (after a crash in the middle, say) ' +
          'answers the positions already recorded from their records and closes only the ones not yet claimed, so nothing is closed twice. ' +
          '200 lists each position’s outcome (`answer` is what a close of that position answers); the same key with another body is 409 `idempotency_conflict`.',
        headers: IdempotencyHeadersSchema,
        body: ClosePositionsBodySchema.nullish(),
        response: { 200: ClosePositionsAnswerSchema, 409: ErrorEnvelopeSchema, 422: ErrorEnvelopeSchema, 503: ErrorEnvelopeSchema },
      },
    },
    async (request, reply) =>
      send(reply, await actions.closeAll(request.body ?? {}, { idempotencyKey: request.headers['idempotency-key'], requestId: request.id })),
  );

  app.post(
    '/v1/positions/:ticket/close',
    {
      schema: {
        tags: ['positions'],
        operationId: 'closePosition',
        summary: 'Close all or part of a position (idempotent by Idempotency-Key)',
        description: `Closes \`volume\` lots of the position at the bid (a buy) or the ask (a sell), the whole of it when absent. ${IDEMPOTENCY}`,
        params: TicketParamsSchema,
        headers: IdempotencyHeadersSchema,
        body: ClosePositionBodySchema.nullish(),
        response: ANSWERS,
      },
    },
    async (request, reply) =>
      send(
        reply,
        await actions.close(request.params.ticket, request.body ?? {}, { idempotencyKey: request.headers['idempotency-key'], requestId: request.id }),
      ),
  );

  app.patch(
    '/v1/positions/:ticket',
    {
      schema: {
        tags: ['positions'],
        operationId: 'modifyPosition',
        summary: 'Move the stop loss and/or take profit of a position (idempotent by Idempotency-Key)',
        description: `Sets \`sl\` and/or \`tp\` (null removes one, absent keeps it), with the price precision and stop-distance rules of a signal. ${IDEMPOTENCY}`,
        params: TicketParamsSchema,
        headers: IdempotencyHeadersSchema,
        body: ModifyPositionBodySchema,
        response: ANSWERS,
      },
    },
    async (request, reply) =>
      send(reply, await actions.modify(request.params.ticket, request.body, { idempotencyKey: request.headers['idempotency-key'], requestId: request.id })),
  );

  app.delete(
    '/v1/orders/:ticket',
    {
      schema: {
        tags: ['positions'],
        operationId: 'cancelOrder',
        summary: 'Cancel a resting pending order (idempotent by Idempotency-Key)',
        description: IDEMPOTENCY,
        params: TicketParamsSchema,
        headers: IdempotencyHeadersSchema,
        response: ANSWERS,
      },
    },
    async (request, reply) =>
      send(reply, await actions.cancel(request.params.ticket, { idempotencyKey: request.headers['idempotency-key'], requestId: request.id })),
  );

  app.get(
    '/v1/actions',
    {
      schema: {
        tags: ['positions'],
        operationId: 'listActions',
        summary: 'Stored actions on positions and orders, newest received first, cursor-paged',
        description:
          'Every close, modification and cancel with its state (processing, done, rejected, unknown) and the terminal’s answer; pass `next_cursor` back as `cursor` for the next (older) page until it is null.',
        querystring: ActionListQuerySchema,
        response: { 200: ActionListSchema, 422: ErrorEnvelopeSchema },
      },
    },
    async (request) => actions.list(request.query),
  );
}
