import type { App } from '@fxdesk/core';
import { accountErrorResponses, AccountInstrumentsQuerySchema, AccountInstrumentsSchema } from '@fxdesk/schemas';
import type { AccountReads } from '../account-reads.js';

/** GET /instruments: the tradable instruments, cached; `X-Cache: HIT|MISS` says which. */
export function registerInstrumentRoutes(app: App, reads: AccountReads): void {
  app.get(
    '/instruments',
    {
      schema: {
        tags: ['account'],
        summary: 'Normalized tradable instruments, cached for INSTRUMENTS_CACHE_TTL_SECONDS',
        description: 'The `cached` field and the `X-Cache` header (HIT or MISS) say whether the broker was asked.',
        querystring: AccountInstrumentsQuerySchema,
        response: {
          200: AccountInstrumentsSchema,
          ...accountErrorResponses.unknownInstrument,
          ...accountErrorResponses.broker,
          ...accountErrorResponses.badQuery,
        },
      },
    },
    async (request, reply) => {
      const read = await reads.instruments(request.query.instruments);
      reply.header('x-cache', read.cached ? 'HIT' : 'MISS');
      return read;
    },
  );
}
