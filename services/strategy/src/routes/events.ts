import type { OutgoingHttpHeaders } from 'node:http';
import { STREAM_HEADERS, type App } from '@fxdesk/core';
import { ErrorEnvelopeSchema } from '@fxdesk/schemas';
import { z } from 'zod';
import { CONSOLE_REFUSALS } from '../console-access.js';
import type { EventHub } from '../event-hub.js';

const EventHeadersSchema = z.object({
  'last-event-id': z
    .string()
    .optional()
    .meta({ description: 'The id of the last event received: the stream resumes after it, or sends `reset` first when it is no longer kept' }),
});

/**
 * GET /events. The access rules and the client cap answer as for any route (the JSON envelope);
 * only then is the reply hijacked and the raw response turned into the event stream.
 */
export function registerEventRoutes(app: App, events: EventHub): void {
  app.get(
    '/events',
    {
      schema: {
        tags: ['console'],
        summary: 'The desk live, as server-sent events',
        description:
          'Each event has an `id:` one more than the last and JSON `data:`. `status` (StrategyStatus) on connect, on every start, stop, restart, signal and paper trade, and every 5 s; ' +
          '`pair` (PairRecord) when a pair changes, at most once a second per pair; `candle` (CandleEvent) when a candle of a monitored pair closes; `signal` (StrategySignal); ' +
          '`order` (OrderEvent) and `delivery` (DeliveryEvent) as a signal’s order and announcement move; `downstream` (DownstreamEvent) when a service starts or stops answering; ' +
          '`reset` ({}) first when Last-Event-ID is older than the EVENTS_REPLAY events kept: refetch. A comment heartbeat every 15 s.',
        headers: EventHeadersSchema,
        response: {
          200: {
            description: 'The event stream: `event:`, `id:` and JSON `data:` frames',
            content: { 'text/event-stream': { schema: z.string() } },
          },
          ...CONSOLE_REFUSALS,
          503: ErrorEnvelopeSchema.describe('TOO_MANY_CLIENTS: EVENTS_MAX_CLIENTS streams are open'),
        },
      },
    },
    async (request, reply) => {
      events.admit();
      // HEAD (which Fastify adds for every GET) gets the headers only, never an endless stream.
      if (request.method === 'HEAD') return reply.headers(STREAM_HEADERS).send('');
      const res = reply.raw;
      reply.hijack();
      res.writeHead(200, { ...(reply.getHeaders() as OutgoingHttpHeaders), ...STREAM_HEADERS });
      const stream = events.open(res, request.headers['last-event-id']);
      const startedAt = performance.now();
      res.once('close', () => {
        request.log.info({ durationMs: Math.round(performance.now() - startedAt), delivered: stream.delivered }, `${request.method} /events stream closed`);
      });
    },
  );
}
