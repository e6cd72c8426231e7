import { ManualClock } from '@fxdesk/primitives';
import { CTraderFeed, type CTraderFeedOptions } from '../../src/ctrader/feed.js';
import { CTraderTerminal, type CTraderTerminalOptions } from '../../src/ctrader/terminal.js';
import { PayloadType } from '../../src/ctrader/wire.js';
import { WEDNESDAY_NOON } from '../fixtures.js';
import { FAKE_CREDENTIALS, FakeCTraderServer, type FakeCTraderOptions } from './fake-ctrader-server.js';

export const REQUEST_TIMEOUT_MS = 10_000;
const DAY_MS = 86_400_000;

/** The payload type of each trading call, for the faults a test arms on the fake. */
export const TRADE_PAYLOAD = {
  orderSend: PayloadType.NEW_ORDER_REQ,
  closePosition: PayloadType.CLOSE_POSITION_REQ,
  modifyPosition: PayloadType.AMEND_POSITION_SLTP_REQ,
  cancelOrder: PayloadType.CANCEL_ORDER_REQ,
} as const;

export interface TerminalRig {
  clock: ManualClock;
  fake: FakeCTraderServer;
  feed: CTraderFeed;
  terminal: CTraderTerminal;
  /** Moves the clock (in one step: the fake's ticks fill, expire and stop at each second on the way), then lets the socket catch up. */
  advance: (ms: number) => Promise<void>;
  teardown: () => Promise<void>;
}

/**
 * A terminal on a feed on the fake server, one manual clock for all. The clock stands still
 * unless a test moves it, so the pacers are set wide (the pace is limits.test.ts's subject) and
 * the dead-link check far (a test's one long step would otherwise cut the link it jumps over).
 */
export async function startTerminal(
  options: { fake?: Omit<FakeCTraderOptions, 'clock'>; feed?: Partial<CTraderFeedOptions>; terminal?: Partial<CTraderTerminalOptions> } = {},
): Promise<TerminalRig> {
  const clock = new ManualClock(WEDNESDAY_NOON);
  const fake = await FakeCTraderServer.start({ clock, priceSwing: { points: 40, periodTicks: 600 }, historicalRequestsPerSecond: 100_000, ...options.fake });
  const feed = new CTraderFeed({
    ...FAKE_CREDENTIALS,
    url: fake.url,
    clock,
    requestTimeoutMs: REQUEST_TIMEOUT_MS,
    deadAfterMs: 30 * DAY_MS,
    requestsPerSecond: 100_000,
    historicalRequestsPerSecond: 100_000,
    ...options.feed,
  });
  const terminal = new CTraderTerminal({ feed, clock, ...options.terminal });
  return {
    clock,
    fake,
    feed,
    terminal,
    advance: async (ms) => {
      clock.advance(ms);
      if (feed.state() === 'connected') await feed.serverVersion().catch(() => undefined);
    },
    teardown: async () => {
      await terminal.close();
      await feed.close();
      await fake.close();
    },
  };
}
