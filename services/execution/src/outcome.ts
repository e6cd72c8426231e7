import { outcomeOfRetcode, retcodeName, type TradeCheckResult, type TradeRequest, type TradeResult } from '@fxdesk/broker';
import type { BrokerTickets, SignalResult, SuccessState, TradeOutcome } from '@fxdesk/schemas';

/** The tickets of a signal that reached no order. */
export const NO_TICKETS: BrokerTickets = { order: null, deal: null, position: null };

/** The normalized result of an order_send answer. */
export function normalizeSendResult(request: TradeRequest, result: TradeResult, state: SuccessState | 'rejected' | 'unknown'): TradeOutcome {
  return {
    retcode: result.retcode,
    retcode_name: retcodeName(result.retcode),
    requested_volume: request.volume,
    filled_volume: state === 'filled' || state === 'partially_filled' ? result.volume : '0',
    price: result.price,
    broker_comment: result.comment,
  };
}

/** The normalized result of an order_check answer (nothing was executed). */
export function normalizeCheckResult(request: TradeRequest, check: TradeCheckResult): TradeOutcome {
  return {
    retcode: check.retcode,
    retcode_name: retcodeName(check.retcode),
    requested_volume: request.volume,
    filled_volume: '0',
    price: null,
    broker_comment: check.comment,
  };
}

export function ticketsOf(result: TradeResult): BrokerTickets {
  return { order: result.order, deal: result.deal, position: result.position };
}

export type SendVerdict =
  | { succeeded: true; state: SuccessState; body: SignalResult }
  | { succeeded: false; state: 'rejected' | 'unknown'; tickets: BrokerTickets; result: TradeOutcome };

/**
 * What an order_send answer means (DESIGN.md §4): DONE → filled, DONE_PARTIAL →
 * partially_filled, PLACED → placed; the documented rejection codes → rejected; ERROR, TIMEOUT,
 * CONNECTION and any code MT5 does not document → unknown.
 */
export function judgeSendResult(signalId: string, request: TradeRequest, result: TradeResult): SendVerdict {
  const state = outcomeOfRetcode(result.retcode);
  const outcome = normalizeSendResult(request, result, state);
  if (state === 'rejected' || state === 'unknown') return { succeeded: false, state, tickets: ticketsOf(result), result: outcome };
  return { succeeded: true, state, body: { signal_id: signalId, state, tickets: ticketsOf(result), result: outcome } };
}
