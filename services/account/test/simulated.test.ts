import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSimulated, type Harness } from './helpers.js';

const DECIMAL = /^-?\d+(\.\d+)?$/;
const HOUR_MS = 3_600_000;

describe('account service on the simulated account (the default broker)', () => {
  let h: Harness;

  beforeEach(async () => {
    h = await startSimulated();
  });

  afterEach(async () => {
    await h.close();
  });

  it('answers a summary with decimals as strings and stores it as a snapshot', async () => {
    const res = await h.get('/api/v1/account/summary');
    expect(res.statusCode).toBe(200);
    const { account, snapshot } = res.json();
    expect(account).toMatchObject({ currency: 'USD', asOf: '2026-01-05T12:00:00.000Z', lastTransactionId: expect.stringMatching(/^\d+$/) });
    for (const field of ['balance', 'nav', 'unrealizedPL', 'realizedPL', 'marginUsed', 'marginAvailable', 'marginRate']) {
      expect(account[field], field).toMatch(DECIMAL);
    }
    const { snapshots } = (await h.get('/api/v1/account/snapshots')).json();
    expect(snapshots).toEqual([expect.objectContaining({ id: snapshot.id, kind: 'summary', broker: 'simulated', account })]);
  });

  it('answers details whose trades, positions and orders match the counts', async () => {
    h.clock.advance(6 * HOUR_MS);
    const { account } = (await h.get('/api/v1/account/details')).json();
    expect(account.trades).toHaveLength(account.openTradeCount);
    expect(account.positions).toHaveLength(account.openPositionCount);
    expect(account.orders).toHaveLength(account.pendingOrderCount);
  });

  it('answers the changes since a transaction id as simulated trades open and close', async () => {
    const since = (await h.get('/api/v1/account/summary')).json().account.lastTransactionId as string;
    h.clock.advance(24 * HOUR_MS);
    const changes = (await h.get(`/api/v1/account/changes?sinceTransactionId=${since}`)).json();
    expect(BigInt(changes.lastTransactionId)).toBeGreaterThan(BigInt(since));
    expect(changes.transactions.length).toBeGreaterThan(0);
    expect(changes.transactions.every((t: { id: string }) => BigInt(t.id) > BigInt(since))).toBe(true);
    expect(changes.tradesOpened.length + changes.tradesClosed.length).toBeGreaterThan(0);
    const next = (await h.get(`/api/v1/account/changes?sinceTransactionId=${changes.lastTransactionId}`)).json();
    expect(next.transactions).toEqual([]);
  });

  it('answers 404 transaction_not_found past the last transaction', async () => {
    const res = await h.get('/api/v1/account/changes?sinceTransactionId=99999999');
    expect(res.statusCode).toBe(404);
    expect(res.json().code).toBe('transaction_not_found');
  });

  it('lists the simulated market instruments, cached', async () => {
    const first = (await h.get('/api/v1/account/instruments')).json();
    const second = (await h.get('/api/v1/account/instruments?instruments=EUR_USD')).json();
    expect(first.instruments.map((i: { name: string }) => i.name)).toContain('XAU_USD');
    expect(second).toMatchObject({ cached: true, instruments: [{ name: 'EUR_USD', type: 'CURRENCY', pipLocation: -4 }] });
  });

  it('is ready with every check passing', async () => {
    const res = await h.get('/health/ready', {});
    expect(res.statusCode).toBe(200);
    expect(res.json().checks.configuration.detail).toContain('simulated');
  });
});

describe('the simulated account settings', () => {
  it('open the account with SIM_ACCOUNT_BALANCE in SIM_ACCOUNT_CURRENCY', async () => {
    const h = await startSimulated({ env: { SIM_ACCOUNT_BALANCE: '2500.50', SIM_ACCOUNT_CURRENCY: 'EUR' } });
    const summary = (await h.get('/api/v1/account/summary')).json().account;
    const changes = (await h.get('/api/v1/account/changes?sinceTransactionId=0')).json();
    await h.close();
    expect(summary.currency).toBe('EUR');
    expect(changes.transactions.find((t: { type: string }) => t.type === 'TRANSFER_FUNDS')).toMatchObject({ accountBalance: '2500.5000' });
  });
});
