import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
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
import { MarketDataClient } from '@fxdesk/client';
import { answers, freePort, run, until } from '@fxdesk/core/testing';
import { systemClock } from '@fxdesk/primitives';
import type { AccountDetailsRead, IntervalCandle, JournalPage, JournalTrade, StrategySignal, Tick } from '@fxdesk/schemas';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envPrefix, serviceEnv, type Env } from '../scripts/stack-env.js';
import { stackService } from '../scripts/stack.js';

/**
 * Issue 25's whole-stack test, once per venue: the venue's fake server in this process, on the
 * wall clock over a simulated market that moves (market hours off: this may run on a weekend),
 * and the five services as real processes on free ports, each given the environment `npm start`
 * gives it (scripts/stack-env.ts) with `VENUE` and the fake's settings. The strategy decides on
 * M1 candles of the FX majors the fake lists (seven; cTrader's lists three) with a confluence of
 * one and a tight Supertrend, so a signal comes at its start (from the candle that just closed)
 * or within a minute. Each step is checked at the
 * venue: the prices market-data streams are the fake's, the order is in the fake's book, the
 * close took it out of there, and the journal's prices are the fake's fills.
 */

/** The FX pairs of the execution service's default ALLOWED_SYMBOLS: the more pairs, the likelier a signal at the strategy's start. */
const MAJORS = ['EUR_USD', 'GBP_USD', 'USD_JPY', 'USD_CHF', 'AUD_USD', 'USD_CAD', 'NZD_USD'];
const KEYS = {
  EXECUTION_API_KEY: 'exec-venues-key-1',
  MARKET_DATA_API_KEY: 'md-venues-key-1',
  INTERNAL_API_KEY: 'acct-venues-key-1',
  NOTIFICATION_API_KEY: 'notify-venues-key-1',
};
const SERVICES = ['market-data', 'execution', 'account', 'notification', 'strategy'] as const;
type ServiceName = (typeof SERVICES)[number];

/** A position as the venue's fake holds it, in the desk's terms. */
interface HeldPosition {
  ticket: string;
  symbol: string;
  side: 'buy' | 'sell';
  volumeLots: number;
  openPrice: number;
}

/** A venue's fake server, and what the test reads from its own side. */
interface FakeVenue {
  venue: 'oanda' | 'ctrader' | 'metaapi';
  /** The env pointing a service at the fake. */
  settings: Record<string, string>;
  /** The pairs the strategy trades: those of the majors the fake lists. */
  instruments: string[];
  /** Whether the fake sent this price of EURUSD. */
  hasSent(tick: Tick): boolean;
  /** The candle history requests the fake received. */
  historyRequests(): number;
  /** The order requests the fake received. */
  orderRequests(): number;
  /** The positions open in the fake's book. */
  positions(): Promise<HeldPosition[]>;
  /** The prices of the fills that opened and closed a position, as the fake made them. */
  fills(ticket: string): Promise<{ entry: number; exit: number | undefined }>;
  close(): Promise<void>;
}

function definedOf(env: Env): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));
}

/** Whether the market made this tick of EURUSD: its bid and ask at its time (as the venue wrote them, to five digits). */
function isMarketTick(market: SimulatedMarket, tick: Tick): boolean {
  const at = Date.parse(tick.ts);
  const isSame = (a: number, b: number) => Math.abs(a - b) < 0.000001;
  return market.ticksBetween('EURUSD', at, at + 1).some((t) => isSame(t.bid, tick.bid) && isSame(t.ask, tick.ask));
}

const portSetting = (name: ServiceName) => `${envPrefix(stackService(name))}_PORT`;

/** The stack's settings for a desk that decides within a minute (as test/console.browser.test.ts has them). */
const QUICK_DESK = {
  TRADING_ENABLED: 'true',
  AUTO_START: 'true',
  TIMEFRAME: 'M1',
  MIN_CONFLUENCE: '1',
  // A tight Supertrend flips every few M1 candles.
  SUPERTREND_MULTIPLIER: '0.3',
  // M1 ranges are small: wider stops keep them beyond the venue's stops level.
  MIN_STOP_ATR: '2',
  WARMUP_CANDLES: '120',
  CANDLE_CLOSE_DELAY_MS: '500',
  // The shortest the setting takes: the close is journaled within seconds.
  LIVE_JOURNAL_SYNC_SECONDS: '5',
  CHAT_APP_CHAT_IDS: '424242',
  RATE_LIMIT_GET_PER_MINUTE: '100000',
  CONSOLE_READS_PER_MINUTE: '100000',
};

function wholeStack(label: string, startFake: () => Promise<FakeVenue>): void {
  describe(`the whole stack on ${label}`, () => {
    const work = fs.mkdtempSync(path.join(os.tmpdir(), 'fxdesk-venues-'));
    const processes: ReturnType<typeof run>[] = [];
    let fake: FakeVenue;
    let base: Env;
    const url = (name: ServiceName) => `http://127.0.0.1:${base[portSetting(name)]}`;
    const json = async <T>(res: Response | Promise<Response>): Promise<T> => {
      const answer = await res;
      if (!answer.ok) throw new Error(`${answer.url}: ${answer.status} ${await answer.text()}`);
      return (await answer.json()) as T;
    };
    const accountDetails = () =>
      json<AccountDetailsRead>(fetch(`${url('account')}/api/v1/account/details`, { headers: { 'x-internal-api-key': KEYS.INTERNAL_API_KEY } }));
    const liveJournal = async () => (await json<JournalPage>(fetch(`${url('strategy')}/console/trades?account=live&limit=500`))).trades;

    beforeAll(async () => {
      fake = await startFake();
      base = { ...KEYS, ...QUICK_DESK, INSTRUMENTS: fake.instruments.join(','), ...fake.settings, VENUE: fake.venue, HOST: '127.0.0.1', LOG_LEVEL: 'warn' };
      for (const name of SERVICES) base[portSetting(name)] = String(await freePort());
      for (const name of SERVICES) {
        const { env } = serviceEnv(stackService(name), { ...base, DATA_DIR: path.join(work, name) });
        processes.push(run(`services/${name}/src/server.ts`, definedOf(env)));
      }
      try {
        const ready = (['market-data', 'execution', 'account'] as const).map((n) => `${url(n)}/health/ready`);
        const live = (['notification', 'strategy'] as const).map((n) => `${url(n)}/health/live`);
        await until(async () => (await Promise.all([...ready, ...live].map(answers))).every(Boolean), 60_000);
      } catch (err) {
        for (const p of processes) process.stderr.write(p.out.stderr + p.out.stdout);
        throw err;
      }
    }, 90_000);

    afterAll(async () => {
      for (const p of processes) if (p.child.exitCode === null) p.child.kill('SIGTERM');
      await Promise.all(processes.map((p) => p.done));
      await fake?.close();
      fs.rmSync(work, { recursive: true, force: true });
    });

    it('streams the venue’s prices through market-data', async () => {
      const client = new MarketDataClient({ baseUrl: url('market-data'), apiKey: KEYS.MARKET_DATA_API_KEY });
      const ticks: Tick[] = [];
      const stream = client.streamTicks({ symbols: ['EURUSD'], onTick: (t) => ticks.push(t) });
      try {
        await until(() => new Set(ticks.map((t) => t.bid)).size >= 3, 30_000);
      } finally {
        stream.close();
        await client.close();
      }
      for (const tick of ticks) {
        expect(tick).toMatchObject({ symbol: 'EURUSD', provider: fake.venue });
        expect(fake.hasSent(tick), JSON.stringify(tick)).toBe(true);
      }
    }, 40_000);

    let signal: StrategySignal;
    let held: HeldPosition;

    it('signals on its own from the venue’s candles, and the order fills at the venue', async () => {
      // The first signal filled whose position the venue still holds (its stop or target may have closed an older one).
      let found: { signal: StrategySignal; position: HeldPosition } | undefined;
      let signals: StrategySignal[] = [];
      await until(async () => {
        ({ signals } = await json<{ signals: StrategySignal[] }>(fetch(`${url('strategy')}/signals?limit=100`)));
        const book = await fake.positions();
        for (const s of signals.filter((s) => s.execution.status === 'filled')) {
          const position = book.find((p) => p.ticket === s.execution.tickets?.position);
          if (position) found = { signal: s, position };
        }
        return found !== undefined;
      }, 150_000).catch((err: unknown) => {
        throw new Error(`no signal filled at the venue: ${JSON.stringify(signals.map((s) => [s.instrument, s.execution]))}`, { cause: err });
      });
      ({ signal, position: held } = found!);
      expect(signal.dry_run).toBe(false);
      // Decided on the venue's bars: market-data read them from the fake and serves them as the venue's.
      expect(fake.historyRequests()).toBeGreaterThan(0);
      const candles = await json<{ candles: IntervalCandle[] }>(
        fetch(`${url('market-data')}/v1/market-data/candles?symbol=${signal.symbol}&timeframe=M1&count=5`, {
          headers: { 'x-api-key': KEYS.MARKET_DATA_API_KEY },
        }),
      );
      expect(new Set(candles.candles.map((c) => c.provider))).toEqual(new Set([fake.venue]));
      expect(fake.orderRequests()).toBeGreaterThan(0);
      expect(held).toMatchObject({ symbol: signal.symbol, side: signal.type === 'LONG' ? 'buy' : 'sell', volumeLots: Number(signal.execution.volume) });
    }, 160_000);

    it('shows the position in the account service’s details', async () => {
      // Read until it answers with the trade: a venue may throttle a read (the account's 503, retry-after).
      let account: AccountDetailsRead['account'] | undefined;
      await until(async () => (account = (await accountDetails()).account).trades.some((t) => t.id === held.ticket), 30_000).catch(() => undefined);
      if (!account) throw new Error('the account service did not answer its details');
      const trade = account.trades.find((t) => t.id === held.ticket);
      expect(trade, JSON.stringify(account.trades)).toBeDefined();
      expect(trade?.instrument).toBe(signal.instrument);
      expect(Number(trade?.price)).toBe(held.openPrice);
      expect(Number(trade?.currentUnits)).toBe(Math.round((held.side === 'buy' ? 1 : -1) * held.volumeLots * 100_000));
      expect(account.positions.map((p) => p.instrument)).toContain(signal.instrument);
    }, 40_000);

    it('closes the position through the strategy, and the venue and the account no longer hold it', async () => {
      await json(
        fetch(`${url('strategy')}/console/positions/${held.ticket}/close`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'idempotency-key': `venues-close-${randomUUID()}` },
          body: '{}',
        }),
      );
      expect((await fake.positions()).map((p) => p.ticket)).not.toContain(held.ticket);
      expect((await fake.fills(held.ticket)).exit).toBeDefined();
      await until(async () => !(await accountDetails()).account.trades.some((t) => t.id === held.ticket), 30_000);
    }, 40_000);

    it('journals the trade with its side, lots, the venue’s prices and the reason of its close', async () => {
      let trade: JournalTrade | undefined;
      await until(async () => (trade = (await liveJournal()).find((t) => t.position === held.ticket)) !== undefined, 60_000);
      const { entry, exit } = await fake.fills(held.ticket);
      expect(trade).toMatchObject({
        account: 'live',
        signal_id: signal.signal_id,
        instrument: signal.instrument,
        side: signal.type,
        volume_lots: held.volumeLots,
        entry_price: entry,
        exit_price: exit,
        exit_reason: 'manual',
      });
    }, 70_000);
  });
}

/** OANDA v20: the fake's venue trades on a simulated market and streams its ticks. */
wholeStack('OANDA v20', async () => {
  const market = new SimulatedMarket({ seed: 'venues-oanda', tickIntervalMs: 250, marketHours: false, clock: systemClock });
  const server = await FakeV20Server.start({ market, clock: systemClock });
  const venue = server.venue as NonNullable<FakeV20Server['venue']>;
  const transactions = () =>
    (venue.transactionRange(new URLSearchParams({ from: '1', to: venue.lastTransactionID })).body.transactions as Record<string, unknown>[]).filter(
      (t) => t.type === 'ORDER_FILL',
    );
  return {
    venue: 'oanda',
    settings: fakeOandaSettings(server),
    instruments: MAJORS,
    hasSent: (tick) => isMarketTick(market, tick),
    historyRequests: () => server.requests.filter((r) => /\/v3\/instruments\/[^/]+\/candles/.test(r.url)).length,
    orderRequests: () => server.requests.filter((r) => r.method === 'POST' && r.url.endsWith('/orders')).length,
    positions: async () =>
      (venue.openTradesBody().trades as { id: string; instrument: string; currentUnits: string; price: string }[]).map((t) => ({
        ticket: t.id,
        symbol: t.instrument.replace('_', ''),
        side: Number(t.currentUnits) > 0 ? 'buy' : 'sell',
        volumeLots: Math.abs(Number(t.currentUnits)) / 100_000,
        openPrice: Number(t.price),
      })),
    fills: async (ticket) => {
      const fills = transactions();
      const opened = fills.find((t) => (t.tradeOpened as { tradeID?: string } | undefined)?.tradeID === ticket);
      const closed = fills.find((t) => ((t.tradesClosed ?? []) as { tradeID: string }[]).some((c) => c.tradeID === ticket));
      return { entry: Number(opened?.price), exit: closed === undefined ? undefined : Number(closed.price) };
    },
    close: () => server.close(),
  };
});

/** MT5 through MetaApi: the fake's MT5 terminal is the simulated terminal over a simulated market. */
wholeStack('MetaApi', async () => {
  const market = new SimulatedMarket({ seed: 'venues-metaapi', tickIntervalMs: 250, marketHours: false, clock: systemClock });
  const server = await FakeMetaApiServer.start({ market });
  const terminal = server.terminal;
  return {
    venue: 'metaapi',
    settings: fakeMetaApiSettings(server),
    instruments: MAJORS,
    hasSent: (tick) => isMarketTick(market, tick),
    historyRequests: () => server.requests.filter((r) => r.route === 'candles').length,
    orderRequests: () => server.requests.filter((r) => r.route === 'trade').length,
    positions: async () =>
      (await terminal.positions()).map((p) => ({
        ticket: p.ticket,
        symbol: p.symbol,
        side: p.side,
        volumeLots: Number(p.volume),
        openPrice: Number(p.openPrice),
      })),
    fills: async (ticket) => {
      const deals = await terminal.deals({ from: 0, to: Date.now() + 60_000, position: ticket });
      const price = (entry: string) => deals.find((d) => d.entry === entry)?.price;
      return { entry: Number(price('in')), exit: price('out') === undefined ? undefined : Number(price('out')) };
    },
    close: async () => {
      await server.close();
      market.stop();
    },
  };
});

/** cTrader Open API: the fake's spots, trendbars and fills are the simulated market's; its symbols trade all week. */
wholeStack('cTrader Open API', async () => {
  const market = new SimulatedMarket({ seed: 'venues-ctrader', tickIntervalMs: 250, marketHours: false, clock: systemClock });
  const symbols = FAKE_CTRADER_SYMBOLS.map((s) => ({ ...s, schedule: [{ startSecond: 0, endSecond: 7 * 86_400 }] }));
  const server = await FakeCTraderServer.start({ clock: systemClock, market, symbols, spotIntervalMs: 250 });
  const eurusd = symbols.find((s) => s.symbolName === 'EURUSD')!.symbolId;
  const lot = 10_000_000;
  const price = (points: number) => points / 100_000;
  return {
    venue: 'ctrader',
    settings: fakeCTraderSettings(server.port),
    instruments: MAJORS.filter((i) => symbols.some((s) => s.symbolName === i.replace('_', ''))),
    hasSent: (tick) => {
      const sent = server.spotsSent.filter((s) => s.symbolId === eurusd && s.timestamp <= Date.parse(tick.ts));
      const last = (side: 'bid' | 'ask') => sent.findLast((s) => s[side] !== undefined)?.[side];
      return last('bid') === Math.round(tick.bid * 100_000) && last('ask') === Math.round(tick.ask * 100_000);
    },
    historyRequests: () => server.messages(2137).length,
    orderRequests: () => server.messages(2106).length,
    positions: async () =>
      server.trading.openPositions().map((p) => ({
        ticket: String(p.positionId),
        symbol: symbols.find((s) => s.symbolId === p.symbolId)!.symbolName,
        side: p.side === 'BUY' ? 'buy' : 'sell',
        volumeLots: p.volume / lot,
        openPrice: price(p.price),
      })),
    fills: async (ticket) => {
      const deals = server.trading.dealsOf(Number(ticket));
      const exit = deals.find((d) => d.close !== undefined);
      return { entry: price(deals.find((d) => d.close === undefined)!.price), exit: exit === undefined ? undefined : price(exit.price) };
    },
    close: async () => {
      await server.close();
      market.stop();
    },
  };
});
