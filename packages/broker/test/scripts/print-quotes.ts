/**
 * Prints, as JSON, the latest tick of each named symbol at an instant, from a simulated market
 * built from the environment (SIM_SEED, SIM_TICK_INTERVAL_MS, SIM_MARKET_HOURS) — the way a
 * service builds it. Usage: print-quotes.ts <epochMs> <symbol>...
 */
import { ManualClock } from '@fxdesk/primitives';
import { SimulatedMarket } from '../../src/simulated/market.js';

const [instant, ...symbols] = process.argv.slice(2);
const at = Number(instant);
const market = new SimulatedMarket({
  seed: process.env.SIM_SEED ?? 'fxdesk',
  tickIntervalMs: Number(process.env.SIM_TICK_INTERVAL_MS ?? 1000),
  marketHours: process.env.SIM_MARKET_HOURS !== 'false',
  clock: new ManualClock(at),
});
process.stdout.write(`${JSON.stringify(symbols.map((symbol) => market.lastTick(symbol, at)))}\n`);
