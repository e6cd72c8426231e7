import { RETCODE } from '../mt5-retcodes.js';

/**
 * The MT5 retcode of a cTrader refusal: the `errorCode` of a ProtoOAOrderErrorEvent, of an
 * ORDER_REJECTED execution event or of a ProtoOAErrorRes answering a trading request.
 * ProtoOAErrorCode (OpenApiModelMessages.proto) and ProtoErrorCode (OpenApiCommonModelMessages.proto)
 * names; any other code is REJECT (10006), a definite refusal.
 */
const RETCODE_BY_ERROR: Record<string, number> = {
  TRADING_BAD_VOLUME: RETCODE.INVALID_VOLUME, // "Invalid volume."
  TRADING_BAD_STAKE: RETCODE.INVALID_VOLUME,
  TRADING_BAD_STOPS: RETCODE.INVALID_STOPS, // "Invalid stop price."
  PROTECTION_IS_TOO_CLOSE_TO_MARKET: RETCODE.INVALID_STOPS, // "Invalid protection prices."
  WORSE_GSL_NOT_ALLOWED: RETCODE.INVALID_STOPS,
  TRADING_BAD_PRICES: RETCODE.INVALID_PRICE, // "Invalid price (e.g. negative)."
  TRADING_BAD_EXPIRATION_DATE: RETCODE.INVALID_EXPIRATION, // "Invalid expiration."
  NOT_ENOUGH_MONEY: RETCODE.NO_MONEY, // "Not enough funds to allocate margin."
  MARKET_CLOSED: RETCODE.MARKET_CLOSED, // ProtoErrorCode: "Market is closed."
  SYMBOL_HAS_HOLIDAY: RETCODE.MARKET_CLOSED, // "Trading disabled because symbol has holiday."
  TRADING_DISABLED: RETCODE.TRADE_DISABLED, // "Trading is blocked for the symbol."
  TRADING_NOT_ALLOWED: RETCODE.TRADE_DISABLED, // "Trading account is in read only mode."
  NO_QUOTES: RETCODE.PRICE_OFF, // "Trading cannot be done as not quotes are available."
  POSITION_NOT_FOUND: RETCODE.POSITION_CLOSED,
  POSITION_NOT_OPEN: RETCODE.POSITION_CLOSED, // "When trying to close a position that it is not open."
  ORDER_NOT_FOUND: RETCODE.INVALID, // the order no longer rests
  UNABLE_TO_CANCEL_ORDER: RETCODE.INVALID,
  SHORT_SELLING_NOT_ALLOWED: RETCODE.LONG_ONLY,
  TOO_MANY_POSITIONS: 10040, // LIMIT_POSITIONS
  MAX_EXPOSURE_REACHED: 10034, // LIMIT_VOLUME
  POSITION_LOCKED: 10028, // LOCKED: "Position in the state that does not allow to perform an operation."
  PENDING_EXECUTION: 10028,
  CONCURRENT_MODIFICATION: 10028,
  REQUEST_FREQUENCY_EXCEEDED: 10024, // TOO_MANY_REQUESTS
  // "Deal execution is reached timeout and rejected": said to be rejected, yet a deal under way;
  // TIMEOUT keeps the outcome unknown, so that the caller reconciles instead of sending again.
  TIMEOUT_ERROR: RETCODE.TIMEOUT,
};

export function retcodeOfError(errorCode: string | undefined): number {
  return (errorCode === undefined ? undefined : RETCODE_BY_ERROR[errorCode]) ?? RETCODE.REJECT;
}
