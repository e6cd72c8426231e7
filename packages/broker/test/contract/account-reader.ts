/**
 * The contract every AccountReader implementation passes: the simulated account, and each venue's
 * adapter against its local fake server.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AccountReader } from '../../src/account.js';
import { BrokerError, type BrokerErrorKind } from '../../src/errors.js';

export interface AccountReaderHarness {
  reader: AccountReader;
  /** An instrument the account lists, e.g. `EUR_USD`. */
  instrument: string;
  /** Makes account activity happen (trades opened and closed), so new transactions appear. */
  produceActivity(): Promise<void>;
  /** The venue behind the reader, cut off and back; absent for a reader with none (the simulated account). */
  venue?: {
    /** Makes the venue unreachable: what the reader sends gets no answer, or no link. */
    cut(): Promise<void>;
    /** Makes it reachable again, and lets the reader find it. */
    restore(): Promise<void>;
    /** What a read fails with meanwhile, as the reader documents it. */
    unreachableError: BrokerErrorKind;
    /** The reader's timeout, on the clock `advance` moves. */
    timeoutMs: number;
    advance(ms: number): Promise<void>;
  };
  teardown(): Promise<void>;
}

const DECIMAL = /^-?\d+(\.\d+)?$/;
const TRANSACTION_ID = /^\d+$/;

export function accountReaderContract(name: string, setup: () => Promise<AccountReaderHarness>): void {
  describe(`AccountReader contract: ${name}`, () => {
    let h: AccountReaderHarness;

    beforeEach(async () => {
      h = await setup();
    });

    afterEach(async () => {
      await h.teardown();
    });

    it('summarizes the account with decimals as strings', async () => {
      const s = await h.reader.summary();
      expect(s.id).not.toBe('');
      expect(s.currency).toMatch(/^[A-Z]{3}$/);
      for (const value of [s.balance, s.nav, s.unrealizedPL, s.realizedPL, s.marginUsed, s.marginAvailable, s.marginRate]) {
        expect(value).toMatch(DECIMAL);
      }
      expect(s.lastTransactionId).toMatch(TRANSACTION_ID);
      expect(Number.isNaN(Date.parse(s.asOf))).toBe(false);
    });

    it('reports a net asset value of balance plus unrealized P/L', async () => {
      const s = await h.reader.summary();
      expect(Number(s.nav)).toBeCloseTo(Number(s.balance) + Number(s.unrealizedPL), 3);
    });

    it('details the open trades, positions and pending orders its counts announce', async () => {
      await h.produceActivity();
      const d = await h.reader.details();
      expect(d.trades).toHaveLength(d.openTradeCount);
      expect(d.positions).toHaveLength(d.openPositionCount);
      expect(d.orders).toHaveLength(d.pendingOrderCount);
      for (const trade of d.trades) {
        expect(trade.currentUnits).toMatch(DECIMAL);
        expect(trade.price).toMatch(DECIMAL);
        expect(trade.unrealizedPL).toMatch(DECIMAL);
      }
    });

    it('lists tradable instruments in the normalized shape', async () => {
      const instruments = await h.reader.instruments();
      const one = instruments.find((i) => i.name === h.instrument);
      expect(one).toBeDefined();
      expect(Number.isInteger(one!.pipLocation)).toBe(true);
      expect(Number.isInteger(one!.displayPrecision)).toBe(true);
      expect(one!.marginRate).toMatch(DECIMAL);
      expect(one!.minimumTradeSize).toMatch(DECIMAL);
    });

    it('lists only the named instruments when asked for some', async () => {
      const instruments = await h.reader.instruments([h.instrument]);
      expect(instruments.map((i) => i.name)).toEqual([h.instrument]);
    });

    it('reports no changes since the last transaction', async () => {
      const { lastTransactionId } = await h.reader.summary();
      const changes = await h.reader.changesSince(lastTransactionId);
      expect(changes.transactions).toEqual([]);
      expect(changes.lastTransactionId).toBe(lastTransactionId);
    });

    it('reports the transactions that happened after a transaction id, oldest first', async () => {
      const before = (await h.reader.summary()).lastTransactionId;
      await h.produceActivity();
      const after = (await h.reader.summary()).lastTransactionId;
      const changes = await h.reader.changesSince(before);
      expect(changes.transactions.length).toBeGreaterThan(0);
      const ids = changes.transactions.map((t) => BigInt(t.id));
      expect(ids.every((id, i) => id > BigInt(before) && (i === 0 || id > ids[i - 1]!))).toBe(true);
      expect(changes.lastTransactionId).toBe(after);
      expect(changes.tradesOpened.length + changes.tradesClosed.length).toBeGreaterThan(0);
    });

    it('fails a read with its documented error, within its timeout, while the venue cannot be reached, and reads again once it is back', async (ctx) => {
      const venue = h.venue;
      if (!venue) return ctx.skip();
      const before = await h.reader.summary();
      await venue.cut();
      let outcome: unknown;
      const read = h.reader.summary().then(
        () => (outcome = 'answered'),
        (err: unknown) => (outcome = err),
      );
      // The clock moves a tenth of the timeout at a time, with real time between steps for the request to go out.
      const stepMs = venue.timeoutMs / 10;
      for (let waitedMs = 0; outcome === undefined && waitedMs <= venue.timeoutMs; waitedMs += stepMs) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        if (outcome === undefined) await venue.advance(stepMs);
      }
      // Past its timeout on the clock, the read has ended, or ends at once: nothing it waits for may outlast it.
      await Promise.race([read, new Promise((resolve) => setTimeout(resolve, 200))]);
      expect(outcome).toBeInstanceOf(BrokerError);
      expect((outcome as BrokerError).kind).toBe(venue.unreachableError);
      await venue.restore();
      expect((await h.reader.summary()).id).toBe(before.id);
    });

    it('refuses a transaction id beyond the last with not_found', async () => {
      const { lastTransactionId } = await h.reader.summary();
      const beyond = String(BigInt(lastTransactionId) + 1000n);
      const err = await h.reader.changesSince(beyond).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(BrokerError);
      expect((err as BrokerError).kind).toBe('not_found');
    });
  });
}
