/**
 * Heap bytes the simulated terminal keeps per order: an open position with its two records (the
 * order and the deal; 0.01 lot EURUSD, stops far away), and the record of a limit order that
 * expired. Comments are made as the execution service's orderComment makes them (the source,
 * `:` and 24 hex characters of a digest), fields as a JSON body gives them.
 *
 *   node --expose-gc --import tsx test/scripts/measure-terminal-memory.ts [orders] [source]     (default 20000 manual)
 */
import { createHash, randomUUID } from 'node:crypto';
import { ManualClock } from '@fxdesk/primitives';
import { SimulatedMarket } from '../../src/simulated/market.js';
import { SimulatedTerminal } from '../../src/simulated/terminal.js';
import type { TradeRequest } from '../../src/terminal.js';

const ORDERS = Number(process.argv[2] ?? 20_000);
const SOURCE = process.argv[3] ?? 'manual';
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');

const clock = new ManualClock(Date.UTC(2026, 0, 7, 12, 0, 0));
const market = new SimulatedMarket({ seed: 'fxdesk', tickIntervalMs: 1000, marketHours: true, clock });
const terminal = new SimulatedTerminal({ market, balance: '1000000000', historyLimit: 4 * ORDERS });
await terminal.connect();

function heapUsed(): number {
  gc!();
  gc!();
  return process.memoryUsage().heapUsed;
}

function request(fields: Partial<TradeRequest>): TradeRequest {
  const comment = `${SOURCE}:${createHash('sha256').update(randomUUID()).digest('hex').slice(0, 24)}`;
  return { ...(JSON.parse(JSON.stringify({ symbol: 'EURUSD', volume: '0.01', magic: 20250101, ...fields })) as TradeRequest), comment };
}

async function send(count: number, fields: (i: number) => Partial<TradeRequest>): Promise<void> {
  for (let i = 0; i < count; i++) {
    await terminal.orderSend(request(fields(i)));
    if (i % 100 === 0) clock.advance(1000);
  }
}

await send(100, () => ({ action: 'deal', type: 'buy', sl: '0.50000', tp: '1.90000' }));
const before = heapUsed();
await send(ORDERS, (i) =>
  i % 2 === 0 ? { action: 'deal', type: 'buy', sl: '0.50000', tp: '1.90000' } : { action: 'deal', type: 'sell', sl: '1.90000', tp: '0.50000' },
);
const withPositions = heapUsed();
await send(ORDERS, () => ({ action: 'pending', type: 'buy_limit', price: '0.90000', timeType: 'SPECIFIED', expiration: Math.floor(clock.now() / 1000) + 60 }));
clock.advance(120_000);
await terminal.tick('EURUSD');
const withExpired = heapUsed();

const perPosition = (withPositions - before) / ORDERS;
const perRecord = (withExpired - withPositions) / ORDERS;
process.stdout.write(
  `${ORDERS} orders each, Node ${process.version}: an open position with its two records ${perPosition.toFixed(0)} B, ` +
    `an expired order's record ${perRecord.toFixed(0)} B (${(await terminal.positions()).length} positions open)\n`,
);
