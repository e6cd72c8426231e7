import { ExecutionClient } from '@fxdesk/client';
import { createLogger } from '@fxdesk/core';
import type { ActionRecord, Deal } from '@fxdesk/schemas';
import { afterEach, describe, expect, it } from 'vitest';
import { closeKey, stopKey } from '../src/exit-marks.js';
import { LiveJournal } from '../src/live-journal.js';
import { openStrategyStores, type StrategyStores } from '../src/store/index.js';
import { actionRecord, fakeService, type FakeService } from './fake-service.js';
import { MONDAY_NOON } from './helpers.js';

const iso = (ms: number) => new Date(ms).toISOString();

/** Position 11 of the strategy (a LONG of 0.10 lots), closed by a deal of `reason` (`expert`: a close someone asked for). */
function closedBy(reason: Deal['reason']): Deal[] {
  const deal = (fields: Partial<Deal>): Deal => ({
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
    ...fields,
  });
  return [
    deal({}),
    deal({
      ticket: '12',
      order: '12',
      side: 'sell',
      entry: 'out',
      price: '1.08600',
      profit: '10.00',
      comment: 'close:0123456789abcdef01',
      reason,
      time: iso(MONDAY_NOON + 60_000),
    }),
  ];
}

describe('the live journal’s exit reasons, from the execution service’s records', () => {
  let stores: StrategyStores | undefined;
  let execution: FakeService | undefined;
  let clients: ExecutionClient[] = [];
  afterEach(async () => {
    for (const client of clients) await client.close();
    clients = [];
    await execution?.close();
    await stores?.close();
    execution = undefined;
    stores = undefined;
  });

  /** A live journal over the deals and the action records of position 11, on a store of its own: as a process started afresh has it. */
  async function journalOf(deals: Deal[], actions: ActionRecord[]): Promise<LiveJournal> {
    await execution?.close();
    await stores?.close();
    stores = await openStrategyStores();
    execution = await fakeService((request) =>
      request.url.startsWith('/v1/actions?ticket=11&')
        ? { status: 200, body: { actions: [...actions].reverse(), next_cursor: null } }
        : { status: 200, body: { deals, next_cursor: null } },
    );
    const client = new ExecutionClient({ baseUrl: execution.url, apiKey: 'exec-key-123', timeoutMs: 2000 });
    clients.push(client);
    return new LiveJournal({
      execution: client,
      journal: stores.journal,
      signals: stores.signals,
      source: 'fxdesk-strategy',
      now: () => MONDAY_NOON + 3_600_000,
      logger: createLogger({ name: 'test', level: 'silent' }),
      isLeading: () => true,
      intervalMs: 60_000,
    });
  }

  async function reasonOf(deals: Deal[], actions: ActionRecord[]): Promise<string | undefined> {
    const journal = await journalOf(deals, actions);
    expect(await journal.sync()).toBe(1);
    return (await stores!.journal.page({ account: 'live' }, 10)).trades[0]?.exit_reason;
  }

  const at = (second: number) => ({ received_at: iso(MONDAY_NOON + second * 1000) });

  it('names a flatten’s close flatten, with no memory of the flatten in this process', async () => {
    expect(await reasonOf(closedBy('expert'), [actionRecord('11', 'strategy-stop-1767614460000#11', { idempotency_key: 'strategy-stop-1767614460000' })])).toBe(
      'flatten',
    );
  });

  it('names the exit rules’ time and opposite-signal closes by their keys, and anyone else’s close manual', async () => {
    expect(await reasonOf(closedBy('expert'), [actionRecord('11', closeKey('time', '11'))])).toBe('time');
    expect(await reasonOf(closedBy('expert'), [actionRecord('11', closeKey('opposite_signal', '11'))])).toBe('opposite_signal');
    expect(await reasonOf(closedBy('expert'), [actionRecord('11', 'console-9f0c2d4e')])).toBe('manual');
  });

  it('names a hit of a stop the exit rules moved by the rule that moved it last', async () => {
    const moved = [
      actionRecord('11', stopKey('break_even', '11', 1_767_614_400), { kind: 'modify', ...at(1) }),
      actionRecord('11', stopKey('trailing', '11', 1_767_614_700), { kind: 'modify', ...at(2) }),
    ];
    expect(await reasonOf(closedBy('sl'), moved)).toBe('trailing');
    expect(await reasonOf(closedBy('sl'), [])).toBe('stop');
  });

  it('journals a flatten’s positions as soon as the flatten has answered, without waiting for the next sync', async () => {
    const journal = await journalOf(closedBy('expert'), [actionRecord('11', 'console-0123#11', { idempotency_key: 'console-0123' })]);
    await journal.flatten(async () => 'answered');
    // The sync the flatten began (a sync asked for while one runs is that one).
    await journal.sync();
    expect((await stores!.journal.page({ account: 'live' }, 10)).trades.map((t) => [t.id, t.exit_reason])).toEqual([['live:11', 'flatten']]);
  });
});
