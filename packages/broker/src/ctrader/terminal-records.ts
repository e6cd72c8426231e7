import type { DealReason, OrderType, TerminalDeal, TerminalRecord } from '../terminal.js';
import type { SymbolTerms } from './account-data.js';
import { priceText } from './order-rules.js';
import type { WireDeal, WireOrder } from './trade-wire.js';
import { moneyValue, volumeToLots } from './volumes.js';

/** cTrader orders and deals in the terminal's MT5 records. */

export function orderTypeOf(order: WireOrder): OrderType {
  const side = order.tradeData.tradeSide === 'BUY' ? 'buy' : 'sell';
  if (order.orderType === 'LIMIT') return `${side}_limit`;
  if (order.orderType === 'STOP' || order.orderType === 'STOP_LIMIT') return `${side}_stop`;
  return side;
}

export function stateOf(order: WireOrder): TerminalRecord['state'] | undefined {
  const isPart = (order.executedVolume ?? 0) > 0 && (order.executedVolume ?? 0) < order.tradeData.volume;
  switch (order.orderStatus) {
    case 'ORDER_STATUS_ACCEPTED':
      return isPart ? 'partially_filled' : 'placed';
    case 'ORDER_STATUS_FILLED':
      return isPart ? 'partially_filled' : 'filled';
    case 'ORDER_STATUS_CANCELLED':
      return (order.executedVolume ?? 0) > 0 ? 'partially_filled' : 'cancelled';
    case 'ORDER_STATUS_EXPIRED':
      return 'expired';
    default:
      // A rejected order never traded: nothing to reconcile.
      return undefined;
  }
}

/** MT5 DEAL_REASON of a deal by its order: the venue's stop-loss / take-profit order, a stop out, or this API (expert). */
export function reasonOf(order: WireOrder | undefined): DealReason {
  if (!order) return 'unknown';
  if (order.isStopOut === true) return 'so';
  if (order.orderType === 'STOP_LOSS_TAKE_PROFIT') return order.stopPrice !== undefined ? 'sl' : 'tp';
  return 'expert';
}

export function dealOf(deal: WireDeal, terms: SymbolTerms, mark: { comment: string; magic: number }, order: WireOrder | undefined): TerminalDeal {
  const close = deal.closePositionDetail;
  const moneyDigits = close?.moneyDigits ?? deal.moneyDigits ?? 2;
  return {
    ticket: String(deal.dealId),
    order: String(deal.orderId),
    position: String(deal.positionId),
    symbol: terms.name,
    side: deal.tradeSide === 'BUY' ? 'buy' : 'sell',
    entry: close ? 'out' : 'in',
    volume: volumeToLots(deal.filledVolume, terms.lotSize),
    price: priceText(deal.executionPrice ?? 0, terms.digits),
    profit: close ? moneyValue(close.grossProfit, moneyDigits) : 0,
    commission: moneyValue(close?.commission ?? deal.commission ?? 0, moneyDigits),
    swap: close ? moneyValue(close.swap, moneyDigits) : 0,
    time: deal.executionTimestamp,
    comment: mark.comment,
    magic: mark.magic,
    reason: reasonOf(order),
  };
}
