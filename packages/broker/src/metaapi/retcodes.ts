import { MT5_RETCODES, RETCODE, retcodeName } from '../mt5-retcodes.js';
import type { TradeRequest } from '../terminal.js';
import type { WireTradeResponse } from './wire.js';

/**
 * MetaApi's own trade codes (MetatraderTradeResponse, "MT5 Error codes description"):
 * -11 TRADE_RETCODE_DISCONNECTED_DURING_TRADE "The trade request was delivered to the trading
 * server, however the server has terminated connection afterwards. This means that the result of
 * the trade is not known"; -10 TRADE_RETCODE_DISCONNECTED_BEFORE_TRADE "Could not submit the
 * trade request to the broker because terminal has been disconnected from the trading server.
 * This means that the trade was never delivered to the trading server".
 */
export const METAAPI_DISCONNECTED_DURING_TRADE = -11;
export const METAAPI_DISCONNECTED_BEFORE_TRADE = -10;
/**
 * The same table's "not found" codes, MQL5 runtime errors rather than trade server codes: 4753
 * ERR_TRADE_POSITION_NOT_FOUND "Position not found", 4754 ERR_TRADE_ORDER_NOT_FOUND "Order not found".
 */
export const METAAPI_POSITION_NOT_FOUND = 4753;
export const METAAPI_ORDER_NOT_FOUND = 4754;

/** What a trade response says, in MT5 vocabulary. */
export type TradeVerdict =
  /** An MT5 retcode; `terminalDisconnected` when MetaApi said its terminal lost the trade server. */
  | { lost: false; retcode: number; terminalDisconnected: boolean; note?: string }
  /** The outcome is unknown (-11): the caller throws an ambiguous `disconnected`. */
  | { lost: true };

const CODE_BY_NAME = new Map(Object.keys(MT5_RETCODES).map((code) => [retcodeName(Number(code)), Number(code)]));

/**
 * Maps `numericCode`/`stringCode` to our retcodes. MetaApi passes MT5's trade server return codes
 * through ("see MT5 Trade return codes"), so a documented MT5 code is kept as is. Success "0 /
 * ERR_NO_ERROR" (an MT4 spelling) is read as DONE for a deal and PLACED for a pending order.
 * A numeric code contradicting its string code is read as 10011 ERROR (outcome unknown); -10
 * becomes 10031 CONNECTION (MT5's "No connection with the trade server"); 4753 (position not
 * found) becomes 10036 POSITION_CLOSED and 4754 (order not found) 10013 INVALID, the codes an MT5
 * server answers for a position or order that is gone; any other code is kept, so an
 * undocumented one stays unknown to `outcomeOfRetcode`.
 */
export function verdictOf(response: WireTradeResponse, action: TradeRequest['action']): TradeVerdict {
  const { numericCode, stringCode } = response;
  if (numericCode === METAAPI_DISCONNECTED_DURING_TRADE || stringCode === 'TRADE_RETCODE_DISCONNECTED_DURING_TRADE') return { lost: true };
  if (numericCode === METAAPI_DISCONNECTED_BEFORE_TRADE || stringCode === 'TRADE_RETCODE_DISCONNECTED_BEFORE_TRADE') {
    return {
      lost: false,
      retcode: RETCODE.CONNECTION,
      terminalDisconnected: true,
      note: 'the MetaApi terminal was disconnected from the trade server; the request was not delivered',
    };
  }
  if (numericCode === METAAPI_POSITION_NOT_FOUND || stringCode === 'ERR_TRADE_POSITION_NOT_FOUND') {
    return { lost: false, retcode: RETCODE.POSITION_CLOSED, terminalDisconnected: false, note: 'MetaApi: position not found' };
  }
  if (numericCode === METAAPI_ORDER_NOT_FOUND || stringCode === 'ERR_TRADE_ORDER_NOT_FOUND') {
    return { lost: false, retcode: RETCODE.INVALID, terminalDisconnected: false, note: 'MetaApi: order not found' };
  }
  if (numericCode === 0 || stringCode === 'ERR_NO_ERROR') {
    return { lost: false, retcode: action === 'deal' ? RETCODE.DONE : RETCODE.PLACED, terminalDisconnected: false };
  }
  const named = CODE_BY_NAME.get(stringCode);
  const isKnown = numericCode in MT5_RETCODES;
  if (isKnown && named !== undefined && named !== numericCode) {
    return { lost: false, retcode: RETCODE.ERROR, terminalDisconnected: false, note: `contradictory codes ${numericCode} / ${stringCode}` };
  }
  return { lost: false, retcode: isKnown ? numericCode : (named ?? numericCode), terminalDisconnected: false };
}
