import type { OutgoingHttpHeaders } from 'node:http';
import { STREAM_HEADERS, type App } from '@fxdesk/core';
import { ErrorEnvelopeSchema } from '@fxdesk/schemas';
import { z } from 'zod';
import { CONSOLE_REFUSALS } from '../console-access.js';
import type { EventHub } from '../event-hub.js';

const EventHeadersSchema = z.object({
  'last-event-id': z.string().optional().meta({
    description:
      'The id of the last event received (an EventSource sends it by itself), on this replica or another: the stream resumes after it, or sends `reset` first when that cannot be told',
  }),
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
          'Each event has an opaque `id:` and JSON `data:`. `status` (StrategyStatus) on connect, on every start, stop, restart, signal, order, delivery and paper trade, and every 5 s; ' +
          '`pair` (PairRecord) when a pair changes, at most once a second per pair; `candle` (CandleEvent) when a candle of a monitored pair closes; `signal` (StrategySignal); ' +
          '`order` (OrderEvent) and `delivery` (DeliveryEvent) as a signal’s order and announcement move; `downstream` (DownstreamEvent) when a service starts or stops answering; ' +
          '`lab` (LabEvent) as a backtest or sweep moves. The desk’s events (`candle`, `signal`, `order`, `delivery`, `lab`) come from a log every replica shares, so behind a load balancer ' +
          'every replica streams them alike and a stream resumes after Last-Event-ID on any replica. ' +
          '`reset` ({}) first when Last-Event-ID cannot be resumed (older than the events kept, never issued, not an id): refetch. A comment heartbeat every 15 s.',
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
      const startedAt = performance.now();
      const stream = await events.open(res, request.headers['last-event-id']);
      const closed = () =>
        request.log.info(
          { durationMs: Math.round(performance.now() - startedAt), delivered: stream?.delivered ?? 0 },
          `${request.method} /events stream closed`,
        );
      if (res.destroyed) closed();
      else res.once('close', closed);
    },
  );
}
