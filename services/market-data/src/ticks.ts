import type { Quote } from '@fxdesk/broker';
import { decimalFromNumber } from '@fxdesk/primitives';
import type { Tick } from '@fxdesk/schemas';

/**
 * The spec's tick object from a feed quote. `spread` is ask − bid in price units, rounded to
 * the symbol's digits so binary noise (1.08512 − 1.08500 = 0.00011999…) never reaches a client.
 */
export function toTick(quote: Quote, digits: number, provider: string): Tick {
  return {
    symbol: quote.symbol,
    bid: quote.bid,
    ask: quote.ask,
    spread: Number(decimalFromNumber(quote.ask - quote.bid, digits)),
    ts: new Date(quote.time).toISOString(),
    provider,
  };
}
