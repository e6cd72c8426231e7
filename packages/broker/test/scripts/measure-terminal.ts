/**
 * Times, in CPU µs per call, the simulated terminal's orderCheck + orderSend of a 0.01-lot EURUSD
 * market buy when it already holds many open positions (half of them with a stop loss and a take
 * profit far away) and resting orders (far from the market, half with an expiry a day ahead).
 * The clock moves 1 ms per call, so every call also applies the ticks that arrived since the last.
 *
 *   node --import tsx test/scripts/measure-terminal.ts [positions] [calls]     (default 10000 2000)
 */
import { ManualClock } from '@fxdesk/primitives';
import { SimulatedMarket } from '../../src/simulated/market.js';
import { SimulatedTerminal } from '../../src/simulated/terminal.js';
import type { TradeRequest } from '../../src/terminal.js';

const POSITIONS = Number(process.argv[2] ?? 10_000);
const CALLS = Number(process.argv[3] ?? 2_000);
const RESTING = Math.min(POSITIONS, 1_000);
const AT = Date.UTC(2026, 0, 7, 12, 0, 0);
const SYMBOLS = ['EURUSD', 'GBPUSD', 'USDJPY', 'EURJPY', 'XAUUSD'];

const clock = new ManualClock(AT);
const market = new SimulatedMarket({ seed: 'fxdesk', tickIntervalMs: 1000, marketHours: true, clock });
const terminal = new SimulatedTerminal({ market, balance: '1000000000000' });
await terminal.connect();

function deal(symbol: string, i: number): TradeRequest {
  const tick = market.lastTick(symbol)!;
  const digits = market.spec(symbol)!.digits;
  const isBuy = i % 2 === 0;
  const far = tick.bid * 0.2;
  const stops =
    i % 4 < 2 ? {} : { sl: (isBuy ? tick.bid - far : tick.ask + far).toFixed(digits), tp: (isBuy ? tick.bid + far : tick.ask - far).toFixed(digits) };
  return { action: 'deal', symbol, type: isBuy ? 'buy' : 'sell', volume: '0.01', magic: 1, comment: `setup ${i}`, ...stops };
}

function resting(symbol: string, i: number): TradeRequest {
  const tick = market.lastTick(symbol)!;
  const digits = market.spec(symbol)!.digits;
  const expiry = i % 2 === 0 ? { timeType: 'SPECIFIED' as const, expiration: Math.floor(clock.now() / 1000) + 86_400 } : {};
  return { action: 'pending', symbol, type: 'buy_limit', price: (tick.ask * 0.8).toFixed(digits), volume: '0.01', magic: 1, comment: `rest ${i}`, ...expiry };
}

for (let i = 0; i < POSITIONS; i++) {
  const result = await terminal.orderSend(deal(SYMBOLS[i % SYMBOLS.length]!, i));
  if (result.retcode !== 10009) throw new Error(`setup deal ${i}: ${result.retcode} ${result.comment}`);
}
for (let i = 0; i < RESTING; i++) {
  const result = await terminal.orderSend(resting(SYMBOLS[i % SYMBOLS.length]!, i));
  if (result.retcode !== 10008) throw new Error(`setup order ${i}: ${result.retcode} ${result.comment}`);
}

const request: TradeRequest = { action: 'deal', symbol: 'EURUSD', type: 'buy', volume: '0.01', magic: 1, comment: 'bench' };
const start = process.cpuUsage();
for (let i = 0; i < CALLS; i++) {
  clock.advance(1);
  const check = await terminal.orderCheck(request);
  const sent = await terminal.orderSend(request);
  if (check.retcode !== 0 || sent.retcode !== 10009) throw new Error(`call ${i}: ${check.retcode} ${sent.retcode}`);
}
const used = process.cpuUsage(start);
const perCall = (used.user + used.system) / CALLS;
console.log(
  `${POSITIONS} open positions, ${RESTING} resting orders: orderCheck + orderSend ${perCall.toFixed(1)} µs CPU per signal (${CALLS} signals, ${(1e6 / perCall).toFixed(0)} signals/s)`,
);
