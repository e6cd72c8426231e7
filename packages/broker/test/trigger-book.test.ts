import { describe, expect, it } from 'vitest';
import { TriggerBook } from '../src/simulated/trigger-book.js';

describe('TriggerBook', () => {
  it('triggers each pending type from its own side: limits at or better, stops at or beyond', () => {
    const book = new TriggerBook<string, string>();
    book.addOrder('buy limit 100', 'buy_limit', 100, 1);
    book.addOrder('sell limit 120', 'sell_limit', 120, 2);
    book.addOrder('buy stop 130', 'buy_stop', 130, 3);
    book.addOrder('sell stop 90', 'sell_stop', 90, 4);
    expect(book.takeTriggeredOrders(105, 108)).toEqual([]);
    expect(book.takeTriggeredOrders(97, 100)).toEqual(['buy limit 100']);
    expect(book.takeTriggeredOrders(120, 123)).toEqual(['sell limit 120']);
    expect(book.takeTriggeredOrders(127, 130)).toEqual(['buy stop 130']);
    expect(book.takeTriggeredOrders(90, 93)).toEqual(['sell stop 90']);
    expect(book.size).toBe(0);
  });

  it('closes buys at the bid and sells at the ask, on their stop loss or take profit', () => {
    const book = new TriggerBook<string, string>();
    book.addStop('buy', 'buy', 'sl', 95, 1);
    book.addStop('buy', 'buy', 'tp', 110, 1);
    book.addStop('sell', 'sell', 'sl', 112, 2);
    book.addStop('sell', 'sell', 'tp', 96, 2);
    expect(book.takeReachedStops(100, 103)).toEqual([]);
    expect(book.takeReachedStops(95, 97)).toEqual([{ position: 'buy', kind: 'sl' }]);
    expect(book.takeReachedStops(94, 96)).toEqual([{ position: 'sell', kind: 'tp' }]);
  });

  it('answers what one tick fires in sequence order, not in price order', () => {
    const book = new TriggerBook<string, string>();
    book.addOrder('first, lower', 'buy_limit', 100, 1);
    book.addOrder('second, higher', 'buy_limit', 104, 2);
    book.addStop('opened first', 'buy', 'sl', 96, 3);
    book.addStop('opened second', 'buy', 'sl', 99, 4);
    expect(book.takeTriggeredOrders(95, 98)).toEqual(['first, lower', 'second, higher']);
    expect(book.takeReachedStops(95, 98).map((s) => s.position)).toEqual(['opened first', 'opened second']);
  });

  it('forgets a level taken out, so it never fires', () => {
    const book = new TriggerBook<string, string>();
    const order = book.addOrder('cancelled', 'buy_limit', 100, 1);
    const tp = book.addStop('closed at its stop loss', 'buy', 'tp', 110, 2);
    book.remove(order);
    book.remove(tp);
    expect(book.takeTriggeredOrders(90, 92)).toEqual([]);
    expect(book.takeReachedStops(120, 122)).toEqual([]);
    expect(book.size).toBe(0);
  });
});
