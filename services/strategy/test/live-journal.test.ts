import { ExecutionClient } from '@fxdesk/client';
import { createLogger } from '@fxdesk/core';
import type { Deal, StrategySignal } from '@fxdesk/schemas';
import { afterEach, describe, expect, it } from 'vitest';
import { LiveJournal, liveTradeOf } from '../src/live-journal.js';
import { openStrategyStores, type StrategyStores } from '../src/store/index.js';
import { fakeService, type FakeService, type RecordedRequest } from './fake-service.js';
import { MONDAY_NOON } from './helpers.js';
import { signalFixture } from './signal-fixture.js';

const iso = (ms: number) => new Date(ms).toISOString();

function deal(over: Partial<Deal> & Pick<Deal, 'ticket' | 'position' | 'entry'>): Deal {
  return {
    order: over.ticket,
    symbol: 'EURUSD',
    side: 'buy',
    volume: '0.10',
    price: '1.08500',
    profit: '0.00',
    commission: '-0.35',
    swap: '0.00',
    magic: 5101,
    comment: over.entry === 'in' ? 'fxdesk-strategy:0123456789abcdef01' : '[sl 1.08300]',
    reason: 'expert',
    source: 'fxdesk-strategy',
    time: iso(MONDAY_NOON),
    ...over,
  };
}

/** A LONG of 0.10 lots at 1.08500 closed by its stop at the venue at 1.08300 (−20 pips: −20.00 USD). */
const STOPPED = [
  deal({ ticket: '11', position: '11', entry: 'in' }),
  deal({ ticket: '12', position: '11', entry: 'out', side: 'sell', price: '1.08300', profit: '-20.00', reason: 'sl', time: iso(MONDAY_NOON + 3_600_000) }),
];

describe('liveTradeOf', () => {
  it('journals a position stopped at the venue from its deals: prices, P/L with commission and swap, R from the signal’s stop', () => {
    const signal = signalFixture({ stop_loss: 1.083, instrument: 'EUR_USD' });
    expect(liveTradeOf('11', STOPPED, signal, {})).toEqual({
      id: 'live:11',
      account: 'live',
      signal_id: signal.signal_id,
      position: '11',
      instrument: 'EUR_USD',
      side: 'LONG',
      volume_lots: 0.1,
      entry_time: iso(MONDAY_NOON),
      entry_price: 1.085,
      exit_time: iso(MONDAY_NOON + 3_600_000),
      exit_price: 1.083,
      exit_reason: 'stop',
      pnl: -20.7,
      commission: -0.7,
      swap: 0,
      r_multiple: -1.035,
      duration_seconds: 3600,
    });
  });

  it('waits while part of the position is open, and weights the exit over partial closes', () => {
    const entry = deal({ ticket: '21', position: '21', entry: 'in', volume: '0.30', side: 'sell' });
    const half = deal({ ticket: '22', position: '21', entry: 'out', side: 'buy', volume: '0.10', price: '1.08400', profit: '10.00', reason: 'client' });
    expect(liveTradeOf('21', [entry, half], undefined, {})).toBeNull();
    const rest = deal({ ticket: '23', position: '21', entry: 'out', side: 'buy', volume: '0.20', price: '1.08250', profit: '50.00', reason: 'tp' });
    const trade = liveTradeOf('21', [entry, half, rest], undefined, {})!;
    expect(trade).toMatchObject({ side: 'SHORT', volume_lots: 0.3, exit_reason: 'target', signal_id: null, r_multiple: null, instrument: 'EUR_USD' });
    expect(trade.exit_price).toBeCloseTo(1.083, 10);
    expect(trade.pnl).toBe(60 - 1.05);
  });

  it('reads a close someone asked for as manual, or flatten when a stop with close_positions made it', () => {
    const closed = [STOPPED[0]!, { ...STOPPED[1]!, reason: 'expert' as const }];
    expect(liveTradeOf('11', closed, undefined, {})?.exit_reason).toBe('manual');
    expect(liveTradeOf('11', closed, undefined, { close: 'flatten' })?.exit_reason).toBe('flatten');
  });

  it('names the exit rule that closed it: the rule that moved the stop a venue hit, the time or opposite-signal exit that asked for the close', () => {
    const closed = [STOPPED[0]!, { ...STOPPED[1]!, reason: 'expert' as const }];
    expect(liveTradeOf('11', STOPPED, undefined, { stop: 'trailing', close: 'time' })?.exit_reason).toBe('trailing');
    expect(liveTradeOf('11', STOPPED, undefined, { stop: 'break_even' })?.exit_reason).toBe('break_even');
    expect(liveTradeOf('11', closed, undefined, { stop: 'break_even', close: 'time' })?.exit_reason).toBe('time');
    expect(liveTradeOf('11', closed, undefined, { close: 'opposite_signal' })?.exit_reason).toBe('opposite_signal');
  });
});

describe('LiveJournal', () => {
  let stores: StrategyStores | undefined;
  let execution: FakeService | undefined;
  let client: ExecutionClient | undefined;
  afterEach(async () => {
    await client?.close();
    await execution?.close();
    await stores?.close();
  });

  /** GET /v1/deals as the execution service answers it: the range's deals, or one position's, of the source when asked, a page at a time. */
  function dealsOf(all: Deal[]) {
    return (request: RecordedRequest) => {
      if (request.url.startsWith('/v1/actions')) return { status: 200, body: { actions: [], next_cursor: null } };
      const query = new URL(request.url, 'http://x').searchParams;
      const [from, to] = [Date.parse(query.get('from')!), Date.parse(query.get('to')!)];
      const deals = all.filter(
        (d) =>
          from <= Date.parse(d.time) &&
          Date.parse(d.time) < to &&
          (!query.get('position') || d.position === query.get('position')) &&
          (!query.get('source') || all.some((e) => e.position === d.position && e.entry === 'in' && e.source === query.get('source'))),
      );
      const start = Number(query.get('cursor') ?? 0);
      const next = start + 1 < deals.length ? String(start + 1) : null;
      return { status: 200, body: { deals: deals.slice(start, start + 1), next_cursor: next } };
    };
  }

  async function journalOver(all: Deal[], signalOver: Partial<StrategySignal> = {}): Promise<LiveJournal> {
    stores = await openStrategyStores();
    execution = await fakeService(dealsOf(all));
    client = new ExecutionClient({ baseUrl: execution.url, apiKey: 'exec-key-123', timeoutMs: 2000 });
    const signal = signalFixture({ stop_loss: 1.083, ...signalOver });
    await stores.signals.insert({ ...signal, execution: { ...signal.execution, status: 'filled', tickets: { order: '11', deal: '11', position: '11' } } });
    return new LiveJournal({
      execution: client,
      journal: stores.journal,
      signals: stores.signals,
      source: 'fxdesk-strategy',
      now: () => MONDAY_NOON + 7_200_000,
      logger: createLogger({ name: 'test', level: 'silent' }),
      isLeading: () => true,
      intervalMs: 60_000,
    });
  }

  it('journals the strategy’s closed positions once, with their signal, page after page, and leaves another source’s alone', async () => {
    const theirs = [
      deal({ ticket: '31', position: '31', entry: 'in', source: 'tradingview', comment: 'tradingview:0123456789abcdef01' }),
      deal({ ticket: '32', position: '31', entry: 'out', side: 'sell', profit: '5.00', reason: 'client' }),
    ];
    const open = [deal({ ticket: '41', position: '41', entry: 'in' })];
    const journal = await journalOver([...STOPPED, ...theirs, ...open]);
    expect(await journal.sync()).toBe(1);
    expect(await journal.sync()).toBe(0);
    const trades = (await stores!.journal.page({ account: 'live' }, 10)).trades;
    expect(trades.map((t) => [t.id, t.exit_reason, t.pnl])).toEqual([['live:11', 'stop', -20.7]]);
    expect(trades[0]!.signal_id).not.toBeNull();
  });

  it('journals a position held longer than one read of the deals takes (31 days), reading back to its signal', async () => {
    const opened = MONDAY_NOON - 50 * 86_400_000;
    const held = [{ ...STOPPED[0]!, time: iso(opened) }, STOPPED[1]!];
    const journal = await journalOver(held, { generated_at: iso(opened) });
    expect(await journal.sync()).toBe(1);
    const [trade] = (await stores!.journal.page({ account: 'live' }, 10)).trades;
    expect(trade).toMatchObject({ id: 'live:11', entry_time: iso(opened), exit_reason: 'stop', pnl: -20.7 });
    // Two ranges were read for it: the last 31 days, then back to a day before its signal, and no further.
    const reads = execution!.requests.filter((r) => r.url.startsWith('/v1/deals') && r.url.includes('position=11'));
    expect(reads.map((r) => new URL(r.url, 'http://x').searchParams.get('from'))).toEqual([
      iso(MONDAY_NOON + 7_200_000 + 1 - 31 * 86_400_000),
      iso(opened - 86_400_000),
    ]);
  });
});
