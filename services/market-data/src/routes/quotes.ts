import type { App } from '@fxdesk/core';
import type { FastifyReply } from 'fastify';
import { candlesQuerySchema, DEFAULT_CANDLE_COUNT, marketDataResponses, TickQuerySchema } from '@fxdesk/schemas';
import { errors } from '../errors.js';
import type { RelayedAnswer } from '../leader-relay.js';
import type { MarketData } from '../market-data.js';

/** GET /v1/market-data/tick and GET /v1/market-data/candles. */
export function registerQuoteRoutes(app: App, market: MarketData): void {
  app.get(
    '/market-data/tick',
    {
      schema: {
        tags: ['market data'],
        summary: 'The latest cached quote of a symbol',
        description:
          '404 `symbol_not_found` for a symbol the catalog does not list, 404 `no_quote_yet` before its first quote (every enabled symbol has one once /health/ready answers 200).',
        querystring: TickQuerySchema,
        response: marketDataResponses.tick,
      },
    },
    (request) => market.latestTick(request.query.symbol),
  );

  app.get(
    '/market-data/candles',
    {
      schema: {
        tags: ['market data'],
        summary: 'Closed candles of a symbol, oldest first; `ts` is the end of each UTC interval',
        description:
          'The bar still forming is never returned. Without `from`: the newest `count` closed candles. With `from` ' +
          '(and `to`, default now; RFC 3339): the closed candles whose interval starts in [from, to), oldest first, at ' +
          'most `count` (default MAX_CANDLES); `next_from` is where the next page starts: ask again with it as `from` ' +
          'and the same `to` until it is null. 422 `invalid_range` for `from` not before `to`, or `to` without `from`. ' +
          'Candles come from the venue: with replicas (REDIS_URL), one that does not hold the venue connection forwards the request ' +
          'to the one that does and answers what it answers, errors included.',
        querystring: candlesQuerySchema(market.maxCandles),
        response: marketDataResponses.candles,
      },
    },
    async (request, reply) => {
      const relayed = await market.fromLeader(request);
      if (relayed) return sendRelayed(reply, relayed);
      const { symbol, timeframe, count, from, to } = request.query;
      if (from === undefined) {
        if (to !== undefined) throw errors.create('invalid_range', '`to` bounds a range: give `from` with it');
        return { symbol, timeframe, candles: await market.candles(symbol, timeframe, count ?? DEFAULT_CANDLE_COUNT) };
      }
      const page = await market.candlesBetween(symbol, timeframe, Date.parse(from), to === undefined ? undefined : Date.parse(to), count ?? market.maxCandles);
      return { symbol, timeframe, candles: page.candles, next_from: page.nextFrom };
    },
  );
}

/** Sends another replica's answer as it came: its status, and its body already serialized (a string is sent as is). */
function sendRelayed(reply: FastifyReply, answer: RelayedAnswer): FastifyReply {
  return reply.code(answer.status).headers(answer.headers).send(answer.body);
}
