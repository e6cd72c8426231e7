import type { Quote, SimulatedMarket } from '@fxdesk/broker';

/**
 * Quotes at exactly `ratePerSecond`, round-robin over `symbols`, priced by the simulated market.
 * Each quote is stamped with the instant it was due, and a late timer emits every quote it
 * missed, so a busy server shows up as latency instead of silently lowering the rate.
 */
export class PacedTicks {
  private timer: NodeJS.Timeout | undefined;
  private startedAt = 0;
  private emitted = 0;

  constructor(
    private readonly market: SimulatedMarket,
    private readonly symbols: readonly string[],
    private readonly ratePerSecond: number,
    private readonly onQuote: (quote: Quote) => void,
  ) {}

  start(): void {
    this.startedAt = Date.now();
    this.emitted = 0;
    this.schedule();
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(): void {
    const nextDue = this.startedAt + ((this.emitted + 1) * 1000) / this.ratePerSecond;
    this.timer = setTimeout(() => this.emitDue(), Math.max(0, nextDue - Date.now()));
  }

  private emitDue(): void {
    const due = Math.floor(((Date.now() - this.startedAt) * this.ratePerSecond) / 1000);
    while (this.emitted < due) {
      this.emitted++;
      const time = Math.round(this.startedAt + (this.emitted * 1000) / this.ratePerSecond);
      const symbol = this.symbols[this.emitted % this.symbols.length] as string;
      const spec = this.market.spec(symbol);
      if (!spec) continue;
      const scale = 10 ** spec.digits;
      const bid = Math.round(this.market.midAt(symbol, time) * scale - spec.typicalSpreadPoints / 2);
      this.onQuote({ symbol, bid: bid / scale, ask: (bid + spec.typicalSpreadPoints) / scale, time });
    }
    this.schedule();
  }
}
