import type { App } from '@fxdesk/core';
import { ErrorEnvelopeSchema, SignalIdParamsSchema, SignalRecordSchema, SignalResultSchema, SignalSubmissionSchema } from '@fxdesk/schemas';
import { errors } from '../errors.js';
import type { SignalPipeline } from '../pipeline.js';
import type { SignalStore } from '../store.js';

/** The body each request carried before validation applied defaults: the record keeps it as received. */
const receivedBodies = new WeakMap<object, unknown>();

export function registerSignalRoutes(app: App, { pipeline, store }: { pipeline: SignalPipeline; store: SignalStore }): void {
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
      preValidation: async (request) => {
        receivedBodies.set(request, request.body);
      },
    },
    async (request, reply) => {
      const answer = await pipeline.submit(request.body, receivedBodies.get(request) ?? request.body, request.id);
      if (answer.replayed) reply.header('idempotent-replayed', 'true');
      // The stored answer goes out exactly as stored: a string is never re-serialized.
      return reply.status(answer.status as 200).type('application/json; charset=utf-8').send(answer.body as never);
    },
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
    async (request) => {
      const signalId = request.params.signal_id.toLowerCase();
      const record = await store.find(signalId);
      if (!record) throw errors.create('signal_not_found', `no signal ${signalId}`);
      return record;
    },
  );
}
