/**
 * MetaTrader 5 trade server return codes (MQL5 reference, "Trade Server Return Codes").
 * `order_check` answers 0 when the request would pass; `order_send` answers one of these.
 */
export const MT5_RETCODES = {
  0: ['OK', 'Request passed the check'],
  10004: ['REQUOTE', 'Requote'],
  10006: ['REJECT', 'Request rejected'],
  10007: ['CANCEL', 'Request canceled by trader'],
  10008: ['PLACED', 'Order placed'],
  10009: ['DONE', 'Request completed'],
  10010: ['DONE_PARTIAL', 'Only part of the request was completed'],
  10011: ['ERROR', 'Request processing error'],
  10012: ['TIMEOUT', 'Request canceled by timeout'],
  10013: ['INVALID', 'Invalid request'],
  10014: ['INVALID_VOLUME', 'Invalid volume in the request'],
  10015: ['INVALID_PRICE', 'Invalid price in the request'],
  10016: ['INVALID_STOPS', 'Invalid stops in the request'],
  10017: ['TRADE_DISABLED', 'Trade is disabled'],
  10018: ['MARKET_CLOSED', 'Market is closed'],
  10019: ['NO_MONEY', 'There is not enough money to complete the request'],
  10020: ['PRICE_CHANGED', 'Prices changed'],
  10021: ['PRICE_OFF', 'There are no quotes to process the request'],
  10022: ['INVALID_EXPIRATION', 'Invalid order expiration date in the request'],
  10023: ['ORDER_CHANGED', 'Order state changed'],
  10024: ['TOO_MANY_REQUESTS', 'Too frequent requests'],
  10025: ['NO_CHANGES', 'No changes in request'],
  10026: ['SERVER_DISABLES_AT', 'Autotrading disabled by server'],
  10027: ['CLIENT_DISABLES_AT', 'Autotrading disabled by client terminal'],
  10028: ['LOCKED', 'Request locked for processing'],
  10029: ['FROZEN', 'Order or position frozen'],
  10030: ['INVALID_FILL', 'Invalid order filling type'],
  10031: ['CONNECTION', 'No connection with the trade server'],
  10032: ['ONLY_REAL', 'Operation is allowed only for live accounts'],
  10033: ['LIMIT_ORDERS', 'The number of pending orders has reached the limit'],
  10034: ['LIMIT_VOLUME', 'The volume of orders and positions for the symbol has reached the limit'],
  10035: ['INVALID_ORDER', 'Incorrect or prohibited order type'],
  10036: ['POSITION_CLOSED', 'Position with the specified identifier has already been closed'],
  10038: ['INVALID_CLOSE_VOLUME', 'A close volume exceeds the current position volume'],
  10039: ['CLOSE_ORDER_EXIST', 'A close order already exists for the position'],
  10040: ['LIMIT_POSITIONS', 'The number of open positions has reached the limit'],
  10041: ['REJECT_CANCEL', 'The pending order activation request is rejected, the order is canceled'],
  10042: ['LONG_ONLY', 'Only long positions are allowed for the symbol'],
  10043: ['SHORT_ONLY', 'Only short positions are allowed for the symbol'],
  10044: ['CLOSE_ONLY', 'Only position closing is allowed for the symbol'],
  10045: ['FIFO_CLOSE', 'Position closing is allowed only by FIFO rule'],
  10046: ['HEDGE_PROHIBITED', 'Opposite positions on a single symbol are disabled'],
} as const satisfies Record<number, readonly [string, string]>;

export type Mt5Retcode = keyof typeof MT5_RETCODES;

export const RETCODE = {
  OK: 0,
  REQUOTE: 10004,
  REJECT: 10006,
  PLACED: 10008,
  DONE: 10009,
  DONE_PARTIAL: 10010,
  ERROR: 10011,
  TIMEOUT: 10012,
  INVALID: 10013,
  INVALID_VOLUME: 10014,
  INVALID_PRICE: 10015,
  INVALID_STOPS: 10016,
  TRADE_DISABLED: 10017,
  MARKET_CLOSED: 10018,
  NO_MONEY: 10019,
  PRICE_OFF: 10021,
  INVALID_EXPIRATION: 10022,
  NO_CHANGES: 10025,
  FROZEN: 10029,
  INVALID_FILL: 10030,
  CONNECTION: 10031,
  POSITION_CLOSED: 10036,
  INVALID_CLOSE_VOLUME: 10038,
  LONG_ONLY: 10042,
  SHORT_ONLY: 10043,
  CLOSE_ONLY: 10044,
} as const;

/** `TRADE_RETCODE_DONE`-style name of a code, or `UNKNOWN_<code>`. */
export function retcodeName(code: number): string {
  const entry = (MT5_RETCODES as Record<number, readonly [string, string]>)[code];
  return entry ? `TRADE_RETCODE_${entry[0]}` : `UNKNOWN_${code}`;
}

export function retcodeDescription(code: number): string {
  return (MT5_RETCODES as Record<number, readonly [string, string]>)[code]?.[1] ?? 'Unknown return code';
}

export type SendOutcome = 'filled' | 'partially_filled' | 'placed' | 'rejected' | 'unknown';

/**
 * What an order_send return code means for the order: DONE, DONE_PARTIAL and PLACED are the
 * three successes; ERROR, TIMEOUT and CONNECTION leave the outcome ambiguous (the request may
 * have reached the server); every other code is a definite rejection.
 */
export function outcomeOfRetcode(code: number): SendOutcome {
  switch (code) {
    case RETCODE.DONE:
      return 'filled';
    case RETCODE.DONE_PARTIAL:
      return 'partially_filled';
    case RETCODE.PLACED:
      return 'placed';
    case RETCODE.ERROR:
    case RETCODE.TIMEOUT:
    case RETCODE.CONNECTION:
      return 'unknown';
    default:
      return code in MT5_RETCODES ? 'rejected' : 'unknown';
  }
}
