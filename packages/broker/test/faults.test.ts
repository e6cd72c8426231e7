import { describe, expect, it } from 'vitest';
import { FaultPlan, parseFaultSpec } from '../src/simulated/faults.js';

describe('parseFaultSpec', () => {
  it('reads comma-separated method:kind[:times] items', () => {
    expect(parseFaultSpec('orderSend:ambiguous:1, orderCheck:timeout')).toEqual([
      { method: 'orderSend', kind: 'ambiguous', times: 1 },
      { method: 'orderCheck', kind: 'timeout' },
    ]);
    expect(parseFaultSpec('orderSend:hang')).toEqual([{ method: 'orderSend', kind: 'hang' }]);
    expect(parseFaultSpec('orderSend:stall')).toEqual([{ method: 'orderSend', kind: 'stall' }]);
  });

  it('reads the methods that close, modify, cancel and list', () => {
    expect(parseFaultSpec('closePosition:ambiguous:1,modifyPosition:timeout,cancelOrder:stall,positions:disconnect,orders:hang')).toEqual([
      { method: 'closePosition', kind: 'ambiguous', times: 1 },
      { method: 'modifyPosition', kind: 'timeout' },
      { method: 'cancelOrder', kind: 'stall' },
      { method: 'positions', kind: 'disconnect' },
      { method: 'orders', kind: 'hang' },
    ]);
  });

  it('reads blank text as no faults', () => {
    expect(parseFaultSpec('')).toEqual([]);
    expect(parseFaultSpec('  ')).toEqual([]);
  });

  it.each([
    ['orderSend', /expected method:kind/],
    ['orderSend:explode', /unknown kind "explode"/],
    ['placeOrder:timeout', /unknown method "placeOrder"/],
    ['orderSend:timeout:0', /times "0" is not a positive integer/],
    ['orderSend:timeout:two', /times "two"/],
    ['orderSend:timeout:1:2', /expected method:kind/],
    ['orderSend:timeout,,tick:hang', /invalid fault ""/],
  ])('refuses %j with a clear message', (text, message) => {
    expect(() => parseFaultSpec(text)).toThrow(message);
  });
});

describe('FaultPlan', () => {
  it('hands out a fault the given number of times, then none', () => {
    const plan = new FaultPlan();
    plan.inject({ method: 'orderSend', kind: 'timeout', times: 2 });
    expect([plan.take('orderSend'), plan.take('orderSend'), plan.take('orderSend')]).toEqual(['timeout', 'timeout', undefined]);
  });

  it('keeps a fault without a count until cleared, and only for its method', () => {
    const plan = new FaultPlan();
    plan.inject({ method: 'tick', kind: 'disconnect' });
    expect(plan.take('orderSend')).toBeUndefined();
    expect([plan.take('tick'), plan.take('tick')]).toEqual(['disconnect', 'disconnect']);
    plan.clear();
    expect(plan.take('tick')).toBeUndefined();
  });

  it('applies faults of one method in the order they were armed', () => {
    const plan = new FaultPlan();
    plan.inject({ method: 'orderSend', kind: 'ambiguous', times: 1 });
    plan.inject({ method: 'orderSend', kind: 'hang', times: 1 });
    expect([plan.take('orderSend'), plan.take('orderSend')]).toEqual(['ambiguous', 'hang']);
  });
});
