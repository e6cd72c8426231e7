import type { App } from '@fxdesk/core';
import { ErrorEnvelopeSchema, InstrumentNameSchema } from '@fxdesk/schemas';
import { z } from 'zod';
import type { AccountReads } from '../account-reads.js';
import { InstrumentSchema } from '../schemas.js';
import { BROKER_ERROR_RESPONSES, VALIDATION_RESPONSE } from './responses.js';

/** One to 100 names like EUR_USD, comma-separated; blanks around and between them are ignored. */
const NAME = '[A-Z0-9]{2,10}_[A-Z0-9]{2,10}';
const INSTRUMENT_LIST = new RegExp(`^[\\s,]*${NAME}(?:\\s*,[\\s,]*${NAME}){0,99}[\\s,]*$`);

const InstrumentListSchema = z
  .string()
  .max(2000)
  .regex(INSTRUMENT_LIST, { message: 'expected 1 to 100 instrument names like EUR_USD, comma-separated' })
  .transform((value) => value.split(',').map((s) => s.trim()).filter((s) => s.length > 0))
  .pipe(z.array(InstrumentNameSchema).min(1, { message: 'name at least one instrument, or omit the parameter for all' }).max(100))
  .meta({ description: 'Comma-separated instrument names, e.g. EUR_USD,XAU_USD; omitted means all', example: 'EUR_USD,XAU_USD' });

const InstrumentsQuerySchema = z.object({ instruments: InstrumentListSchema.optional() });

const InstrumentsResponseSchema = z
  .object({
    instruments: z.array(InstrumentSchema),
    cached: z.boolean().meta({ description: 'true when served from the cache rather than a broker call' }),
    fetchedAt: z.string().meta({ description: 'When the list was read from the broker' }),
    expiresAt: z.string().meta({ description: 'When the cache entry expires (INSTRUMENTS_CACHE_TTL_SECONDS after fetchedAt)' }),
  })
  .meta({ id: 'Instruments' });

/** GET /instruments: the tradable instruments, cached; `X-Cache: HIT|MISS` says which. */
export function registerInstrumentRoutes(app: App, reads: AccountReads): void {
  app.get(
    '/instruments',
    {
      schema: {
        tags: ['account'],
        summary: 'Normalized tradable instruments, cached for INSTRUMENTS_CACHE_TTL_SECONDS',
        description: 'The `cached` field and the `X-Cache` header (HIT or MISS) say whether the broker was asked.',
        querystring: InstrumentsQuerySchema,
        response: {
          200: InstrumentsResponseSchema,
          404: ErrorEnvelopeSchema.describe('A named instrument the broker does not list (`instrument_not_found`)'),
          ...BROKER_ERROR_RESPONSES,
          ...VALIDATION_RESPONSE,
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
