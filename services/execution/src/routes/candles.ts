import { candleOfBar, isBrokerError, type TradingTerminal } from '@fxdesk/broker';
import { AppError, type App } from '@fxdesk/core';
import { ErrorEnvelopeSchema, TerminalCandlesQuerySchema, TerminalCandlesSchema } from '@fxdesk/schemas';
import { withDeadline, type Deadline } from '../deadline.js';
import { errors } from '../errors.js';

export interface CandleRouteOptions {
  terminal: TradingTerminal;
  allowedSymbols: string[];
  maxLookback: number;
  /** A terminal that stops answering rates costs the request a 503, not a hang. */
  deadline: Deadline;
}

export function registerCandleRoutes(app: App, { terminal, allowedSymbols, maxLookback, deadline }: CandleRouteOptions): void {
  const allowed = new Set(allowedSymbols);
  app.get(
    '/v1/market-data/candles',
    {
      schema: {
        tags: ['market data'],
        summary: 'Historical OHLC candles from the terminal',
        querystring: TerminalCandlesQuerySchema,
        response: { 200: TerminalCandlesSchema, 422: ErrorEnvelopeSchema, 503: ErrorEnvelopeSchema },
      },
    },
    async (request) => {
      const { quote, timeframe } = request.query;
      if (!allowed.has(quote)) {
        throw errors.create('symbol_not_allowed', `symbol "${quote}" is not in ALLOWED_SYMBOLS (exact, case-sensitive)`, {
          details: [{ path: 'querystring.quote', message: 'not in ALLOWED_SYMBOLS' }],
        });
      }
      if (!terminal.isConnected()) throw new AppError('not_ready', `the ${terminal.name} terminal is disconnected`, { headers: { 'retry-after': '5' } });
      const count = Math.min(request.query.count, maxLookback);
      let bars;
      try {
        bars = await withDeadline(() => terminal.rates(quote, timeframe, count), deadline);
      } catch (err) {
        if (isBrokerError(err) && err.kind === 'not_found') {
          throw errors.create('symbol_not_allowed', `the ${terminal.name} terminal does not list ${quote}`);
        }
        request.log.warn({ err }, 'rates failed');
        throw errors.create('broker_unavailable', `the terminal did not answer rates: ${err instanceof Error ? err.message : String(err)}`, {
          headers: { 'retry-after': '1' },
        });
      }
      return { quote, timeframe, candles: bars.map((bar) => ({ ...candleOfBar(bar), spread: bar.spread })) };
    },
  );
}
