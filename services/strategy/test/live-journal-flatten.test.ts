import { ExecutionClient, type ActionOutcome } from '@fxdesk/client';
import { createLogger } from '@fxdesk/core';
import type { ClosePositionsAnswer, Deal } from '@fxdesk/schemas';
import { afterEach, describe, expect, it } from 'vitest';
import { LiveJournal } from '../src/live-journal.js';
import { openStrategyStores, type SignalStore, type StrategyStores } from '../src/store/index.js';
import { fakeService, type FakeService } from './fake-service.js';
import { MONDAY_NOON } from './helpers.js';

const iso = (ms: number) => new Date(ms).toISOString();

/** Position 11 of the strategy (a LONG of 0.10 lots), closed by the execution service at its request: the deals say `expert`, not why. */
const CLOSED: Deal[] = [
  {
    ticket: '11',
    order: '11',
    position: '11',
    symbol: 'EURUSD',
    side: 'buy',
    entry: 'in',
    volume: '0.10',
    price: '1.08500',
    profit: '0.00',
    commission: '0.00',
    swap: '0.00',
    magic: 880001,
    comment: 'fxdesk-strategy:0123456789abcdef01',
    reason: 'expert',
    source: 'fxdesk-strategy',
    time: iso(MONDAY_NOON),
  },
  {
    ticket: '12',
    order: '12',
    position: '11',
    symbol: 'EURUSD',
    side: 'sell',
    entry: 'out',
    volume: '0.10',
    price: '1.08600',
    profit: '10.00',
    commission: '0.00',
    swap: '0.00',
    magic: 880001,
    comment: 'close:0123456789abcdef01',
    reason: 'expert',
    source: 'fxdesk-strategy',
    time: iso(MONDAY_NOON + 60_000),
  },
];

/** The execution service's answer to a flatten that closed position 11. */
const FLATTENED: ActionOutcome<ClosePositionsAnswer> = {
  replayed: false,
  result: {
    idempotency_key: 'console-0123',
    positions: [
      {
        ticket: '11',
        state: 'done',
        http_status: 200,
        answer: {
          action_id: 'console-0123#11',
          kind: 'close',
          ticket: '11',
          state: 'done',
          result: { retcode: 10009, retcode_name: 'TRADE_RETCODE_DONE', order: '12', deal: '12', volume: '0.10', price: '1.08600', broker_comment: 'done' },
        },
      },
    ],
  },
};

describe('LiveJournal.flatten', () => {
  let stores: StrategyStores | undefined;
  let execution: FakeService | undefined;
  let client: ExecutionClient | undefined;
  afterEach(async () => {
    await client?.close();
    await execution?.close();
    await stores?.close();
  });

  /** A live journal over the execution service's deals of position 11; `signals` stands in for the signal store. */
  async function journalOver(signals: (store: SignalStore) => SignalStore = (store) => store): Promise<LiveJournal> {
    stores = await openStrategyStores();
    // Its only reads are the deals: of the range, then of the position.
    execution = await fakeService(() => ({ status: 200, body: { deals: CLOSED, next_cursor: null } }));
    client = new ExecutionClient({ baseUrl: execution.url, apiKey: 'exec-key-123', timeoutMs: 2000 });
    return new LiveJournal({
      execution: client,
      journal: stores.journal,
      signals: signals(stores.signals),
      source: 'fxdesk-strategy',
      now: () => MONDAY_NOON + 3_600_000,
      logger: createLogger({ name: 'test', level: 'silent' }),
      isLeading: () => true,
      intervalMs: 60_000,
    });
  }

  const reasons = async () => (await stores!.journal.page({ account: 'live' }, 10)).trades.map((t) => [t.id, t.exit_reason]);

  it('journals what the flatten closed with the reason flatten, without waiting for the next sync', async () => {
    const journal = await journalOver();
    expect(await journal.flatten(async () => FLATTENED)).toBe(FLATTENED);
    // The sync the flatten began (a sync asked for while one runs is that one).
    await journal.sync();
    expect(await reasons()).toEqual([['live:11', 'flatten']]);
  });

  it('journals a position as flatten when a sync read its closing deals before the flatten that closed it had answered', async () => {
    let answer: (outcome: ActionOutcome<ClosePositionsAnswer>) => void = () => undefined;
    // The flatten answers only after the sync has read the deals and the signals, the last it reads before it journals.
    const journal = await journalOver((store) =>
      Object.assign(Object.create(store) as SignalStore, {
        byPosition: (sinceMs: number) => {
          setImmediate(() => answer(FLATTENED));
          return store.byPosition(sinceMs);
        },
      }),
    );
    const flattened = journal.flatten(() => new Promise<ActionOutcome<ClosePositionsAnswer>>((resolve) => (answer = resolve)));
    expect(await journal.sync()).toBe(1);
    await flattened;
    expect(await reasons()).toEqual([['live:11', 'flatten']]);
  });
});
