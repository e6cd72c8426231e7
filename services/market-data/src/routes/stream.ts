import type { OutgoingHttpHeaders } from 'node:http';
import type { App } from '@fxdesk/core';
import { ErrorEnvelopeSchema } from '@fxdesk/schemas';
import { z } from 'zod';
import type { MarketData } from '../market-data.js';
import { STREAM_HEADERS } from '../sse.js';

const SymbolListSchema = z
  .string()
  .regex(/[^\s,]/, { message: 'list at least one symbol, or omit the parameter for all' })
  .transform((value) => value.split(',').map((s) => s.trim()).filter((s) => s.length > 0))
  .meta({ description: 'Comma-separated symbols, e.g. EURUSD,GBPUSD; omitted means every symbol', example: 'EURUSD,GBPUSD' });

const StreamQuerySchema = z.object({ symbols: SymbolListSchema.optional() });

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
          'On connect: a `retry:` hint, the last known tick of each requested symbol once, then a `status` event with the current connection state. Then a `tick` per quote, a `status` per change of the connection state (and after a slow client catches up, with its `dropped` counter), and a comment heartbeat every STREAM_HEARTBEAT_SECONDS.',
        querystring: StreamQuerySchema,
        response: {
          200: {
            description: 'The event stream: `event: tick` and `event: status` frames, each with an `id:` and JSON `data:`',
            content: { 'text/event-stream': { schema: z.string() } },
          },
          404: ErrorEnvelopeSchema.describe('A requested symbol the catalog does not list (`symbol_not_found`)'),
          503: ErrorEnvelopeSchema.describe('MAX_STREAM_CLIENTS reached (`too_many_clients`), or the catalog not loaded yet (`broker_unavailable`)'),
        },
      },
    },
    async (request, reply) => {
      const symbols = market.admitStream(request.query.symbols);
      // HEAD (which Fastify adds for every GET) gets the headers only, never an endless stream.
      if (request.method === 'HEAD') return reply.headers(STREAM_HEADERS).send('');
      const res = reply.raw;
      reply.hijack();
      res.writeHead(200, { ...(reply.getHeaders() as OutgoingHttpHeaders), ...STREAM_HEADERS });
      const client = market.openStream(res, symbols);
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
