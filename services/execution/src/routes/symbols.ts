import type { App } from '@fxdesk/core';
import { ErrorEnvelopeSchema, SymbolParamsSchema, SymbolTermsSchema } from '@fxdesk/schemas';
import type { SymbolTermsReader } from '../symbol-terms.js';

export function registerSymbolRoutes(app: App, symbols: SymbolTermsReader): void {
  app.get(
    '/v1/symbols/:symbol',
    {
      schema: {
        tags: ['market data'],
        operationId: 'symbolTerms',
        summary: 'A symbol’s trading terms on the terminal',
        description:
          'What the venue says of the symbol now (MT5 symbol_info): digits, contract size, volume min/max/step, stops and freeze levels, trade, filling and expiration modes, and its currencies. 422 symbol_not_allowed for a symbol outside ALLOWED_SYMBOLS or one the terminal does not list.',
        params: SymbolParamsSchema,
        response: { 200: SymbolTermsSchema, 422: ErrorEnvelopeSchema, 503: ErrorEnvelopeSchema },
      },
    },
    async (request) => symbols.read(request.params.symbol, request.log),
  );
}
