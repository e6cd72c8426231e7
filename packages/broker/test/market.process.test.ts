import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { WEDNESDAY_NOON, makeMarket } from './fixtures.js';

const run = promisify(execFile);
const SCRIPT = fileURLToPath(new URL('./scripts/print-quotes.ts', import.meta.url));
const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url));
const SYMBOLS = ['EURUSD', 'USDJPY', 'XAUUSD', 'GBPJPY'];
const INSTANT = WEDNESDAY_NOON + 123_456;

/** Runs the script in a separate node process (TypeScript through tsx's loader). */
async function quotesFromProcess(seed: string): Promise<unknown> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', SCRIPT, String(INSTANT), ...SYMBOLS], {
    cwd: PACKAGE_DIR,
    env: { ...process.env, SIM_SEED: seed, SIM_TICK_INTERVAL_MS: '250', SIM_MARKET_HOURS: 'true' },
  });
  return JSON.parse(stdout);
}

describe('separate processes', () => {
  it('report the same bid and ask for the same seed, symbol and instant', async () => {
    const [first, second] = await Promise.all([quotesFromProcess('shared-seed'), quotesFromProcess('shared-seed')]);
    expect(first).toEqual(second);
    expect((first as { bid: number; ask: number }[]).every((q) => q.bid > 0 && q.ask > q.bid)).toBe(true);
    const { market } = makeMarket({ seed: 'shared-seed', tickIntervalMs: 250 });
    expect(first).toEqual(SYMBOLS.map((symbol) => market.lastTick(symbol, INSTANT)));
  }, 30_000);

  it('report different prices for different seeds', async () => {
    const [first, second] = await Promise.all([quotesFromProcess('seed-one'), quotesFromProcess('seed-two')]);
    expect(first).not.toEqual(second);
  }, 30_000);
});
