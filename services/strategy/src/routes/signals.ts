import type { App } from '@fxdesk/core';
import { AppError } from '@fxdesk/core';
import { ErrorEnvelopeSchema, InstrumentNameSchema, LatestSignalResponseSchema, SignalHistorySchema } from '@fxdesk/schemas';
import { z } from 'zod';
import type { StrategyEngine } from '../engine.js';
import { errors } from '../errors.js';
import type { RateLimitHooks } from '../rate-limits.js';
import type { StrategyStore } from '../store.js';
import { limitedBy, RATE_LIMITED_RESPONSE } from './options.js';

export interface SignalRoutesOptions {
  engine: StrategyEngine;
  store: StrategyStore;
  limits: RateLimitHooks;
}

const HistoryQuerySchema = z.object({
  instrument: InstrumentNameSchema.optional(),
  limit: z.coerce.number().int().min(1).max(500).default(50).meta({ description: 'Signals per page, 1 to 500; default 50' }),
  cursor: z.string().max(64).optional().meta({ description: 'next_cursor of the previous page' }),
});

/** Cursors are opaque to clients: the seq of the last signal of a page, base64url. */
function encodeCursor(seq: number): string {
  return Buffer.from(`s${seq}`).toString('base64url');
}

function decodeCursor(cursor: string): number {
  const m = /^s(\d{1,15})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!m) {
    throw new AppError('validation_error', 'query.cursor: not a cursor this service issued', {
      details: [{ path: 'query.cursor', message: 'not a cursor this service issued' }],
    });
  }
  return Number(m[1]);
}

/** GET /signals/{instrument} (spec 000) and GET /signals (history). */
export function registerSignalRoutes(app: App, o: SignalRoutesOptions): void {
  app.get(
    '/signals/:instrument',
    {
      ...limitedBy(o.limits.get),
      schema: {
        tags: ['signals'],
        summary: 'Latest signal of one pair',
        description: '`signal` is null (with a `message`) when the pair has no signal yet; 404 INSTRUMENT_NOT_FOUND for a name the desk does not know.',
        // Any text: a malformed or over-long name is an unknown instrument (404), as spec 000 has it.
        params: z.object({ instrument: z.string().meta({ description: 'A pair name, e.g. EUR_USD' }) }),
        response: { 200: LatestSignalResponseSchema, 404: ErrorEnvelopeSchema, ...RATE_LIMITED_RESPONSE },
      },
    },
    async (request) => {
      const { instrument } = request.params;
      if (!(await o.engine.isKnownInstrument(instrument))) {
        throw errors.create('instrument_not_found', `unknown instrument ${JSON.stringify(instrument.slice(0, 64))}; names look like EUR_USD`);
      }
      const signal = o.store.latest(instrument);
      return signal ? { instrument, signal } : { instrument, signal: null, message: `no signal for ${instrument} yet` };
    },
  );

  app.get(
    '/signals',
    {
      ...limitedBy(o.limits.get),
      schema: {
        tags: ['signals'],
        summary: 'Signal history, newest first',
        description: 'Filter by `instrument`; follow `next_cursor` (as `cursor`) for older signals.',
        querystring: HistoryQuerySchema,
        response: { 200: SignalHistorySchema, 422: ErrorEnvelopeSchema, ...RATE_LIMITED_RESPONSE },
      },
    },
    async (request) => {
      const { instrument, limit, cursor } = request.query;
      const page = o.store.page({ instrument, limit, before: cursor === undefined ? undefined : decodeCursor(cursor) });
      return { signals: page.signals, next_cursor: page.nextBefore === null ? null : encodeCursor(page.nextBefore) };
    },
  );
}
