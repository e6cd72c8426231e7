import type { OutgoingHttpHeaders } from 'node:http';
import { STREAM_HEADERS, type App } from '@fxdesk/core';
import { marketDataResponses, TickStreamQuerySchema } from '@fxdesk/schemas';
import type { MarketData } from '../market-data.js';

/**
 * GET /v1/stream/ticks. Auth, validation and the symbol and capacity checks run as for any
 * route, so their errors answer the JSON envelope; only then is the reply hijacked and the
 * raw response turned into an event stream, which Fastify no longer touches.
 */
export function registerStreamRoutes(app: App, market: MarketData): void {
  app.get(
    '/stream/ticks',
    {
      schema: {
        tags: ['stream'],
        summary: 'Live bid/ask quotes as server-sent events (`tick` and `status` events)',
        description:
          'On connect: a `retry:` hint, the last known tick of each requested symbol once, then a `status` event with the current connection state. Then a `tick` per quote, a `status` per change of the connection state (and after a slow client catches up, with its `dropped` counter), and a comment heartbeat every STREAM_HEARTBEAT_SECONDS. With replicas (REDIS_URL set), event ids are Redis stream ids and a `Last-Event-ID` header resumes: every tick after that id the stream still holds (TICK_STREAM_RETENTION), instead of the replay; an id older than that gets the replay and a `status` whose `reason` says ticks were missed.',
        querystring: TickStreamQuerySchema,
        response: marketDataResponses.stream,
      },
    },
    async (request, reply) => {
      const symbols = market.admitStream(request.query.symbols);
      // HEAD (which Fastify adds for every GET) gets the headers only, never an endless stream.
      if (request.method === 'HEAD') return reply.headers(STREAM_HEADERS).send('');
      const res = reply.raw;
      reply.hijack();
      res.writeHead(200, { ...(reply.getHeaders() as OutgoingHttpHeaders), ...STREAM_HEADERS });
      const lastEventId = request.headers['last-event-id'];
      const client = await market.openStream(res, symbols, typeof lastEventId === 'string' ? lastEventId : undefined);
      const startedAt = performance.now();
      res.once('close', () => {
        request.log.info(
          { durationMs: Math.round(performance.now() - startedAt), delivered: client.delivered, dropped: client.dropped },
          `${request.method} ${request.url.slice(0, 200)} stream closed`,
        );
      });
    },
  );
}
