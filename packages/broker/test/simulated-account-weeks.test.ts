import { describe, expect, it, vi } from 'vitest';
import type { AccountTransaction } from '../src/account.js';
import { SimulatedAccount } from '../src/simulated/account.js';
import { WEDNESDAY_NOON, makeMarket } from './fixtures.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** The weekly opens around the fixtures' Wednesday, 2026-01-07: Sunday 22:00 UTC. */
const SUNDAY_OPEN = Date.UTC(2026, 0, 4, 22);
const NEXT_SUNDAY_OPEN = SUNDAY_OPEN + 7 * DAY;
const FRIDAY_CLOSE = SUNDAY_OPEN + 5 * DAY;
/** Both accounts of a comparison open at the same instant (the default depends on when one starts). */
const OPENED_AT = Date.UTC(2025, 11, 31);

/** An account that has run since the fixtures' Wednesday and polled its changes every `pollMs`, with what it saw. */
async function runningAccount(untilMs: number, pollMs = 6 * HOUR) {
  const { market, clock } = makeMarket();
  const account = new SimulatedAccount({ market, openedAt: OPENED_AT });
  const seen: AccountTransaction[] = [];
  let last = '0';
  for (;;) {
    const changes = await account.changesSince(last);
    seen.push(...changes.transactions);
    last = changes.lastTransactionId;
    if (clock.now() >= untilMs) return { account, seen, clock };
    clock.advance(Math.min(pollMs, untilMs - clock.now()));
  }
}

/** An account started at `atMs`, as after a restart. */
function startedAt(atMs: number) {
  const { market, clock } = makeMarket();
  clock.advance(atMs - clock.now());
  return { account: new SimulatedAccount({ market, openedAt: OPENED_AT }), market };
}

describe('SimulatedAccount weeks', () => {
  it('tells the same history, with the same ids, whether it ran all along or started late', async () => {
    const end = WEDNESDAY_NOON + 17 * DAY;
    const { account, seen } = await runningAccount(end);
    const restarted = startedAt(end).account;
    expect((await restarted.changesSince('0')).transactions).toEqual(seen);
    expect(await restarted.summary()).toEqual(await account.summary());
  });

  it('lets the event loop turn between the weeks it replays for an old id', async () => {
    const { account } = startedAt(WEDNESDAY_NOON + 30 * 7 * DAY);
    let turns = 0;
    let isReading = true;
    const turn = () => {
      turns++;
      if (isReading) setImmediate(turn);
    };
    setImmediate(turn);
    const { transactions } = await account.changesSince('0');
    isReading = false;
    // Thirty weeks and more replayed, a turn after each but the last two (held in memory).
    expect(new Set(transactions.map((t) => Math.floor(Number(t.id) / 1000))).size).toBeGreaterThan(30);
    expect(turns).toBeGreaterThanOrEqual(28);
  });

  it('numbers each week from its own block of a thousand ids', async () => {
    const { account } = startedAt(WEDNESDAY_NOON + 14 * DAY);
    const { transactions } = await account.changesSince('0');
    const weekOf = (t: AccountTransaction) => Math.floor((Date.parse(t.time) - (SUNDAY_OPEN - 7 * DAY)) / (7 * DAY));
    expect(transactions.every((t) => Math.floor(Number(t.id) / 1000) === weekOf(t))).toBe(true);
    expect(transactions.map((t) => t.id)).toContain('1001');
  });

  it('is flat, with no order pending, from the minute before the weekly close', async () => {
    const { account } = startedAt(FRIDAY_CLOSE - 30_000);
    const details = await account.details();
    expect([details.trades, details.orders, details.positions]).toEqual([[], [], []]);
    const { transactions } = await account.changesSince('0');
    expect(Date.parse(transactions.at(-1)!.time)).toBeLessThanOrEqual(FRIDAY_CLOSE - 60_000);
  });

  it('settles back to the opening balance when the next week opens', async () => {
    const { account } = startedAt(NEXT_SUNDAY_OPEN);
    const summary = await account.summary();
    expect(summary).toMatchObject({ balance: '100000.0000', realizedPL: '0.0000', lastTransactionId: '2001' });
    const [settlement] = (await account.changesSince('2000')).transactions;
    expect(settlement).toMatchObject({
      id: '2001',
      type: 'TRANSFER_FUNDS',
      reason: 'ADJUSTMENT',
      accountBalance: '100000.0000',
      time: new Date(NEXT_SUNDAY_OPEN).toISOString(),
    });
  });

  it('answers changes since an id of a week it no longer holds, exactly', async () => {
    const end = WEDNESDAY_NOON + 21 * DAY;
    const { account, seen } = await runningAccount(end, DAY);
    const since = seen.find((t) => Number(t.id) > 1005)!.id;
    const { transactions } = await account.changesSince(since);
    expect(transactions).toEqual(seen.filter((t) => Number(t.id) > Number(since)));
  });

  it('holds only the current and the previous week in memory', async () => {
    const end = WEDNESDAY_NOON + 35 * DAY;
    const { account, seen } = await runningAccount(end, DAY);
    const currentWeek = Math.floor(Number((await account.summary()).lastTransactionId) / 1000);
    expect(account.retainedTransactionCount).toBe(seen.filter((t) => Number(t.id) > (currentWeek - 1) * 1000).length);
    expect(account.retainedTransactionCount).toBeLessThan(seen.length / 2);
  });

  it('prices only the current week on its first read, however old the account is', async () => {
    const { market, clock } = makeMarket();
    clock.advance(Date.UTC(2026, 10, 16, 3) - clock.now());
    const account = new SimulatedAccount({ market });
    const lookups = vi.spyOn(market, 'lastTick');
    const summary = await account.summary();
    expect(Number(summary.lastTransactionId)).toBeGreaterThan(45_000);
    expect(lookups.mock.calls.length).toBeLessThan(100);
  });
});
