import { SimulatedMarket } from '@fxdesk/broker';
import {
  FAKE_CTRADER_SYMBOLS,
  FakeCTraderServer,
  FakeMetaApiServer,
  FakeV20Server,
  fakeCTraderSettings,
  fakeMetaApiSettings,
  fakeOandaSettings,
} from '@fxdesk/broker/testing';
import { run } from '@fxdesk/core/testing';
import { systemClock } from '@fxdesk/primitives';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * `npm run smoke` as a user runs it: a real process, given the environment that points it at a
 * venue's fake server in this process (on a free port, on the wall clock over a simulated market
 * with market hours off, so it trades on a weekend too). What the command says is checked
 * against the fake's own book.
 */

const smoke = (env: Record<string, string>, args: string[]) => run('scripts/smoke.ts', env, args).done;

/** A venue's fake, and what the test reads from its side. */
interface FakeVenue {
  venue: 'oanda' | 'ctrader' | 'metaapi';
  /** The env pointing the command at the fake. */
  settings: Record<string, string>;
  /** The env of the same fake named as a live (real-money) environment, or a fake whose account is live. */
  live: () => Promise<{ settings: Record<string, string>; orderRequests: () => number; close: () => Promise<void> }>;
  /** Order requests the fake received. */
  orderRequests(): number;
  /** Tickets of the positions open in the fake's book. */
  openTickets(): Promise<string[]>;
  /** The fills of a position in the fake's book: its entry and exit. */
  fills(ticket: string): Promise<{ entries: number; exits: number }>;
  close(): Promise<void>;
}

const marketOf = (seed: string) => new SimulatedMarket({ seed, tickIntervalMs: 250, marketHours: false, clock: systemClock });

async function oanda(): Promise<FakeVenue> {
  const market = marketOf('smoke-oanda');
  const server = await FakeV20Server.start({ market, clock: systemClock });
  const venue = server.venue as NonNullable<FakeV20Server['venue']>;
  const orderRequests = () => server.requests.filter((r) => r.method === 'POST' && r.url.endsWith('/orders')).length;
  const fillsOf = () =>
    (venue.transactionRange(new URLSearchParams({ from: '1', to: venue.lastTransactionID })).body.transactions as Record<string, unknown>[]).filter(
      (t) => t.type === 'ORDER_FILL',
    );
  const settings = fakeOandaSettings(server);
  return {
    venue: 'oanda',
    settings,
    live: async () => ({ settings: { ...settings, OANDA_ENVIRONMENT: 'live' }, orderRequests, close: async () => {} }),
    orderRequests,
    openTickets: async () => (venue.openTradesBody().trades as { id: string }[]).map((t) => t.id),
    fills: async (ticket) => ({
      entries: fillsOf().filter((t) => (t.tradeOpened as { tradeID?: string } | undefined)?.tradeID === ticket).length,
      exits: fillsOf().filter((t) => ((t.tradesClosed ?? []) as { tradeID: string }[]).some((c) => c.tradeID === ticket)).length,
    }),
    close: async () => {
      await server.close();
      market.stop();
    },
  };
}

async function metaApi(): Promise<FakeVenue> {
  const market = marketOf('smoke-metaapi');
  const server = await FakeMetaApiServer.start({ market });
  const orderRequestsOf = (fake: FakeMetaApiServer) => () => fake.requests.filter((r) => r.route === 'trade').length;
  return {
    venue: 'metaapi',
    settings: fakeMetaApiSettings(server),
    live: async () => {
      const real = await FakeMetaApiServer.start({ market, tradeMode: 'ACCOUNT_TRADE_MODE_REAL' });
      return { settings: fakeMetaApiSettings(real), orderRequests: orderRequestsOf(real), close: () => real.close() };
    },
    orderRequests: orderRequestsOf(server),
    openTickets: async () => (await server.terminal.positions()).map((p) => p.ticket),
    fills: async (ticket) => {
      const deals = await server.terminal.deals({ from: 0, to: Date.now() + 60_000, position: ticket });
      return { entries: deals.filter((d) => d.entry === 'in').length, exits: deals.filter((d) => d.entry === 'out').length };
    },
    close: async () => {
      await server.close();
      market.stop();
    },
  };
}

/** ProtoOANewOrderReq and ProtoOAClosePositionReq. */
const CTRADER_ORDER_REQUESTS = [2106, 2111];
const WHOLE_WEEK = [{ startSecond: 0, endSecond: 7 * 86_400 }];

async function ctrader(): Promise<FakeVenue> {
  const market = marketOf('smoke-ctrader');
  const symbols = FAKE_CTRADER_SYMBOLS.map((s) => ({ ...s, schedule: WHOLE_WEEK }));
  const server = await FakeCTraderServer.start({ clock: systemClock, market, symbols });
  const orderRequests = () => CTRADER_ORDER_REQUESTS.reduce((n, type) => n + server.messages(type).length, 0);
  const settings = fakeCTraderSettings(server.port);
  return {
    venue: 'ctrader',
    settings,
    live: async () => ({ settings: { ...settings, CTRADER_ENVIRONMENT: 'live' }, orderRequests, close: async () => {} }),
    orderRequests,
    openTickets: async () => server.trading.openPositions().map((p) => String(p.positionId)),
    fills: async (ticket) => {
      const deals = server.trading.dealsOf(Number(ticket));
      return { entries: deals.filter((d) => d.close === undefined).length, exits: deals.filter((d) => d.close !== undefined).length };
    },
    close: async () => {
      await server.close();
      market.stop();
    },
  };
}

const STEPS = ['settings', 'account', 'terms', 'order', 'close', 'disconnect', 'passed'];

for (const start of [oanda, ctrader, metaApi]) {
  describe(`npm run smoke -- --venue ${start.name.toLowerCase()}`, { timeout: 30_000 }, () => {
    let fake: FakeVenue;

    beforeAll(async () => {
      fake = await start();
    });

    afterAll(async () => {
      await fake?.close();
    });

    it('passes every step, printing one line each, and the fake’s book holds the order opened and closed', async () => {
      const out = await smoke(fake.settings, ['--venue', fake.venue]);
      expect(out.stderr, out.stdout).toBe('');
      expect(out.code).toBe(0);
      const lines = out.stdout.trimEnd().split('\n');
      expect(lines.map((line) => line.split(':')[0])).toEqual(STEPS);
      const ticket = /position (\S+)$/.exec(lines[3] as string)?.[1] as string;
      expect(lines[1]).toMatch(/ (practice|demo) \(/);
      expect(lines[2]).toMatch(/^terms: +EURUSD: volume (\S+) to \S+ lots, step \S+; bid \d+\.\d+ ask \d+\.\d+$/);
      const minimum = /volume (\S+)/.exec(lines[2] as string)?.[1] as string;
      expect(lines[3]).toMatch(/^order: +bought \S+ EURUSD at \d+\.\d+ as smoke-\d{8}T\d{6}Z: TRADE_RETCODE_DONE \(10009\)/);
      expect(/bought (\S+)/.exec(lines[3] as string)?.[1]).toBe(minimum);
      expect(lines[4]).toContain(`position ${ticket} is gone; realised P/L `);
      expect(await fake.fills(ticket)).toEqual({ entries: 1, exits: 1 });
      expect(await fake.openTickets()).not.toContain(ticket);
    });

    it('refuses a live environment without --live, before any order', async () => {
      const live = await fake.live();
      const sentBefore = live.orderRequests();
      try {
        const out = await smoke(live.settings, ['--venue', fake.venue]);
        expect(out.code).toBe(2);
        expect(out.stderr.trimEnd().split('\n')).toEqual([
          expect.stringMatching(/^smoke: refused: .* is live, real money \(.+\); run with --live to trade it$/),
        ]);
        expect(out.stdout).not.toMatch(/^(terms|order):/m);
        expect(live.orderRequests()).toBe(sentBefore);
      } finally {
        await live.close();
      }
    });

    it('names the missing settings on one line and exits 2', async () => {
      const { [Object.keys(fake.settings)[0] as string]: _, ...without } = fake.settings;
      const out = await smoke(without, ['--venue', fake.venue]);
      expect(out.code).toBe(2);
      expect(out.stdout).toBe('');
      expect(out.stderr.trimEnd().split('\n')).toEqual([expect.stringContaining(`${Object.keys(fake.settings)[0]}: is required`)]);
    });
  });
}

describe('npm run smoke, its command line', { timeout: 30_000 }, () => {
  it('trades a live account with --live, saying so', async () => {
    const fake = await metaApi();
    const live = await fake.live();
    try {
      const out = await smoke(live.settings, ['--venue', 'metaapi', '--live']);
      expect(out.stderr, out.stdout).toBe('');
      expect(out.code).toBe(0);
      expect(out.stdout).toContain("live (the account's type ACCOUNT_TRADE_MODE_REAL)");
      expect(out.stdout).toMatch(/^account: +LIVE: this order trades real money \(--live\)$/m);
      expect(live.orderRequests()).toBe(2);
    } finally {
      await live.close();
      await fake.close();
    }
  });

  it('names the failing step and, after the order, the ticket of the position it may leave open', async () => {
    const market = marketOf('smoke-close-fails');
    const server = await FakeV20Server.start({ market, clock: systemClock });
    server.inject({ route: 'PUT trades/close', kind: 'status', status: 503, errorMessage: 'Service unavailable' });
    try {
      const out = await smoke(fakeOandaSettings(server), ['--venue', 'oanda']);
      expect(out.code).toBe(1);
      const ticket = /position (\S+)$/m.exec(out.stdout)?.[1] as string;
      const [failed, warning] = out.stderr.trimEnd().split('\n');
      expect(failed).toMatch(/^smoke: FAILED at the close step: /);
      expect(warning).toBe(
        `smoke: A POSITION MAY BE OPEN on the oanda account: EURUSD buy, ticket ${ticket} (comment ${/as (smoke-\S+):/.exec(out.stdout)?.[1]}); check the account and close it there`,
      );
      expect((server.venue?.openTradesBody().trades as { id: string }[]).map((t) => t.id)).toEqual([ticket]);
      expect(out.stdout).toMatch(/^disconnect: +closed the venue connections$/m);
    } finally {
      await server.close();
      market.stop();
    }
  });

  it('names an invalid setting and exits 2', async () => {
    const out = await smoke({ OANDA_API_TOKEN: 'token', OANDA_ACCOUNT_ID: '12345' }, ['--venue', 'oanda']);
    expect(out.code).toBe(2);
    expect(out.stderr.trimEnd().split('\n')).toEqual([expect.stringContaining('OANDA_ACCOUNT_ID: expected an OANDA v20 account id')]);
  });

  it('exits 2 with the usage without a venue, and prints it with --help', async () => {
    const [bad, help] = await Promise.all([smoke({}, ['--venue', 'simulated']), smoke({}, ['--help'])]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--venue "simulated" is no venue');
    expect(bad.stderr).toContain('usage: npm run smoke');
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^usage: npm run smoke -- --venue oanda\|ctrader\|metaapi/);
  });
});
