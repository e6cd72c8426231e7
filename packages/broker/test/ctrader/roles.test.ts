import { afterEach, describe, expect, it } from 'vitest';
import { CTraderAccount } from '../../src/ctrader/account-reader.js';
import { PayloadType } from '../../src/ctrader/wire.js';
import { RETCODE } from '../../src/mt5-retcodes.js';
import { settle } from './drive.js';
import { startTerminal, type TerminalRig } from './terminal-harness.js';

const rigs: TerminalRig[] = [];
afterEach(async () => {
  for (const rig of rigs.splice(0)) await rig.teardown();
});

async function rig(options: Parameters<typeof startTerminal>[0] = {}): Promise<TerminalRig & { reader: CTraderAccount }> {
  const started = await startTerminal(options);
  rigs.push(started);
  return { ...started, reader: new CTraderAccount({ feed: started.feed, clock: started.clock }) };
}

const order = { action: 'deal', symbol: 'EURUSD', type: 'buy', volume: '0.1', magic: 1, comment: 'roles', filling: 'IOC' } as const;

describe('one cTrader session for the feed, the terminal and the account reader', () => {
  it('authorizes one connection for the account, whichever role starts first', async () => {
    const { fake, feed, terminal, reader } = await rig();
    await reader.summary();
    await terminal.connect();
    await feed.subscribe(['GBPUSD']);
    expect((await terminal.orderSend(order)).retcode).toBe(RETCODE.DONE);
    expect((await reader.details()).trades).toHaveLength(1);
    expect(fake.handshakes).toHaveLength(1);
    expect(fake.messages(PayloadType.ACCOUNT_AUTH_REQ)).toHaveLength(1);
  });

  it('goes on with every role on the next connection after a drop', async () => {
    const { fake, feed, clock, terminal, reader } = await rig();
    await terminal.connect();
    expect((await terminal.orderSend(order)).retcode).toBe(RETCODE.DONE);
    fake.dropConnections();
    await settle(feed);
    expect(terminal.isConnected()).toBe(false);
    clock.advance(1_000);
    await settle(feed);
    expect(feed.state()).toBe('connected');
    expect(await terminal.positions()).toHaveLength(1);
    expect((await reader.summary()).openTradeCount).toBe(1);
    expect(fake.handshakes).toHaveLength(2);
  });
});

describe('cTrader account records', () => {
  it('reads balance, margin and units in the account currency from cents of moneyDigits and of units', async () => {
    const { terminal, reader } = await rig();
    await terminal.connect();
    await terminal.orderSend({ ...order, volume: '0.25' });
    const details = await reader.details();
    // 100 000.00 USD at 1:100; 25 000 EURUSD units hold about 270 USD of margin.
    expect(details).toMatchObject({ currency: 'USD', balance: '100000', marginRate: '0.01', openTradeCount: 1, openPositionCount: 1 });
    expect(Number(details.marginUsed)).toBeGreaterThan(260);
    expect(Number(details.marginUsed)).toBeLessThan(280);
    expect(details.trades[0]).toMatchObject({ instrument: 'EUR_USD', currentUnits: '25000' });
    expect(details.positions[0]!.long).toMatchObject({ units: '25000', tradeIds: [details.trades[0]!.id] });
  });

  it('describes instruments OANDA-style from the symbols’ terms', async () => {
    const { reader } = await rig();
    const [eurusd, xauusd] = await reader.instruments(['EUR_USD', 'XAU_USD']);
    expect(eurusd).toMatchObject({
      name: 'EUR_USD',
      type: 'CURRENCY',
      displayName: 'EURUSD',
      pipLocation: -4,
      displayPrecision: 5,
      minimumTradeSize: '1000',
      tradeUnitsPrecision: 0,
    });
    expect(xauusd).toMatchObject({ name: 'XAU_USD', type: 'METAL', minimumTradeSize: '1', maximumOrderUnits: '10000' });
  });

  it('tells a reduced trade from a closed one in the changes since an id', async () => {
    const { terminal, reader, advance } = await rig();
    await terminal.connect();
    const a = await terminal.orderSend({ ...order, volume: '0.2' });
    const b = await terminal.orderSend(order);
    const since = (await reader.summary()).lastTransactionId;
    await advance(1_000);
    await terminal.closePosition({ position: a.position!, volume: '0.1', magic: 1, comment: 'part' });
    await terminal.closePosition({ position: b.position!, volume: '0.1', magic: 1, comment: 'all' });
    const changes = await reader.changesSince(since);
    expect(changes.tradesReduced.map((t) => [t.id, t.currentUnits])).toEqual([[a.position, '10000']]);
    expect(changes.tradesClosed.map((t) => [t.id, t.currentUnits, t.initialUnits])).toEqual([[b.position, '0', '10000']]);
    expect(changes.transactions.map((t) => t.units)).toEqual(['-10000', '-10000']);
    expect(changes.transactions.every((t) => t.pl !== null && t.accountBalance !== null)).toBe(true);
  });
});

describe('cTrader history within the historical-data limit', () => {
  it('keeps deal and order lists to five historical requests a second, the venue refusing none', async () => {
    const { fake, feed, clock, terminal } = await rig({ fake: { historicalRequestsPerSecond: 5 }, feed: { historicalRequestsPerSecond: 5 } });
    await terminal.connect();
    await terminal.orderSend(order);
    const start = clock.now();
    let isDone = false;
    const reads = Promise.all(Array.from({ length: 6 }, () => terminal.findByComment('roles', 1))).finally(() => (isDone = true));
    // Time moves only while the reads wait for the pacer: no new request since the last look.
    let seen = -1;
    while (!isDone) {
      await settle(feed);
      const count = fake.messages(PayloadType.DEAL_LIST_REQ).length + fake.messages(PayloadType.ORDER_LIST_REQ).length;
      if (count === seen && !isDone) clock.advance(100);
      seen = count;
    }
    const found = await reads;
    expect(found.every((records) => records.length === 2)).toBe(true);
    const times = [...fake.messages(PayloadType.DEAL_LIST_REQ), ...fake.messages(PayloadType.ORDER_LIST_REQ)].map((m) => m.at - start);
    expect(times).toHaveLength(12);
    for (const t of times) expect(times.filter((u) => u > t - 1000 && u <= t).length).toBeLessThanOrEqual(5);
    expect(fake.errorsSent).not.toContain('REQUEST_FREQUENCY_EXCEEDED');
  });
});
