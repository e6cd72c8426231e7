import type { SimulatedMarket } from './market.js';
import type { SymbolSpec, SymbolTier } from './symbols.js';

/** OANDA margin rates of the simulated instruments. */
export const MARGIN_RATE: Record<SymbolTier, string> = { major: '0.0333', cross: '0.05', metal: '0.05' };

/** A trade of the simulated trader, as far as pricing it goes: signed units at an open price. */
export interface PricedTrade {
  spec: SymbolSpec;
  units: number;
  price: number;
}

/** The simulated account's prices: fills at the market's latest ticks, P/L and margin in the account currency. */
export class AccountPricing {
  constructor(
    private readonly market: SimulatedMarket,
    private readonly currency: string,
  ) {}

  mid(spec: SymbolSpec, time: number): number {
    const tick = this.market.lastTick(spec.symbol, time);
    return tick ? (tick.bid + tick.ask) / 2 : this.market.midAt(spec.symbol, time);
  }

  /** Buys fill at the ask, sells at the bid. */
  fillPrice(spec: SymbolSpec, units: number, time: number): number {
    const tick = this.market.lastTick(spec.symbol, time);
    if (!tick) return round(this.market.midAt(spec.symbol, time), spec.digits);
    return units > 0 ? tick.ask : tick.bid;
  }

  profit(trade: PricedTrade, closePrice: number, time: number): number {
    const quoteAmount = (closePrice - trade.price) * trade.units;
    return quoteAmount * (this.market.rate(trade.spec.quote, this.currency, time) ?? 0);
  }

  /** What closing the trade now would realize. */
  unrealized(trade: PricedTrade, now: number): number {
    return this.profit(trade, this.fillPrice(trade.spec, -trade.units, now), now);
  }

  margin(trade: PricedTrade, now: number): number {
    const rate = this.market.rate(trade.spec.base, this.currency, now) ?? 0;
    return Math.abs(trade.units) * rate * Number(MARGIN_RATE[trade.spec.tier]);
  }
}

export function round(value: number, digits: number): number {
  return Number(value.toFixed(digits));
}

/** Account-currency amounts as OANDA writes them: four decimals. */
export function money(value: number): string {
  const text = value.toFixed(4);
  return text === '-0.0000' ? '0.0000' : text;
}
