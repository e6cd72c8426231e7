import type { WireOrder } from './trade-wire.js';

/**
 * cTrader has no magic number: the terminal writes the MT5 magic into the order's `label`
 * ("User-specified label. MaxLength = 100", ProtoOANewOrderReq) as `fxdesk:<magic>`, and its
 * comment into `comment` (MaxLength 512) and `clientOrderId` (MaxLength 50). Positions and their
 * closing orders carry the label and comment of the order that opened them.
 */
const PREFIX = 'fxdesk:';

export function labelFor(magic: number): string {
  return `${PREFIX}${magic}`;
}

/** The magic of a label this terminal wrote, 0 for any other (an order placed elsewhere). */
export function magicOf(label: string | undefined): number {
  if (!label?.startsWith(PREFIX)) return 0;
  const magic = Number(label.slice(PREFIX.length));
  return Number.isSafeInteger(magic) ? magic : 0;
}

/** An order's MT5 comment: its `comment`, else its `clientOrderId`. */
export function commentOf(order: WireOrder): string {
  return order.tradeData.comment ?? order.clientOrderId ?? '';
}
