import { AppError, type App } from '@fxdesk/core';
import { BrokerSymbolSchema, ErrorEnvelopeSchema, PositiveDecimalStringSchema, SourceSlugSchema } from '@fxdesk/schemas';
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import type { PositionActions } from '../actions.js';
import type { Answer } from '../pipeline.js';

/** Printable ASCII without spaces, up to 128 characters: a UUID, a ULID or any token a client makes. */
export const IdempotencyHeadersSchema = z.object({
  'idempotency-key': z
    .string()
    .regex(/^[\x21\x22\x24-\x7e]{1,128}$/, { message: 'expected 1 to 128 printable ASCII characters, without spaces or #' })
    .meta({ description: 'Required. The same key with the same request replays the stored answer; with a different request it is 409' }),
});

const TicketParamsSchema = z.object({
  ticket: z
    .string()
    .regex(/^[0-9]{1,20}$/, { message: 'expected a ticket number' })
    .meta({ description: 'The ticket' }),
});

const PriceOrNullSchema = PositiveDecimalStringSchema.nullable();

export const CloseBodySchema = z
  .strictObject({
    volume: PositiveDecimalStringSchema.optional().meta({ description: 'Lots to close, on the symbol volume step; the whole position when absent' }),
  })
  .meta({ id: 'ClosePosition' });

export const ModifyBodySchema = z
  .strictObject({
    sl: PriceOrNullSchema.optional().meta({ description: 'New stop loss; null removes it; absent keeps it' }),
    tp: PriceOrNullSchema.optional().meta({ description: 'New take profit; null removes it; absent keeps it' }),
  })
  .refine((b) => b.sl !== undefined || b.tp !== undefined, { message: 'give sl, tp or both' })
  .meta({ id: 'ModifyPosition' });

const ActionResultSchema = z.object({
  retcode: z.number().int(),
  retcode_name: z.string(),
  order: z.string().nullable(),
  deal: z.string().nullable(),
  volume: z.string(),
  price: z.string().nullable(),
  broker_comment: z.string(),
});

export const ActionAnswerSchema = z
  .object({
    action_id: z.string(),
    kind: z.enum(['close', 'modify', 'cancel']),
    ticket: z.string(),
    state: z.literal('done'),
    result: ActionResultSchema,
  })
  .meta({ id: 'ActionAnswer' });

const ActionRecordSchema = z
  .object({
    action_id: z.string(),
    idempotency_key: z.string(),
    kind: z
      .enum(['close', 'modify', 'cancel', 'close_all'])
      .meta({ description: 'close_all: a flatten’s plan (its request lists the tickets it covers); each position has its own close record' }),
    ticket: z.string(),
    state: z.enum(['processing', 'done', 'rejected', 'unknown']),
    request: z.unknown(),
    order_comment: z.string(),
    http_status: z.number().int().nullable(),
    result: ActionResultSchema.nullable(),
    error: z.object({ code: z.string(), message: z.string(), details: z.unknown().optional() }).nullable(),
    received_at: z.string(),
    completed_at: z.string().nullable(),
    updated_at: z.string(),
  })
  .meta({ id: 'ActionRecord' });

const ActionListQuerySchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(500).default(50).meta({ description: 'Records per page, 1 to 500; default 50' }),
  cursor: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,400}$/, { message: 'not a cursor this service issued' })
    .optional()
    .meta({ description: 'next_cursor of the previous page, as given (opaque)' }),
});

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

export const FlattenBodySchema = z
  .strictObject({
    symbol: BrokerSymbolSchema.optional().meta({ description: 'Only positions of this exact broker symbol' }),
    source: SourceSlugSchema.optional().meta({ description: 'Only positions whose order comment carries this source' }),
  })
  .meta({ id: 'ClosePositions' });

const FlattenAnswerSchema = z
  .object({
    idempotency_key: z.string(),
    positions: z.array(
      z.object({
        ticket: z.string(),
        state: z.enum(['processing', 'done', 'rejected', 'unknown']),
        http_status: z.number().int().nullable(),
        answer: z.unknown().meta({ description: 'What a close of this one position answers (ActionAnswer or the error envelope)' }),
      }),
    ),
  })
  .meta({ id: 'ClosePositionsAnswer' });

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
        body: FlattenBodySchema.nullish(),
        response: { 200: FlattenAnswerSchema, 409: ErrorEnvelopeSchema, 422: ErrorEnvelopeSchema, 503: ErrorEnvelopeSchema },
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
        body: CloseBodySchema.nullish(),
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
        body: ModifyBodySchema,
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
        response: {
          200: z.object({ actions: z.array(ActionRecordSchema), next_cursor: z.string().nullable() }).meta({ id: 'ActionList' }),
          422: ErrorEnvelopeSchema,
        },
      },
    },
    async (request) => actions.list(request.query),
  );
}
