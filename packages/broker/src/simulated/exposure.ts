/**
 * Running totals of one symbol's open positions: volume (in hundredths of a lot, the volume
 * step, so whole numbers) and volume × open price (in points) per side. Floating P/L and margin
 * of any number of positions then cost O(1): Σ (bid − open) × volume = bid × Σ volume −
 * Σ open × volume. Integers throughout, so opening and closing positions never lets the totals drift.
 */
export class Exposure {
  private buyHundredths = 0;
  private buyValue = 0;
  private sellHundredths = 0;
  private sellValue = 0;

  /** Open volume of both sides, in hundredths of a lot (margin is per lot, hedged or not). */
  get hundredths(): number {
    return this.buyHundredths + this.sellHundredths;
  }

  add(side: 'buy' | 'sell', hundredths: number, openPoints: number): void {
    this.change(side, hundredths, openPoints);
  }

  remove(side: 'buy' | 'sell', hundredths: number, openPoints: number): void {
    this.change(side, -hundredths, openPoints);
  }

  /**
   * Σ over the positions of the price move in their favour × volume, in points × hundredths of a
   * lot: buys close at the bid, sells at the ask.
   */
  floatingPoints(bidPoints: number, askPoints: number): number {
    return bidPoints * this.buyHundredths - this.buyValue + (this.sellValue - askPoints * this.sellHundredths);
  }

  private change(side: 'buy' | 'sell', hundredths: number, openPoints: number): void {
    if (side === 'buy') {
      this.buyHundredths += hundredths;
      this.buyValue += hundredths * openPoints;
    } else {
      this.sellHundredths += hundredths;
      this.sellValue += hundredths * openPoints;
    }
  }
}
