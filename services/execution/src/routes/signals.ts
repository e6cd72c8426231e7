import type { App } from '@fxdesk/core';
import {
  ErrorEnvelopeSchema,
  SignalIdParamsSchema,
  SignalListQuerySchema,
  SignalListSchema,
  SignalRecordSchema,
  SignalResultSchema,
  SignalSubmissionSchema,
} from '@fxdesk/schemas';
import type { SignalPipeline } from '../pipeline.js';

/** The body as the request carried it, before validation applied defaults: the record keeps it as received. */
const RECEIVED_BODY = 'receivedBody';

export function registerSignalRoutes(app: App, pipeline: SignalPipeline): void {
  app.decorateRequest(RECEIVED_BODY, null);

  app.post(
    '/v1/signals',
    {
      schema: {
        tags: ['signals'],
        summary: 'Validate and execute a trading signal (idempotent by signal_id)',
        description:
          'Answers 200 with the state (filled, partially_filled, placed), the broker tickets and the normalized result. ' +
          'An identical retry gets the stored answer, byte for byte, with `Idempotent-Replayed: true` (errors included), ' +
          'even while the service is not ready or after the symbol or source left the allow-lists.',
        body: SignalSubmissionSchema,
        response: { 200: SignalResultSchema, 409: ErrorEnvelopeSchema, 422: ErrorEnvelopeSchema, 503: ErrorEnvelopeSchema },
      },
      preValidation: (request, _reply, done) => {
        request.setDecorator(RECEIVED_BODY, request.body);
        done();
      },
    },
    async (request, reply) => {
      const answer = await pipeline.submit(request.body, request.getDecorator<unknown>(RECEIVED_BODY), request.id);
      if (answer.replayed) reply.header('idempotent-replayed', 'true');
      // The stored answer goes out exactly as stored: a string is never re-serialized.
      return reply
        .status(answer.status as 200)
        .type('application/json; charset=utf-8')
        .send(answer.body as never);
    },
  );

  app.get(
    '/v1/signals',
    {
      schema: {
        tags: ['signals'],
        summary: 'Stored signals, newest received first, filtered and cursor-paged',
        description:
          'Filters combine with AND: `state`, `symbol` (exact), `source`, and the received time from `from` (inclusive) to `to` (exclusive). ' +
          'Records come newest received first (ties by signal_id); pass `next_cursor` back as `cursor`, with the same filters, for the next page ' +
          'until it is null. Paging is by position, not offset: signals that arrive meanwhile are newer than the pages still to come, ' +
          'so they never shift them (no record is skipped or repeated). Unknown or repeated parameters are refused (422).',
        querystring: SignalListQuerySchema,
        response: { 200: SignalListSchema },
      },
    },
    async (request) => pipeline.list(request.query),
  );

  app.get(
    '/v1/signals/:signal_id',
    {
      schema: {
        tags: ['signals'],
        summary: 'The durable record of a signal, in any state',
        params: SignalIdParamsSchema,
        response: { 200: SignalRecordSchema, 404: ErrorEnvelopeSchema },
      },
    },
    async (request) => pipeline.record(request.params.signal_id),
  );
}
