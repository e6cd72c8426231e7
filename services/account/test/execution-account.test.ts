import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY, signal, simulatedApp, type SimulatedHarness } from '../../execution/test/helpers.js';
import { envelopeOf, startOnExecution, startSimulated, type Harness } from './helpers.js';

// The account service reading the very account the execution service's simulated terminal
// trades: the real execution app, in-process on a port, and the account app on its clock.
let execution: SimulatedHarness;
let account: Harness;

beforeAll(async () => {
  execution = await simulatedApp();
  const url = await execution.app.listen({ host: '127.0.0.1', port: 0 });
  account = await startOnExecution(url, API_KEY, execution.clock);
});

afterAll(async () => {
  await account?.close();
  await execution?.app.close();
});

const headers = { 'x-api-key': API_KEY };

async function terminal(url: string) {
  return (await execution.app.inject({ method: 'GET', url, headers })).json();
}

async function details() {
  return (await account.get('/api/v1/account/details')).json().account;
}

describe('the account of the execution service', () => {
  let ticket: string;
  let before: string;

  it('starts with the terminal’s money and nothing open', async () => {
    const [summary, money] = [(await account.get('/api/v1/account/summary')).json().account, await terminal('/v1/account')];
    expect(summary).toMatchObject({ currency: money.currency, balance: money.balance, nav: money.equity, marginUsed: money.margin, openTradeCount: 0 });
    expect(summary.marginAvailable).toBe(money.free_margin);
    before = summary.lastTransactionId;
  });

  it('shows an order the execution service filled as a trade and a position', async () => {
    const sent = await execution.app.inject({ method: 'POST', url: '/v1/signals', headers, payload: signal({ volume: '0.10', stop_loss: '1.00000' }) });
    expect(sent.statusCode).toBe(200);
    const [position] = (await terminal('/v1/positions')).positions;
    ticket = position.ticket;
    const view = await details();
    expect(view.trades).toEqual([
      expect.objectContaining({
        id: ticket,
        instrument: 'EUR_USD',
        currentUnits: '10000',
        price: Number(position.open_price).toFixed(5),
        stopLoss: '1.00000',
        takeProfit: null,
        unrealizedPL: position.profit,
      }),
    ]);
    expect(view.positions).toEqual([expect.objectContaining({ instrument: 'EUR_USD', long: expect.objectContaining({ units: '10000', tradeIds: [ticket] }) })]);
    expect(view).toMatchObject({ openTradeCount: 1, openPositionCount: 1, pendingOrderCount: 0, marginUsed: (await terminal('/v1/account')).margin });
  });

  it('lists the fill as the change since the id read before it, with the deal’s ticket as its id', async () => {
    const changes = (await account.get(`/api/v1/account/changes?sinceTransactionId=${before}`)).json();
    const [deal] = (await terminal(`/v1/deals?from=2026-01-05T00:00:00Z&to=2026-01-06T00:00:00Z`)).deals;
    expect(changes.tradesOpened.map((t: { id: string }) => t.id)).toEqual([ticket]);
    expect(changes.transactions).toEqual([
      expect.objectContaining({ id: deal.ticket, type: 'ORDER_FILL', instrument: 'EUR_USD', units: '10000', price: Number(deal.price).toFixed(5) }),
    ]);
    expect(changes.lastTransactionId).toBe(deal.ticket);
  });

  it('shows a resting order as a pending order in units', async () => {
    const limit = signal({ execution_type: 'limit', direction: 'sell', volume: '0.02', entry_price: '1.30000' });
    expect((await execution.app.inject({ method: 'POST', url: '/v1/signals', headers, payload: limit })).statusCode).toBe(200);
    const view = await details();
    expect(view.orders).toEqual([expect.objectContaining({ type: 'LIMIT', instrument: 'EUR_USD', units: '-2000', price: '1.30000', state: 'PENDING' })]);
    expect(view.pendingOrderCount).toBe(1);
  });

  it('drops a position the execution service closed, and lists it closed in the changes', async () => {
    const since = (await account.get('/api/v1/account/summary')).json().account.lastTransactionId as string;
    const closed = await execution.app.inject({ method: 'POST', url: `/v1/positions/${ticket}/close`, headers: { ...headers, 'idempotency-key': 'close-1' } });
    expect(closed.statusCode).toBe(200);
    expect((await details()).trades).toEqual([]);
    const changes = (await account.get(`/api/v1/account/changes?sinceTransactionId=${since}`)).json();
    expect(changes.tradesClosed).toEqual([expect.objectContaining({ id: ticket, currentUnits: '0', initialUnits: '10000' })]);
    expect(changes.positions).toEqual([expect.objectContaining({ instrument: 'EUR_USD', long: expect.objectContaining({ units: '0' }) })]);
  });

  it('lists a partial close as a reduced trade, the rest still open', async () => {
    const sent = await execution.app.inject({
      method: 'POST',
      url: '/v1/signals',
      headers,
      payload: signal({ symbol: 'GBPUSD', direction: 'sell', volume: '0.30' }),
    });
    const position = sent.json().tickets.position as string;
    const since = (await account.get('/api/v1/account/summary')).json().account.lastTransactionId as string;
    const part = await execution.app.inject({
      method: 'POST',
      url: `/v1/positions/${position}/close`,
      headers: { ...headers, 'idempotency-key': 'part-1' },
      payload: { volume: '0.10' },
    });
    expect(part.statusCode).toBe(200);
    const changes = (await account.get(`/api/v1/account/changes?sinceTransactionId=${since}`)).json();
    expect(changes.tradesReduced).toEqual([expect.objectContaining({ id: position, instrument: 'GBP_USD', currentUnits: '-20000' })]);
    expect(changes.tradesClosed).toEqual([]);
    expect((await details()).positions).toEqual(
      expect.arrayContaining([expect.objectContaining({ instrument: 'GBP_USD', short: expect.objectContaining({ units: '-20000', tradeIds: [position] }) })]),
    );
  });

  it('answers 404 transaction_not_found for an id after the last deal', async () => {
    const last = (await account.get('/api/v1/account/summary')).json().account.lastTransactionId as string;
    const res = await account.get(`/api/v1/account/changes?sinceTransactionId=${BigInt(last) + 1n}`);
    expect(res.statusCode).toBe(404);
    expect(envelopeOf(res).code).toBe('transaction_not_found');
  });

  it('lists as instruments the symbols the execution service trades, in units', async () => {
    const { instruments } = (await account.get('/api/v1/account/instruments')).json();
    const names = instruments.map((i: { name: string }) => i.name);
    expect(names).toEqual(['EUR_USD', 'GBP_USD', 'USD_JPY', 'USD_CHF', 'AUD_USD', 'USD_CAD', 'NZD_USD', 'XAU_USD'].filter((n) => names.includes(n)));
    expect(names).toContain('EUR_USD');
    expect(instruments.find((i: { name: string }) => i.name === 'EUR_USD')).toMatchObject({ displayPrecision: 5, pipLocation: -4, minimumTradeSize: '1000' });
  });

  it('names the execution service in its readiness', async () => {
    const res = await account.get('/health/ready', {});
    expect(res.statusCode).toBe(200);
    expect(res.json().checks.configuration.detail).toContain("the execution service's terminal");
  });
});

describe('the account read through a wrong key', () => {
  it('answers 502 broker_error: the execution service refused the credentials', async () => {
    const url = `http://127.0.0.1:${(execution.app.server.address() as { port: number }).port}`;
    const wrong = await startOnExecution(url, 'not-the-key', execution.clock);
    const res = await wrong.get('/api/v1/account/summary');
    await wrong.close();
    expect(res.statusCode).toBe(502);
    expect(envelopeOf(res).code).toBe('broker_error');
  });
});

describe('the account service run alone', () => {
  it('reads its own simulated account, and says it is not the execution service’s', async () => {
    const alone = await startSimulated();
    const res = await alone.get('/health/ready', {});
    await alone.close();
    expect(res.json().checks.configuration.detail).toContain("own simulated (no EXECUTION_URL: not the execution service's");
  });
});
