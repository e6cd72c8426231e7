/**
 * Times, in CPU ms, the simulated account's first read (a summary from a fresh account, JIT
 * already warm) at a few instants after its default opening day, 2026-01-01.
 *
 *   node --import tsx test/scripts/measure-account.ts [ISO instant…]
 */
import { ManualClock } from '@fxdesk/primitives';
import { SimulatedAccount } from '../../src/simulated/account.js';
import { SimulatedMarket } from '../../src/simulated/market.js';

const instants =
  process.argv.length > 2 ? process.argv.slice(2) : ['2026-02-04T12:00:00Z', '2026-06-03T12:00:00Z', '2026-11-18T12:00:00Z', '2027-11-17T12:00:00Z'];

function cpuMs(run: () => Promise<unknown>): Promise<number> {
  const start = process.cpuUsage();
  return run().then(() => {
    const used = process.cpuUsage(start);
    return (used.user + used.system) / 1000;
  });
}

const fresh = (at: number) => {
  const clock = new ManualClock(at);
  return new SimulatedAccount({ market: new SimulatedMarket({ seed: 'fxdesk', tickIntervalMs: 1000, marketHours: true, clock }) });
};
await fresh(Date.parse(instants[0]!)).summary();
console.log('instant                   first_read_ms  lastTransactionId');
for (const instant of instants) {
  const account = fresh(Date.parse(instant));
  let last = '';
  const ms = await cpuMs(async () => (last = (await account.summary()).lastTransactionId));
  console.log(`${instant.padEnd(25)} ${ms.toFixed(1).padStart(13)}  ${last}`);
}
