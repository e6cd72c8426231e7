/**
 * Margin (issue 26), pure: what an open position holds of the account at its leverage, as an MT5
 * or cTrader account on the "retail forex" calculation holds it, and whether a new entry fits the
 * free margin. The lab and the paper account ask the same question before every entry; live, the
 * venue answers it itself (MT5's TRADE_RETCODE_NO_MONEY).
 */

/**
 * The margin of `lots` at `leverage`, in the account currency: lots × contract size × the value of
 * one unit of the base currency in the account currency (`baseToAccount`: 1 when the base is the
 * account's currency, the price when the quote is, the price × the quote's rate for a cross),
 * divided by the leverage.
 */
export function marginOf(lots: number, contractSize: number, baseToAccount: number, leverage: number): number {
  return (lots * contractSize * baseToAccount) / leverage;
}

/** One unit of `instrument`'s base currency in `account` currency, the pair at `price` and its quote worth `quoteToAccount`. */
export function baseToAccountOf(instrument: string, account: string, price: number, quoteToAccount: number): number {
  return instrument.startsWith(`${account}_`) ? 1 : price * quoteToAccount;
}

/**
 * Whether an entry needing `required` fits what the account has free: its equity less the margin
 * its open positions hold. The comparison is in whole cents, as money is (a store's sums and a
 * running balance differ in their last bits).
 */
export function fitsMargin(required: number, equity: number, usedMargin: number): boolean {
  return Math.round(required * 100) <= Math.round((equity - usedMargin) * 100);
}
