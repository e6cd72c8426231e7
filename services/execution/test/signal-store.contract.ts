/**
 * The contract the SignalStore keeps on every engine (store.test.ts on SQLite,
 * postgres-store.process.test.ts on a real PostgreSQL server). Its group commits, SQLite's alone,
 * are counted in store.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ActionClaim, ActionOutcome } from '../src/action-store.js';
import { NO_TICKETS } from '../src/outcome.js';
import type { AbandonedAnswer, SignalClaim, SignalFilter, SignalOutcome, SignalStore } from '../src/store.js';

/** Opens a store on one database as the replica named; every call is another connection to the same data. */
export type OpenStore = (replicaId: string) => Promise<SignalStore>;

export interface SignalStoreHarness {
  /** A fresh, empty database. */
  database(): Promise<OpenStore>;
}

const at = (second: number) => `2026-01-05T12:00:${String(second).padStart(2, '0')}.000Z`;

export const claim = (signalId: string, fields: Partial<SignalClaim> = {}): SignalClaim => ({
  signalId,
  payloadHash: 'h1',
  requestJson: '{"volume":"0.10"}',
  requestId: 'req-1',
  orderComment: 'manual:0123456789abcdef0123',
  symbol: 'EURUSD',
  source: 'manual',
  receivedAt: at(0),
  leaseExpiresAt: '2026-01-05T12:01:05.000Z',
  ...fields,
});

export const filled: SignalOutcome = {
  state: 'filled',
  httpStatus: 200,
  responseBody: '{"state":"filled"}',
  tickets: { order: '1', deal: '2', position: '1' },
  result: { retcode: 10009, retcode_name: 'TRADE_RETCODE_DONE', requested_volume: '0.10', filled_volume: '0.10', price: '1.1', broker_comment: 'done' },
  error: null,
  completedAt: '2026-01-05T12:00:01.000Z',
};

const UNKNOWN_ERROR = { code: 'execution_outcome_unknown', message: 'interrupted' };
const unknownAnswer: AbandonedAnswer = (signal) => ({ httpStatus: 503, responseBody: `{"request":"${signal.requestId}"}`, error: UNKNOWN_ERROR });

export function signalStoreContract(name: string, harness: SignalStoreHarness): void {
  describe(`signal store contract: ${name}`, () => {
    const opened: SignalStore[] = [];
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((store) => store.close()));
    });

    async function database(): Promise<OpenStore> {
      const open = await harness.database();
      return async (replicaId) => {
        const store = await open(replicaId);
        opened.push(store);
        return store;
      };
    }

    async function store(replicaId = 'a'): Promise<SignalStore> {
      return (await database())(replicaId);
    }

    describe('claims', () => {
      it('gives exactly one of 100 simultaneous identical claims; the others see it processing', async () => {
        const s = await store();
        const results = await Promise.all(Array.from({ length: 100 }, () => s.claim(claim('x'))));
        expect(results.filter((r) => r.claimed)).toHaveLength(1);
        const losers = results.filter((r) => !r.claimed);
        expect(losers.map((r) => r.existing)).toEqual(Array(99).fill({ payloadHash: 'h1', state: 'processing', httpStatus: null, responseBody: null }));
      });

      it('gives exactly one of 100 simultaneous identical claims spread over two replicas', async () => {
        const open = await database();
        const replicas = [await open('a'), await open('b')];
        const results = await Promise.all(Array.from({ length: 100 }, (_, i) => replicas[i % 2]!.claim(claim('x'))));
        expect(results.filter((r) => r.claimed)).toHaveLength(1);
        expect((await replicas[0]!.find('x'))?.state).toBe('processing');
      });

      it('hands a later claim the stored hash, state and exact answer', async () => {
        const s = await store();
        await s.claim(claim('x'));
        await s.complete('x', filled);
        expect(await s.claim(claim('x', { payloadHash: 'h2' }))).toEqual({
          claimed: false,
          existing: { payloadHash: 'h1', state: 'filled', httpStatus: 200, responseBody: '{"state":"filled"}' },
        });
      });

      it('tells what is stored under an id without claiming it', async () => {
        const s = await store();
        expect(await s.existing('x')).toBeUndefined();
        await s.claim(claim('x'));
        expect(await s.existing('x')).toEqual({ payloadHash: 'h1', state: 'processing', httpStatus: null, responseBody: null });
        expect(await s.find('y')).toBeUndefined();
      });

      it('releases its own claim so the id can be claimed again', async () => {
        const s = await store();
        await s.claim(claim('x'));
        await s.release('x');
        expect(await s.claim(claim('x'))).toEqual({ claimed: true });
      });

      it("never releases another replica's claim", async () => {
        const open = await database();
        const [a, b] = [await open('a'), await open('b')];
        await a.claim(claim('x'));
        await b.release('x');
        expect((await a.find('x'))?.state).toBe('processing');
      });
    });

    describe('outcomes', () => {
      it('reads back the record with the request as received, tickets, result and timestamps', async () => {
        const s = await store();
        await s.claim(claim('x'));
        await s.complete('x', filled);
        expect(await s.find('x')).toEqual({
          signal_id: 'x',
          state: 'filled',
          request: { volume: '0.10' },
          order_comment: 'manual:0123456789abcdef0123',
          tickets: filled.tickets,
          result: filled.result,
          error: null,
          http_status: 200,
          reconciliation: null,
          received_at: at(0),
          completed_at: '2026-01-05T12:00:01.000Z',
          updated_at: '2026-01-05T12:00:01.000Z',
        });
      });

      it('never completes a signal twice', async () => {
        const s = await store();
        await s.claim(claim('x'));
        await s.complete('x', filled);
        await expect(s.complete('x', { ...filled, state: 'rejected' })).rejects.toThrow(/not processing/);
        expect((await s.find('x'))?.state).toBe('filled');
      });

      it('keeps claims and outcomes across a reopen', async () => {
        const open = await database();
        const first = await open('a');
        await first.claim(claim('x'));
        await first.complete('x', filled);
        await first.claim(claim('y'));
        await first.close();
        const second = await open('a');
        expect((await second.find('x'))?.state).toBe('filled');
        expect((await second.find('y'))?.state).toBe('processing');
      });

      it('keeps a late result and a reconciliation on an unknown signal without changing its answer', async () => {
        const s = await store();
        await s.claim(claim('x'));
        await s.complete('x', { ...filled, state: 'unknown', httpStatus: 503, responseBody: '{"unknown":true}', tickets: NO_TICKETS, result: null });
        await s.recordLateResult('x', filled.tickets, filled.result!, '2026-01-05T12:05:00.000Z');
        await s.recordReconciliation('x', { checked_at: '2026-01-05T12:06:00.000Z', found: [] });
        expect(await s.find('x')).toMatchObject({
          state: 'unknown',
          http_status: 503,
          tickets: filled.tickets,
          result: filled.result,
          reconciliation: { checked_at: '2026-01-05T12:06:00.000Z', found: [] },
          updated_at: '2026-01-05T12:06:00.000Z',
        });
        expect(await s.claim(claim('x'))).toMatchObject({ existing: { responseBody: '{"unknown":true}' } });
      });

      it('is healthy while its database answers', async () => {
        expect(await (await store()).health()).toMatchObject({ ok: true });
      });
    });

    describe('restart recovery', () => {
      const restartAt = '2026-01-05T12:00:30.000Z';

      it('marks unknown the claims this replica left processing, even within their lease, with the answer it is given', async () => {
        const open = await database();
        const before = await open('a');
        await before.claim(claim('x', { requestId: 'req-x' }));
        await before.claim(claim('y'));
        await before.complete('y', filled);
        await before.close();
        const after = await open('a');
        expect(await after.failAbandoned(restartAt, unknownAnswer, { includeOwn: true })).toEqual([
          { signalId: 'x', requestId: 'req-x', orderComment: claim('x').orderComment },
        ]);
        expect(await after.find('x')).toMatchObject({
          state: 'unknown',
          http_status: 503,
          error: UNKNOWN_ERROR,
          tickets: NO_TICKETS,
          result: null,
          completed_at: restartAt,
        });
        expect(await after.existing('x')).toMatchObject({ responseBody: '{"request":"req-x"}' });
        expect((await after.find('y'))?.state).toBe('filled');
      });

      it("leaves a live replica's claim within its lease alone, and that replica completes it", async () => {
        const open = await database();
        const [a, b] = [await open('a'), await open('b')];
        await b.claim(claim('x'));
        expect(await a.failAbandoned(restartAt, unknownAnswer, { includeOwn: true })).toEqual([]);
        await b.complete('x', filled);
        expect((await a.find('x'))?.state).toBe('filled');
      });

      it("takes over another replica's claim once its lease has ended", async () => {
        const open = await database();
        const [a, b] = [await open('a'), await open('b')];
        await b.claim(claim('x', { leaseExpiresAt: '2026-01-05T12:00:20.000Z' }));
        await b.claim(claim('y', { leaseExpiresAt: restartAt }));
        await b.claim(claim('z', { leaseExpiresAt: '2026-01-05T12:00:30.001Z' }));
        const taken = await a.failAbandoned(restartAt, unknownAnswer, { includeOwn: true });
        expect(taken.map((s) => s.signalId).sort()).toEqual(['x', 'y']);
        expect((await a.find('z'))?.state).toBe('processing');
        await expect(b.complete('x', filled)).rejects.toThrow(/not processing/);
        expect((await a.find('x'))?.state).toBe('unknown');
      });
    });

    describe('while running', () => {
      const sweepAt = '2026-01-05T12:01:30.000Z';

      it("takes over other replicas' claims past their lease, never its own in flight", async () => {
        const open = await database();
        const [a, b] = [await open('a'), await open('b')];
        await a.claim(claim('mine'));
        await b.claim(claim('dead'));
        await b.claim(claim('live', { leaseExpiresAt: '2026-01-05T12:02:00.000Z' }));
        expect((await a.failAbandoned(sweepAt, unknownAnswer, { includeOwn: false })).map((s) => s.signalId)).toEqual(['dead']);
        expect((await a.find('mine'))?.state).toBe('processing');
        expect((await a.find('live'))?.state).toBe('processing');
        await a.complete('mine', filled);
        expect((await a.find('mine'))?.state).toBe('filled');
      });
    });

    describe('list', () => {
      it('reads newest received first, then by signal_id, and continues after the last row of a page', async () => {
        const s = await store();
        for (const [id, second] of [
          ['b', 1],
          ['a', 2],
          ['c', 2],
          ['d', 3],
          ['e', 2],
        ] as const)
          await s.claim(claim(id, { receivedAt: at(second) }));
        const first = await s.list({}, 3);
        expect(first.records.map((r) => r.signal_id)).toEqual(['d', 'e', 'c']);
        expect(first.next).toEqual({ receivedAt: at(2), signalId: 'c' });
        const second = await s.list({ after: first.next }, 3);
        expect(second.records.map((r) => r.signal_id)).toEqual(['a', 'b']);
        expect(second.next).toBeUndefined();
      });

      it('orders ids and times by their bytes, whatever the database locale', async () => {
        const s = await store();
        const ids = ['a-b', 'a_b', 'aB', 'ab', 'A-b', 'a.b'];
        for (const id of ids) await s.claim(claim(id));
        expect((await s.list({}, 10)).records.map((r) => r.signal_id)).toEqual([...ids].sort().reverse());
      });

      it('selects by state, symbol, source and received_at from (inclusive) to (exclusive)', async () => {
        const s = await store();
        await s.claim(claim('a', { receivedAt: at(1), symbol: 'GBPUSD' }));
        await s.claim(claim('b', { receivedAt: at(2), source: 'tradingview' }));
        await s.claim(claim('c', { receivedAt: at(3) }));
        await s.complete('c', filled);
        const idsOf = async (filter: SignalFilter) => (await s.list(filter, 10)).records.map((r) => r.signal_id);
        expect(await idsOf({ state: 'filled' })).toEqual(['c']);
        expect(await idsOf({ symbol: 'EURUSD' })).toEqual(['c', 'b']);
        expect(await idsOf({ source: 'manual', state: 'processing' })).toEqual(['a']);
        expect(await idsOf({ receivedFrom: at(2), receivedBefore: at(3) })).toEqual(['b']);
        expect(await idsOf({ symbol: 'EURUSD', after: { receivedAt: at(3), signalId: 'c' } })).toEqual(['b']);
      });

      it('pages through a filter with no row missed or repeated', async () => {
        const s = await store();
        for (let i = 0; i < 25; i++)
          await s.claim(claim(`id-${String(i).padStart(2, '0')}`, { receivedAt: at(i % 7), symbol: i % 3 === 0 ? 'GBPUSD' : 'EURUSD' }));
        const seen: string[] = [];
        let page = await s.list({ symbol: 'EURUSD' }, 4);
        seen.push(...page.records.map((r) => r.signal_id));
        while (page.next) {
          page = await s.list({ symbol: 'EURUSD', after: page.next }, 4);
          seen.push(...page.records.map((r) => r.signal_id));
        }
        const all = (await s.list({ symbol: 'EURUSD' }, 100)).records.map((r) => r.signal_id);
        expect(seen).toEqual(all);
        expect(all).toHaveLength(16);
      });
    });

    describe('actions', () => {
      const action = (actionId: string, fields: Partial<ActionClaim> = {}): ActionClaim => ({
        actionId,
        idempotencyKey: actionId,
        kind: 'close',
        ticket: '7',
        payloadHash: 'h1',
        requestJson: '{}',
        requestId: 'req-1',
        orderComment: 'close:0123456789abcdef0123456',
        receivedAt: at(0),
        leaseExpiresAt: '2026-01-05T12:01:05.000Z',
        ...fields,
      });
      const done: ActionOutcome = { state: 'done', httpStatus: 200, responseBody: '{"state":"done"}', result: null, error: null, completedAt: at(1) };

      it('gives exactly one of 100 simultaneous identical claims spread over two replicas', async () => {
        const open = await database();
        const [a, b] = [await open('a'), await open('b')];
        const results = await Promise.all(Array.from({ length: 100 }, (_, i) => (i % 2 === 0 ? a : b).actions.claim(action('k'))));
        expect(results.filter((r) => r.claimed)).toHaveLength(1);
      });

      it('stores the outcome once and answers it to a later claim', async () => {
        const s = await store();
        await s.actions.claim(action('k'));
        await s.actions.complete('k', done);
        await expect(s.actions.complete('k', done)).rejects.toThrow();
        expect(await s.actions.claim(action('k'))).toEqual({
          claimed: false,
          existing: { payloadHash: 'h1', state: 'done', httpStatus: 200, responseBody: '{"state":"done"}' },
        });
      });

      it('reads back every record under a key, a flatten plan and its positions, oldest first', async () => {
        const s = await store();
        await s.actions.claim(action('f', { kind: 'close_all', ticket: '', requestJson: '{"tickets":["1","2"]}' }));
        await s.actions.claim(action('f#1', { idempotencyKey: 'f', ticket: '1', receivedAt: at(1) }));
        await s.actions.claim(action('other'));
        expect((await s.actions.byKey('f')).map((r) => [r.actionId, r.kind, r.ticket])).toEqual([
          ['f', 'close_all', ''],
          ['f#1', 'close', '1'],
        ]);
      });

      it('fails its own claims at start-up and others past their lease, but never a flatten plan', async () => {
        const open = await database();
        const [a, b] = [await open('a'), await open('b')];
        await b.actions.claim(action('b-1'));
        await a.actions.claim(action('a-1'));
        await a.actions.claim(action('plan', { kind: 'close_all', ticket: '' }));
        const answer = () => ({ httpStatus: 503, responseBody: '{}', error: UNKNOWN_ERROR });
        expect((await a.actions.failAbandoned(at(30), answer, { includeOwn: true })).map((x) => x.actionId)).toEqual(['a-1']);
        expect((await a.actions.failAbandoned('2026-01-05T12:02:00.000Z', answer, { includeOwn: false })).map((x) => x.actionId)).toEqual(['b-1']);
        expect((await a.actions.existing('plan'))?.state).toBe('processing');
      });

      it('keeps what the terminal showed of an unknown action on its record, and only of an unknown one', async () => {
        const s = await store();
        await s.actions.claim(action('lost', { ticket: '7' }));
        await s.actions.claim(action('running', { ticket: '8' }));
        const answer = () => ({ httpStatus: 503, responseBody: '{}', error: UNKNOWN_ERROR });
        const failed = await s.actions.failAbandoned(at(30), answer, { includeOwn: true });
        expect(failed.sort((x, y) => x.actionId.localeCompare(y.actionId))).toEqual([
          expect.objectContaining({ actionId: 'lost', kind: 'close', ticket: '7' }),
          expect.objectContaining({ actionId: 'running', kind: 'close', ticket: '8' }),
        ]);
        await s.actions.claim(action('live', { ticket: '9' }));
        const seen = {
          checked_at: at(31),
          found: [{ kind: 'deal' as const, ticket: '70', symbol: 'EURUSD', type: 'sell', volume: '0.10', price: '1.08000', state: 'filled', time: at(29) }],
          open: null,
        };
        await s.actions.recordReconciliation('lost', seen);
        await s.actions.recordReconciliation('live', { ...seen, found: [] });
        const records = new Map((await s.actions.list(undefined, 10)).records.map((r) => [r.action_id, r]));
        expect(records.get('lost')).toMatchObject({ state: 'unknown', reconciliation: seen, updated_at: at(31) });
        expect(records.get('running')?.reconciliation).toBeNull();
        expect(records.get('live')).toMatchObject({ state: 'processing', reconciliation: null });
      });

      it('lists one ticket’s actions, newest first and paged, a flatten’s position among them and its plan not', async () => {
        const s = await store();
        await s.actions.claim(action('close-7', { ticket: '7', receivedAt: at(1) }));
        await s.actions.claim(action('close-8', { ticket: '8', receivedAt: at(2) }));
        await s.actions.claim(action('f', { kind: 'close_all', ticket: '', receivedAt: at(3) }));
        await s.actions.claim(action('f#7', { idempotencyKey: 'f', ticket: '7', receivedAt: at(3) }));
        await s.actions.claim(action('modify-7', { kind: 'modify', ticket: '7', receivedAt: at(4) }));
        const first = await s.actions.list(undefined, 2, '7');
        expect(first.records.map((r) => r.action_id)).toEqual(['modify-7', 'f#7']);
        const second = await s.actions.list(first.next, 2, '7');
        expect(second.records.map((r) => r.action_id)).toEqual(['close-7']);
        expect(second.next).toBeUndefined();
        expect((await s.actions.list(undefined, 10, '9')).records).toEqual([]);
      });

      it('pages the list newest first without a gap or a duplicate', async () => {
        const s = await store();
        for (let i = 0; i < 9; i++) await s.actions.claim(action(`k-${i}`, { receivedAt: at(i % 4) }));
        const seen: string[] = [];
        let page = await s.actions.list(undefined, 4);
        seen.push(...page.records.map((r) => r.action_id));
        while (page.next) {
          page = await s.actions.list(page.next, 4);
          seen.push(...page.records.map((r) => r.action_id));
        }
        expect(seen).toEqual((await s.actions.list(undefined, 100)).records.map((r) => r.action_id));
        expect(new Set(seen).size).toBe(9);
      });
    });
  });
}
