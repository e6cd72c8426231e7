import type { SimulatedMarket } from '@fxdesk/broker';
import type { Timeframe } from '@fxdesk/schemas';
import { candleOfSimulatedBar, type MarketCandle, type MarketSource, type QuoteHandlers, type QuoteSubscription, type SourceSymbol } from './market-source.js';

/**
 * The in-process simulated market (no MARKET_DATA_URL): the same prices the market-data and
 * execution services show for the same SIM_SEED, computed here. Live ticking starts with the
 * first subscription and stops when the source closes.
 */
export class SimulatedSource implements MarketSource {
  readonly name = 'simulated';

  constructor(private readonly market: SimulatedMarket) {}

  async catalog(): Promise<SourceSymbol[]> {
    return this.market.symbols().map((s) => ({ symbol: s.symbol, digits: s.digits }));
  }

  async closedCandles(symbol: string, timeframe: Timeframe, count: number): Promise<MarketCandle[]> {
    const digits = this.market.spec(symbol)?.digits ?? 0;
    // One more than asked: the last bar may be the forming one.
    const bars = (await this.market.barsSliced(symbol, timeframe, count + 1)).filter((bar) => bar.closed);
    return bars.slice(Math.max(0, bars.length - count)).map((bar) => candleOfSimulatedBar(bar, digits));
  }

  subscribe(symbols: string[], handlers: QuoteHandlers): QuoteSubscription {
    const wanted = new Set(symbols);
    const unsubscribe = this.market.onTick((tick) => {
      if (wanted.has(tick.symbol)) handlers.onQuote(tick);
    });
    this.market.start();
    return { close: unsubscribe };
  }

  rate(from: string, to: string): number | undefined {
    return this.market.rate(from, to);
  }

  async close(): Promise<void> {
    this.market.stop();
  }
}
