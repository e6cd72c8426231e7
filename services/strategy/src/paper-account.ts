import type { Candle } from '@fxdesk/indicators';
import type { Clock } from '@fxdesk/primitives';
import type { StrategyAccount, StrategySignal } from '@fxdesk/schemas';
import type { EventHub } from './event-hub.js';
import type { PaperTrade, PaperTradeStore } from './store/index.js';

/** The paper account's currency: P/L and margin are converted to it. */
export const PAPER_CURRENCY = 'USD';

/** Units of the base currency in one lot: 100 oz of gold, 5 000 oz of silver, else 100 000. */
export function contractSize(instrument: string): number {
  const base = instrument.split('_')[0];
  return base === 'XAU' ? 100 : base === 'XAG' ? 5000 : 100_000;
}

export interface PaperAccountOptions {
  trades: PaperTradeStore;
  clock: Clock;
  startBalance: number;
  leverage: number;
  /** Lots each paper trade opens. */
  volumeLots: number;
  /** Units of `to` per unit of `from` at the latest prices, when the market knows them. */
  rate: (from: string, to: string) => number | undefined;
  /** Told when a trade opens or closes (the balance, equity and margin moved). */
  events: Pick<EventHub, 'statusChanged'>;
}

const round2 = (v: number) => Math.round(v * 100) / 100;

/**
 * The account that dry_run signals trade (README "Paper trading"): each signal opens TRADE_VOLUME
 * lots at its entry price with its stop loss and take profit; a later closed candle whose range
 * reaches the stop (checked first) or the target closes it there. Trades live in the store, so the
 * balance survives a restart.
 */
export class PaperAccount {
  constructor(private readonly o: PaperAccountOptions) {}

  /** The trade a dry_run signal opens, stored with the signal in one write. */
  tradeOf(signal: StrategySignal): PaperTrade {
    return {
      signalId: signal.signal_id,
      instrument: signal.instrument,
      side: signal.type === 'LONG' ? 1 : -1,
      units: this.o.volumeLots * contractSize(signal.instrument),
      entry: signal.entry_price,
      stopLoss: signal.stop_loss,
      takeProfit: signal.take_profit,
      candleTime: Date.parse(signal.candle_time) / 1000,
      openedAt: signal.generated_at,
    };
  }

  /**
   * Closes the open trades of `instrument` whose stop or target these candles (oldest first)
   * reached. Candles seen before change nothing: a trade closes once, at the first that reached it.
   */
  async onCandles(instrument: string, candles: readonly Candle[]): Promise<void> {
    let open = (await this.o.trades.openPaperTrades()).filter((t) => t.instrument === instrument);
    for (const candle of candles) {
      if (open.length === 0) return;
      const still: PaperTrade[] = [];
      for (const trade of open) if (candle.time <= trade.candleTime || !(await this.closeIfReached(trade, candle))) still.push(trade);
      open = still;
    }
  }

  /** Balance, equity and margin, marking open trades at `priceOf` (their entry when unknown). */
  async snapshot(priceOf: (instrument: string) => number | null): Promise<StrategyAccount> {
    const [realized, trades] = await Promise.all([this.o.trades.realizedPaperPnl(), this.o.trades.openPaperTrades()]);
    const balance = this.o.startBalance + realized;
    let unrealized = 0;
    let marginUsed = 0;
    for (const trade of trades) {
      const price = priceOf(trade.instrument) ?? trade.entry;
      unrealized += this.toAccount(trade.side * (price - trade.entry) * trade.units, trade.instrument, price);
      marginUsed += (trade.units * this.baseInAccount(trade.instrument, price)) / this.o.leverage;
    }
    const equity = balance + unrealized;
    return { balance: round2(balance), equity: round2(equity), margin_used: round2(marginUsed), margin_available: round2(equity - marginUsed) };
  }

  /** Closes `trade` at its stop or target when `candle` reached one; whether it did. */
  private async closeIfReached(trade: PaperTrade, candle: Candle): Promise<boolean> {
    const long = trade.side === 1;
    const stopHit = long ? candle.low <= trade.stopLoss : candle.high >= trade.stopLoss;
    const targetHit = long ? candle.high >= trade.takeProfit : candle.low <= trade.takeProfit;
    if (!stopHit && !targetHit) return false;
    // Both inside one candle: which came first is unknown, so the stop is assumed (the cautious reading).
    const exit = stopHit ? trade.stopLoss : trade.takeProfit;
    const pnl = this.toAccount(trade.side * (exit - trade.entry) * trade.units, trade.instrument, exit);
    await this.o.trades.closePaperTrade(trade.signalId, exit, round2(pnl), new Date(this.o.clock.now()).toISOString());
    this.o.events.statusChanged();
    return true;
  }

  /** An amount in the instrument's quote currency, in the account currency. */
  private toAccount(amount: number, instrument: string, price: number): number {
    const [base, quote] = instrument.split('_') as [string, string];
    if (quote === PAPER_CURRENCY) return amount;
    if (base === PAPER_CURRENCY) return amount / price;
    return amount * (this.o.rate(quote, PAPER_CURRENCY) ?? 1);
  }

  /** One unit of the instrument's base currency, in the account currency. */
  private baseInAccount(instrument: string, price: number): number {
    const [base, quote] = instrument.split('_') as [string, string];
    if (base === PAPER_CURRENCY) return 1;
    if (quote === PAPER_CURRENCY) return price;
    return this.o.rate(base, PAPER_CURRENCY) ?? price * (this.o.rate(quote, PAPER_CURRENCY) ?? 1);
  }
}
