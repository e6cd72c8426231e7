import { ManualClock } from '@fxdesk/primitives';
import { SimulatedMarket, type SimulatedMarketOptions } from '../src/simulated/market.js';
import { SimulatedTerminal, type SimulatedTerminalOptions } from '../src/simulated/terminal.js';

/** Wednesday 2026-01-07 12:00 UTC: mid-session, market open. */
export const WEDNESDAY_NOON = Date.UTC(2026, 0, 7, 12, 0, 0);
/** Saturday 2026-01-10 12:00 UTC: market closed. */
export const SATURDAY_NOON = Date.UTC(2026, 0, 10, 12, 0, 0);

/** A market on a manual clock, open, with one-second ticks unless told otherwise. */
export function makeMarket(options: Partial<SimulatedMarketOptions> & { at?: number } = {}): { market: SimulatedMarket; clock: ManualClock } {
  const clock = new ManualClock(options.at ?? WEDNESDAY_NOON);
  const market = new SimulatedMarket({ seed: 'test-seed', tickIntervalMs: 1000, marketHours: true, clock, ...options });
  return { market, clock };
}

/** A connected simulated terminal over a fresh market (see `makeMarket`) that stays down after an injected disconnect. */
export async function connectedTerminal(options: Partial<SimulatedTerminalOptions> = {}) {
  const { market, clock } = makeMarket();
  const terminal = new SimulatedTerminal({ market, reconnectAfterMs: 0, ...options });
  await terminal.connect();
  return { market, clock, terminal };
}
