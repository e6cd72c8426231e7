import { RETCODE } from '../mt5-retcodes.js';

/**
 * OANDA's reasons for refusing or cancelling an order (TransactionRejectReason of an
 * `orderRejectTransaction`, OrderCancelReason of an `orderCancelTransaction`, the `errorCode` of
 * a 4xx) as the MT5 return code a trade server would have answered. Every reason is a definite
 * refusal: nothing traded.
 */
const EXACT: Record<string, number> = {
  INSUFFICIENT_MARGIN: RETCODE.NO_MONEY,
  MARKET_HALTED: RETCODE.MARKET_CLOSED,
  INSTRUMENT_NOT_TRADEABLE: RETCODE.TRADE_DISABLED,
  INSUFFICIENT_LIQUIDITY: RETCODE.REJECT,
  BOUNDS_VIOLATION: RETCODE.REQUOTE,
  POSITION_SIZE_EXCEEDED: RETCODE.INVALID_VOLUME,
  CLOSE_TRADE_UNITS_EXCEED_TRADE_SIZE: RETCODE.INVALID_CLOSE_VOLUME,
  CLOSE_TRADE_UNITS_INVALID: RETCODE.INVALID_VOLUME,
  TIME_IN_FORCE_GTD_TIMESTAMP_IN_PAST: RETCODE.INVALID_EXPIRATION,
  TIME_IN_FORCE_GTD_TIMESTAMP_MISSING: RETCODE.INVALID_EXPIRATION,
  TIME_IN_FORCE_INVALID: RETCODE.INVALID_FILL,
  TRADE_DOESNT_EXIST: RETCODE.POSITION_CLOSED,
  NO_SUCH_TRADE: RETCODE.POSITION_CLOSED,
  ORDER_DOESNT_EXIST: RETCODE.INVALID,
  NO_SUCH_ORDER: RETCODE.INVALID,
};

/** Families of reasons, by prefix: the units, the stops and targets, the price, the account. */
const PREFIXES: [RegExp, number][] = [
  [/^UNITS_/, RETCODE.INVALID_VOLUME],
  [/^(STOP_LOSS|TAKE_PROFIT|TRAILING_STOP_LOSS|GUARANTEED_STOP_LOSS)|^LOSING_TAKE_PROFIT$/, RETCODE.INVALID_STOPS],
  [/^PRICE_/, RETCODE.INVALID_PRICE],
  [/^ACCOUNT_/, RETCODE.TRADE_DISABLED],
];

export function retcodeOfReason(reason: string | undefined): number {
  if (reason === undefined) return RETCODE.REJECT;
  const exact = EXACT[reason];
  if (exact !== undefined) return exact;
  return PREFIXES.find(([pattern]) => pattern.test(reason))?.[1] ?? RETCODE.REJECT;
}
