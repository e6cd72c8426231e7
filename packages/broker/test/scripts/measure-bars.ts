/**
 * Times, in CPU ms, `market.bars(symbol, timeframe, 500)` cold (fresh market) and warm (same call again),
 * for M5, H1 and D1 at a few tick intervals. Usage: npx tsx measure-bars.ts [intervalMs...]
 */
import { ManualClock } from '@fxdesk/primitives';
import type { Timeframe } from '@fxdesk/schemas';
import { SimulatedMarket } from '../../src/simulated/market.js';

const intervals = process.argv.slice(2).map(Number);
const AT = Date.UTC(2026, 0, 7, 12, 0, 0);

/** CPU milliseconds the call took (steadier than wall time on a busy machine). */
function time(run: () => unknown): number {
  const start = process.cpuUsage();
  run();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

console.log('tickIntervalMs timeframe bars  cold_ms  warm_ms');
for (const tickIntervalMs of intervals.length > 0 ? intervals : [250, 1000]) {
  for (const timeframe of ['M5', 'H1', 'D1'] as Timeframe[]) {
    const market = new SimulatedMarket({ seed: 'fxdesk', tickIntervalMs, marketHours: true, clock: new ManualClock(AT) });
    let count = 0;
    const cold = time(() => (count = market.bars('EURUSD', timeframe, 500).length));
    const warm = time(() => market.bars('EURUSD', timeframe, 500));
    console.log(
      `${String(tickIntervalMs).padStart(14)} ${timeframe.padStart(9)} ${String(count).padStart(4)} ${cold.toFixed(1).padStart(8)} ${warm.toFixed(2).padStart(8)}`,
    );
  }
}
