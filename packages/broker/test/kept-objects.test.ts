import { describe, expect, it } from 'vitest';
import { positionOf, recordOf, restingOrderOf, type HistoryRecord } from '../src/simulated/kept-objects.js';

import { hiddenClassCount } from './hidden-classes.js';

const T0 = Date.UTC(2026, 0, 7, 12, 0, 0);

/** What a terminal makes for 300 orders, with the values varying as they do in trading (stops or none, an expiry or none). */
function keptFor300Orders() {
  const records: HistoryRecord[] = [];
  const positions: object[] = [];
  const resting: object[] = [];
  for (let i = 0; i < 300; i++) {
    const isDeal = i % 2 === 1;
    const record = recordOf(String(T0 + i), {
      kind: isDeal ? 'deal' : 'order',
      symbol: i % 3 === 0 ? 'USDJPY' : 'EURUSD',
      type: isDeal ? 'sell' : 'buy_limit',
      volume: '0.01',
      price: '1.08650',
      magic: 7,
      comment: `manual:${i}`,
      time: T0 + i,
      position: isDeal ? String(T0 + i - 1) : null,
      state: isDeal ? 'filled' : 'placed',
      // A deal's facts (an order's are none).
      ...(isDeal ? { dealOrder: String(T0 + i - 1), entry: 'out' as const, reason: 'expert' as const, profit: i } : {}),
    });
    records.push(record);
    const stops = { slPoints: i % 3 === 0 ? null : 108_600, tpPoints: i % 5 === 0 ? null : 108_700 };
    positions.push(
      positionOf({
        ticket: record.ticket,
        seq: i,
        symbol: record.symbol,
        side: isDeal ? 'sell' : 'buy',
        volume: '0.01',
        openPoints: 108_650,
        ...stops,
        magic: 7,
        comment: record.comment,
        time: record.time,
      }),
    );
    resting.push(restingOrderOf({ record, seq: i, pricePoints: 90_000, ...stops, expiresAt: i % 2 === 0 ? null : T0 + 60_000 }));
  }
  return { records, positions, resting };
}

describe('what the simulated terminal keeps per order', () => {
  it('gives its records, positions and resting orders one hidden class of each kind, not one each', () => {
    const { records, positions, resting } = keptFor300Orders();
    expect(hiddenClassCount(records)).toBe(1);
    expect(hiddenClassCount(positions)).toBe(1);
    expect(hiddenClassCount(resting)).toBe(1);
  });

  it('keeps every field of the records and saved rows it is made from', () => {
    const { records, positions, resting } = keptFor300Orders();
    expect(records[1]).toEqual({
      ticket: String(T0 + 1),
      kind: 'deal',
      symbol: 'EURUSD',
      type: 'sell',
      volume: '0.01',
      price: '1.08650',
      magic: 7,
      comment: 'manual:1',
      time: T0 + 1,
      position: String(T0),
      state: 'filled',
      dealOrder: String(T0),
      entry: 'out',
      reason: 'expert',
      profit: 1,
    });
    // An order carries no deal facts.
    expect(records[0]).toMatchObject({ dealOrder: null, entry: null, reason: null, profit: 0 });
    expect(positions[1]).toMatchObject({
      ticket: String(T0 + 1),
      seq: 1,
      side: 'sell',
      openPoints: 108_650,
      slPoints: 108_600,
      tpPoints: 108_700,
      hundredths: 1,
      slStop: undefined,
      tpStop: undefined,
    });
    expect(resting[1]).toMatchObject({ record: records[1], seq: 1, pricePoints: 90_000, expiresAt: T0 + 60_000, trigger: undefined, expiry: undefined });
  });
});
