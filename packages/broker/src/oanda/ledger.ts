import type { DealReason, OrderType, TerminalDeal, TerminalRecord } from '../terminal.js';
import { lotsOfUnits, symbolOfInstrument, type LotSize } from './lots.js';
import { isoTime } from './normalize.js';
import type { ClientExtensions, Transaction } from './trading-wire.js';

/**
 * The account's transaction history read as MT5 history: orders and their outcome, and the deals
 * of every ORDER_FILL (an entry deal for its `tradeOpened`, an exit deal for each of its
 * `tradesClosed` and its `tradeReduced`).
 *
 * Who placed what travels in ClientExtensions: the terminal writes `{ id: comment, tag:
 * "fxdesk/<magic>", comment }` on every order and the trade it opens, and before closing a trade
 * it writes the close's comment and magic on the trade (TRADE_CLIENT_EXTENSIONS_MODIFY): a
 * PUT /trades/{specifier}/close carries only `units`. So the trade-close fill that follows such a
 * modification of its trade is that close's deal.
 */

/** The ClientExtensions tag the terminal writes: `fxdesk/<magic>`. */
export function tagOfMagic(magic: number): string {
  return `fxdesk/${magic}`;
}

/** The magic of a tag the terminal wrote, or null for an order or trade placed some other way. */
export function magicOfTag(tag: string | undefined): number | null {
  const match = /^fxdesk\/(\d+)$/.exec(tag ?? '');
  return match ? Number(match[1]) : null;
}

/** The id an order's ClientExtensions gives it: the comment, which OANDA takes as the client ID. */
export function extensionsOf(comment: string, magic: number): ClientExtensions {
  return { id: comment, tag: tagOfMagic(magic), comment };
}

/** Entry order transactions, which are also the OrderFillReason of their fills. */
const ENTRY_ORDER_TYPES: Record<string, 'market' | 'limit' | 'stop'> = { MARKET_ORDER: 'market', LIMIT_ORDER: 'limit', STOP_ORDER: 'stop' };

/** OrderFillReason → MT5 DEAL_REASON. */
const FILL_REASONS: Record<string, DealReason> = {
  STOP_LOSS_ORDER: 'sl',
  GUARANTEED_STOP_LOSS_ORDER: 'sl',
  TRAILING_STOP_LOSS_ORDER: 'sl',
  TAKE_PROFIT_ORDER: 'tp',
  MARKET_ORDER_MARGIN_CLOSEOUT: 'so',
};

interface LedgerOrder {
  create: Transaction;
  fill?: Transaction;
  cancel?: Transaction;
}

/** Who a deal belongs to: the comment and magic the terminal wrote, or none. */
interface Owner {
  comment: string;
  magic: number | null;
}

export interface LedgerLookups {
  /** The size of a lot of an instrument. */
  lotOf(instrument: string): LotSize;
  /** ClientExtensions of an order created before the transactions read (GET /orders/{id}). */
  orderExtensions?: ReadonlyMap<string, ClientExtensions | undefined>;
  /** ClientExtensions of a trade opened before the transactions read (GET /trades/{id}). */
  tradeExtensions?: ReadonlyMap<string, ClientExtensions | undefined>;
}

/** What a list of transactions (oldest first) tells: the orders, and the deals with their owners. */
export class Ledger {
  private readonly orders = new Map<string, LedgerOrder>();
  private readonly deals: { deal: TerminalDeal; order: LedgerOrder | undefined }[] = [];
  private readonly tradeOwners = new Map<string, Owner>();
  /** Fills whose order or trade was made before the transactions read. */
  readonly missingOrders = new Set<string>();
  readonly missingTrades = new Set<string>();

  constructor(
    transactions: readonly Transaction[],
    private readonly lookups: LedgerLookups,
  ) {
    /** The close a terminal announced on a trade, waiting for its fill. */
    const closeNotes = new Map<string, Owner>();
    for (const tx of transactions) {
      if (ENTRY_ORDER_TYPES[tx.type]) this.orders.set(tx.id, { create: tx });
      else if (tx.type === 'ORDER_CANCEL' && tx.orderID) this.orderOf(tx.orderID, (o) => (o.cancel = tx));
      else if (tx.type === 'TRADE_CLIENT_EXTENSIONS_MODIFY' && tx.tradeID && tx.tradeClientExtensionsModify) {
        closeNotes.set(tx.tradeID, ownerOf(tx.tradeClientExtensionsModify));
      } else if (tx.type === 'ORDER_FILL') this.addFill(tx, closeNotes);
    }
  }

  /** The deals, with their owners (`lookups` may now name missing orders and trades). */
  allDeals(): TerminalDeal[] {
    return this.deals.map(({ deal }) => deal);
  }

  /** Orders and deals whose comment starts with `prefix` and whose magic is `magic`, newest first. */
  records(prefix: string, magic: number): TerminalRecord[] {
    const mine = (owner: Owner) => owner.magic === magic && owner.comment.startsWith(prefix);
    const records: TerminalRecord[] = [];
    for (const order of this.orders.values()) {
      const owner = ownerOf(order.create.clientExtensions);
      const type = orderTypeOf(order.create);
      if (!mine(owner) || !type || !order.create.instrument) continue;
      const fillPrice = order.fill?.price;
      records.push({
        kind: 'order',
        ticket: order.create.id,
        symbol: symbolOfInstrument(order.create.instrument),
        type,
        volume: lotsOfUnits(order.create.units ?? '0', this.lookups.lotOf(order.create.instrument)),
        price: order.create.price ?? fillPrice ?? '0',
        magic,
        comment: owner.comment,
        time: Date.parse(isoTime(order.create.time)),
        position: order.fill?.tradeOpened?.tradeID ?? null,
        state: stateOf(order),
      });
    }
    for (const { deal, order } of this.deals) {
      if (deal.magic !== magic || !deal.comment.startsWith(prefix)) continue;
      records.push({
        kind: 'deal',
        ticket: deal.ticket,
        symbol: deal.symbol,
        type: deal.side,
        volume: deal.volume,
        price: deal.price,
        magic,
        comment: deal.comment,
        time: deal.time,
        position: deal.position,
        state: order && stateOf(order) === 'partially_filled' ? 'partially_filled' : 'filled',
      });
    }
    return records.sort((a, b) => b.time - a.time || (a.ticket < b.ticket ? 1 : -1));
  }

  private orderOf(id: string, apply: (order: LedgerOrder) => void): void {
    const order = this.orders.get(id);
    if (order) apply(order);
  }

  private addFill(fill: Transaction, closeNotes: Map<string, Owner>): void {
    const instrument = fill.instrument ?? '';
    const order = fill.orderID ? this.orders.get(fill.orderID) : undefined;
    if (order) order.fill = fill;
    else if (fill.orderID && ENTRY_ORDER_TYPES[fill.reason ?? '']) this.missingOrders.add(fill.orderID);
    const orderOwner = (): Owner => ownerOf(order ? order.create.clientExtensions : this.lookups.orderExtensions?.get(fill.orderID ?? ''));
    const lot = this.lookups.lotOf(instrument);
    const base = {
      ticket: fill.id,
      order: fill.orderID ?? null,
      symbol: symbolOfInstrument(instrument),
      time: Date.parse(isoTime(fill.time)),
      commission: 0,
      swap: 0,
    };
    const exits = [...(fill.tradesClosed ?? []), ...(fill.tradeReduced ? [fill.tradeReduced] : [])];
    for (const [i, effect] of exits.entries()) {
      const note = fill.reason === 'MARKET_ORDER_TRADE_CLOSE' ? closeNotes.get(effect.tradeID) : undefined;
      if (note) closeNotes.delete(effect.tradeID);
      const owner = note ?? (fill.reason && FILL_REASONS[fill.reason] ? this.tradeOwner(effect.tradeID) : orderOwner());
      this.deals.push({
        order,
        deal: {
          ...base,
          position: effect.tradeID,
          side: effect.units.startsWith('-') ? 'sell' : 'buy',
          entry: 'out',
          volume: lotsOfUnits(effect.units, lot),
          price: effect.price ?? fill.price ?? '0',
          profit: Number(effect.realizedPL ?? 0),
          swap: Number(effect.financing ?? 0),
          commission: i === 0 ? Number(fill.commission ?? 0) : 0,
          comment: owner.comment,
          magic: owner.magic ?? 0,
          reason: reasonOf(fill.reason, owner),
        },
      });
    }
    const opened = fill.tradeOpened;
    if (opened) {
      const owner = opened.clientExtensions ? ownerOf(opened.clientExtensions) : orderOwner();
      this.tradeOwners.set(opened.tradeID, owner);
      this.deals.push({
        order,
        deal: {
          ...base,
          position: opened.tradeID,
          side: opened.units.startsWith('-') ? 'sell' : 'buy',
          entry: 'in',
          volume: lotsOfUnits(opened.units, lot),
          price: opened.price ?? fill.price ?? '0',
          profit: 0,
          commission: exits.length === 0 ? Number(fill.commission ?? 0) : 0,
          comment: owner.comment,
          magic: owner.magic ?? 0,
          reason: reasonOf(fill.reason, owner),
        },
      });
    }
  }

  private tradeOwner(tradeId: string): Owner {
    const known = this.tradeOwners.get(tradeId);
    if (known) return known;
    if (!this.lookups.tradeExtensions?.has(tradeId)) this.missingTrades.add(tradeId);
    const extensions = this.lookups.tradeExtensions?.get(tradeId);
    // The trade's id is the entry's comment; its comment may be a later close's.
    return ownerOf(extensions ? { ...extensions, comment: extensions.id ?? extensions.comment } : undefined);
  }
}

function ownerOf(extensions: ClientExtensions | undefined): Owner {
  return { comment: extensions?.comment ?? extensions?.id ?? '', magic: magicOfTag(extensions?.tag) };
}

/** The fill's reason as MT5's: a stop, a target, a stop out, or an order placed through the terminal (`expert`) or otherwise (`client`). */
function reasonOf(fillReason: string | undefined, owner: Owner): DealReason {
  const venue = fillReason ? FILL_REASONS[fillReason] : undefined;
  if (venue) return venue;
  return owner.magic === null ? 'client' : 'expert';
}

function orderTypeOf(create: Transaction): OrderType | null {
  const kind = ENTRY_ORDER_TYPES[create.type];
  if (!kind) return null;
  const side = (create.units ?? '').startsWith('-') ? 'sell' : 'buy';
  return kind === 'market' ? side : `${side}_${kind}`;
}

function stateOf(order: LedgerOrder): TerminalRecord['state'] {
  if (order.fill) {
    const filled = order.fill.units?.replace('-', '') ?? '0';
    const asked = order.create.units?.replace('-', '') ?? '0';
    return Number(filled) < Number(asked) ? 'partially_filled' : 'filled';
  }
  if (order.cancel) return order.cancel.reason === 'TIME_IN_FORCE_EXPIRED' ? 'expired' : 'cancelled';
  return 'placed';
}
