import { ExecutionClient } from '@fxdesk/client';
import { createLogger } from '@fxdesk/core';
import type { Deal } from '@fxdesk/schemas';
import { afterEach, describe, expect, it } from 'vitest';
import { LiveJournal } from '../src/live-journal.js';
import { openStrategyStores, type StrategyStores } from '../src/store/index.js';
import { fakeService, nothingToRead, type FakeService } from './fake-service.js';
import { MONDAY_NOON } from './helpers.js';

const iso = (ms: number) => new Date(ms).toISOString();

/** A deal of position 21, a SHORT of 0.20 lots of GBPUSD closed at the strategy's request. */
const deal = (over: Pick<Deal, 'ticket' | 'entry' | 'side' | 'price' | 'profit' | 'comment' | 'time'>): Deal => ({
  order: over.ticket,
  position: '21',
  symbol: 'GBPUSD',
  volume: '0.20',
  commission: '0.00',
  swap: '0.00',
  magic: 880001,
  reason: 'expert',
  source: 'fxdesk-strategy',
  ...over,
});

/** In at 1.26863, out at 1.26889: 1.26889 × 0.2 / 0.2 is 1.2688899999999999 in floating point. */
const DEALS = [
  deal({ ticket: '21', entry: 'in', side: 'sell', price: '1.26863', profit: '0.00', comment: 'fxdesk-strategy:0123456789abcdef01', time: iso(MONDAY_NOON) }),
  deal({ ticket: '22', entry: 'out', side: 'buy', price: '1.26889', profit: '-5.20', comment: 'close:0123456789abcdef01', time: iso(MONDAY_NOON + 60_000) }),
];

describe('the live journal’s prices', () => {
  let stores: StrategyStores | undefined;
  let execution: FakeService | undefined;
  let client: ExecutionClient | undefined;
  afterEach(async () => {
    await client?.close();
    await execution?.close();
    await stores?.close();
  });

  it('journals the entry and exit of a position of one deal each at the prices the venue gave, not a float’s neighbour', async () => {
    stores = await openStrategyStores();
    execution = await fakeService((request) =>
      request.url.startsWith('/v1/actions') ? nothingToRead(request) : { status: 200, body: { deals: DEALS, next_cursor: null } },
    );
    client = new ExecutionClient({ baseUrl: execution.url, apiKey: 'exec-key-123', timeoutMs: 2000 });
    const journal = new LiveJournal({
      execution: client,
      journal: stores.journal,
      signals: stores.signals,
      source: 'fxdesk-strategy',
      now: () => MONDAY_NOON + 3_600_000,
      logger: createLogger({ name: 'test', level: 'silent' }),
      isLeading: () => true,
      intervalMs: 60_000,
    });
    expect(await journal.sync()).toBe(1);
    const [trade] = (await stores.journal.page({ account: 'live' }, 10)).trades;
    expect(trade).toMatchObject({ side: 'SHORT', volume_lots: 0.2, entry_price: 1.26863, exit_price: 1.26889, pnl: -5.2 });
    expect(String(trade?.exit_price)).toBe('1.26889');
  });
});
