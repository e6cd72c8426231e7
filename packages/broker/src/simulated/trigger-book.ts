import type { OrderType } from '../terminal.js';
import { IndexedHeap, type HeapEntry } from './indexed-heap.js';

type PendingType = Exclude<OrderType, 'buy' | 'sell'>;
export type StopKind = 'sl' | 'tp';

/** Which price a level watches, and from which side a tick reaches it. */
interface Trigger {
  reference: 'bid' | 'ask';
  /** Fires when the reference price is at or above the level (else at or below it). */
  atOrAbove: boolean;
}

/** MT5: limits at or better than their price, stops at or beyond it; buys watch the ask, sells the bid. */
const ORDER_TRIGGERS: Record<PendingType, Trigger> = {
  buy_limit: { reference: 'ask', atOrAbove: false },
  sell_limit: { reference: 'bid', atOrAbove: true },
  buy_stop: { reference: 'ask', atOrAbove: true },
  sell_stop: { reference: 'bid', atOrAbove: false },
};

/** A buy closes at the bid (SL at or below, TP at or above), a sell at the ask (the other way round). */
const STOP_TRIGGERS: Record<'buy' | 'sell', Record<StopKind, Trigger>> = {
  buy: { sl: { reference: 'bid', atOrAbove: false }, tp: { reference: 'bid', atOrAbove: true } },
  sell: { sl: { reference: 'ask', atOrAbove: true }, tp: { reference: 'ask', atOrAbove: false } },
};

/** The levels of one trigger kind, nearest to firing on top. */
class LevelHeap<T> {
  private readonly heap = new IndexedHeap<T>();

  constructor(private readonly trigger: Trigger) {}

  get size(): number {
    return this.heap.size;
  }

  add(value: T, level: number, seq: number): HeapEntry<T> {
    return this.heap.push(value, this.trigger.atOrAbove ? level : -level, seq);
  }

  remove(entry: HeapEntry<T>): void {
    this.heap.remove(entry);
  }

  /** Moves every level the tick reaches into `into`. */
  takeReached(bid: number, ask: number, into: HeapEntry<T>[]): void {
    const price = this.trigger.reference === 'bid' ? bid : ask;
    const bound = this.trigger.atOrAbove ? price : -price;
    for (let top = this.heap.peek(); top && top.key <= bound; top = this.heap.peek()) into.push(this.heap.pop()!);
  }
}

/** Where an entry of the book sits, to take it out again. */
export interface BookEntry<T> {
  heap: LevelHeap<T>;
  entry: HeapEntry<T>;
}

/**
 * One symbol's resting orders and stop levels, each kind in a heap ordered by how close it is
 * to firing, so a tick touches only the levels it reaches: O(log n) per level fired, O(1) when
 * none is. What a tick fires comes back in sequence order (the order the terminal placed the
 * orders or opened the positions), so the outcome does not depend on the heaps' layout.
 */
export class TriggerBook<O, P> {
  private readonly orders = new Map<PendingType, LevelHeap<O>>();
  private readonly stops = new Map<string, { kind: StopKind; heap: LevelHeap<P> }>();

  constructor() {
    for (const [type, trigger] of Object.entries(ORDER_TRIGGERS)) this.orders.set(type as PendingType, new LevelHeap(trigger));
    for (const [side, kinds] of Object.entries(STOP_TRIGGERS)) {
      for (const [kind, trigger] of Object.entries(kinds)) this.stops.set(`${side} ${kind}`, { kind: kind as StopKind, heap: new LevelHeap(trigger) });
    }
  }

  /** Levels held, orders and stops together. */
  get size(): number {
    let size = 0;
    for (const heap of this.orders.values()) size += heap.size;
    for (const { heap } of this.stops.values()) size += heap.size;
    return size;
  }

  addOrder(order: O, type: PendingType, pricePoints: number, seq: number): BookEntry<O> {
    const heap = this.orders.get(type)!;
    return { heap, entry: heap.add(order, pricePoints, seq) };
  }

  addStop(position: P, side: 'buy' | 'sell', kind: StopKind, levelPoints: number, seq: number): BookEntry<P> {
    const { heap } = this.stops.get(`${side} ${kind}`)!;
    return { heap, entry: heap.add(position, levelPoints, seq) };
  }

  remove<T extends O | P>(held: BookEntry<T>): void {
    held.heap.remove(held.entry);
  }

  /** Takes out the orders a tick at (bid, ask) triggers, in sequence order. */
  takeTriggeredOrders(bid: number, ask: number): O[] {
    const reached: HeapEntry<O>[] = [];
    for (const heap of this.orders.values()) heap.takeReached(bid, ask, reached);
    if (reached.length > 1) reached.sort((a, b) => a.seq - b.seq);
    return reached.map((e) => e.value);
  }

  /** Takes out the stop levels a tick at (bid, ask) reaches, in sequence order, with which stop it was. */
  takeReachedStops(bid: number, ask: number): { position: P; kind: StopKind }[] {
    const reached: { entry: HeapEntry<P>; kind: StopKind }[] = [];
    const entries: HeapEntry<P>[] = [];
    for (const { kind, heap } of this.stops.values()) {
      const before = entries.length;
      heap.takeReached(bid, ask, entries);
      for (let i = before; i < entries.length; i++) reached.push({ entry: entries[i]!, kind });
    }
    if (reached.length > 1) reached.sort((a, b) => a.entry.seq - b.entry.seq);
    return reached.map(({ entry, kind }) => ({ position: entry.value, kind }));
  }
}
