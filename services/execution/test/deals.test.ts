import type { TerminalDeal, TradingTerminal } from '@fxdesk/broker';
import { afterEach, describe, expect, it } from 'vitest';
import { ScriptedTerminal } from './fake-terminal.js';
import type { LightMyRequestResponse } from 'fastify';
import { API_KEY, buildTestApp, expectEnvelope, NOW, postSignal, settle, signal, simulatedApp, type TestApp } from './helpers.js';

let harness: TestApp & { terminal: TradingTerminal };

afterEach(async () => {
  await harness.app.close();
  await harness.terminal.close();
});

const FROM = new Date(NOW - 3_600_000).toISOString();
const TO = new Date(NOW + 86_400_000).toISOString();

function get(query: string, headers: Record<string, string> = { 'x-api-key': API_KEY }) {
  return harness.app.inject({ method: 'GET', url: `/v1/deals?${query}`, headers });
}

function range(extra = ''): string {
  return `from=${encodeURIComponent(FROM)}&to=${encodeURIComponent(TO)}${extra}`;
}

type DealBody = Record<string, unknown> & { ticket: string; position: string; entry: string; reason: string; source: string | null };

/** Opens a position by a signal and answers its ticket. */
async function open(extra: Record<string, unknown> = {}): Promise<string> {
  const res = await postSignal(harness.app, signal(extra));
  expect(res.statusCode).toBe(200);
  return res.json<{ tickets: { position: string } }>().tickets.position;
}

async function closeByAction(ticket: string): Promise<void> {
  const res = await harness.app.inject({
    method: 'POST',
    url: `/v1/positions/${ticket}/close`,
    headers: { 'x-api-key': API_KEY, 'idempotency-key': `close-${ticket}` },
  });
  expect(res.statusCode).toBe(200);
}

/** A deal as a terminal gives it, for the scripted terminal's history. */
function terminalDeal(fields: Partial<TerminalDeal>): TerminalDeal {
  return {
    ticket: '11',
    order: '10',
    position: '10',
    symbol: 'EURUSD',
    side: 'buy',
    entry: 'in',
    volume: '0.10',
    price: '1.08512',
    profit: 0,
    commission: -0.7,
    swap: 0,
    time: NOW,
    comment: 'tradingview:3f5a0c1e9b7d24a6c8e0f1b',
    magic: 880001,
    reason: 'expert',
    ...fields,
  };
}

describe('GET /v1/deals', () => {
  it('lists the entry and the close of a position, oldest first, with profit, commission and swap as account-currency decimals', async () => {
    harness = await simulatedApp();
    const ticket = await open();
    await harness.clock.advanceAsync(60_000);
    await closeByAction(ticket);
    const res = await get(range());
    expect(res.statusCode).toBe(200);
    const { deals, next_cursor } = res.json<{ deals: DealBody[]; next_cursor: string | null }>();
    expect(next_cursor).toBeNull();
    expect(deals.map((d) => [d.position, d.entry, d.side, d.reason, d.source])).toEqual([
      [ticket, 'in', 'buy', 'expert', 'tradingview'],
      [ticket, 'out', 'sell', 'expert', 'tradingview'],
    ]);
    expect(deals[0]).toMatchObject({ symbol: 'EURUSD', volume: '0.10', profit: '0.00', commission: '0.00', swap: '0.00', magic: 880001 });
    expect(deals[1]?.profit).toMatch(/^-?\d+\.\d{2}$/);
    expect(deals[1]?.comment).toMatch(/^close:/);
    expect(deals[1]?.time).toBe(new Date(NOW + 60_000).toISOString());
  });

  it('lists a stop the venue hit as an exit with reason sl or tp', async () => {
    harness = await simulatedApp();
    const ticket = await open({ stop_loss_distance: '0.0005', take_profit_distance: '0.0005' });
    for (let minutes = 0; minutes < 600 && (await harness.terminal.positions()).length > 0; minutes++) await harness.clock.advanceAsync(60_000);
    const { deals } = (await get(range())).json<{ deals: DealBody[] }>();
    const exit = deals.find((d) => d.entry === 'out');
    expect(exit).toMatchObject({ position: ticket, source: 'tradingview' });
    expect(['sl', 'tp']).toContain(exit?.reason);
  });

  it('filters by position, symbol and source, and pages with a cursor', async () => {
    harness = await simulatedApp({ env: { ALLOWED_SYMBOLS: 'EURUSD,GBPUSD', ALLOWED_SIGNAL_SOURCES: 'tradingview,manual' } });
    const first = await open();
    await harness.clock.advanceAsync(1_000);
    const second = await open({ symbol: 'GBPUSD', source: 'manual' });
    await harness.clock.advanceAsync(1_000);
    await closeByAction(second);
    const positions = async (query: string) => (await get(range(query))).json<{ deals: DealBody[] }>().deals.map((d) => `${d.position} ${d.entry}`);
    expect(await positions(`&position=${first}`)).toEqual([`${first} in`]);
    expect(await positions('&symbol=GBPUSD')).toEqual([`${second} in`, `${second} out`]);
    expect(await positions('&source=manual')).toEqual([`${second} in`, `${second} out`]);
    expect(await positions('&source=webhook')).toEqual([]);

    const page1 = (await get(range('&limit=2'))).json<{ deals: DealBody[]; next_cursor: string }>();
    const page2 = (await get(range(`&limit=2&cursor=${page1.next_cursor}`))).json<{ deals: DealBody[]; next_cursor: string | null }>();
    expect([...page1.deals, ...page2.deals].map((d) => `${d.position} ${d.entry}`)).toEqual([`${first} in`, `${second} in`, `${second} out`]);
    expect(page2.next_cursor).toBeNull();
  });

  it('answers the venue’s commission and swap as account-currency decimals', async () => {
    const terminal = new ScriptedTerminal();
    terminal.history = [terminalDeal({ commission: -0.7, swap: -1.234 })];
    harness = { ...(await buildTestApp({ terminal })), terminal };
    const { deals } = (await get(range())).json<{ deals: DealBody[] }>();
    expect(deals).toEqual([
      expect.objectContaining({ ticket: '11', order: '10', commission: '-0.70', swap: '-1.23', source: 'tradingview', time: new Date(NOW).toISOString() }),
    ]);
    expect(terminal.dealFilters).toEqual([{ from: Date.parse(FROM), to: Date.parse(TO), position: undefined, symbol: undefined }]);
  });

  it('refuses a range that ends before it starts, or spans more than 31 days, in the envelope', async () => {
    harness = await simulatedApp();
    const body = expectEnvelope(await get(`from=${encodeURIComponent(TO)}&to=${encodeURIComponent(FROM)}`), 422, 'validation_error');
    expect(body.details).toEqual([expect.objectContaining({ path: 'querystring' })]);
    const long = new Date(Date.parse(FROM) + 32 * 86_400_000).toISOString();
    expectEnvelope(await get(`from=${encodeURIComponent(FROM)}&to=${encodeURIComponent(long)}`), 422, 'validation_error');
  });

  it('refuses a missing range, a bad limit, an unknown parameter and a cursor it did not issue, in the envelope', async () => {
    harness = await simulatedApp();
    expectEnvelope(await get(`to=${encodeURIComponent(TO)}`), 422, 'validation_error');
    expectEnvelope(await get(range('&limit=501')), 422, 'validation_error');
    expectEnvelope(await get(range('&kind=out')), 422, 'validation_error');
    expectEnvelope(await get(range(`&cursor=${Buffer.from('x').toString('base64url')}`)), 422, 'invalid_cursor');
  });

  it('needs the API key', async () => {
    harness = await simulatedApp();
    expectEnvelope(await get(range(), {}), 401, 'unauthorized');
  });

  it('answers 503 not_ready while the terminal is disconnected', async () => {
    const sim = await simulatedApp();
    harness = sim;
    sim.terminal.setConnected(false);
    expectEnvelope(await get(range()), 503, 'not_ready');
  });

  it('answers 503 broker_unavailable when the terminal fails to answer', async () => {
    const sim = await simulatedApp();
    harness = sim;
    sim.terminal.injectFault({ method: 'deals', kind: 'timeout', times: 1 });
    expectEnvelope(await get(range()), 503, 'broker_unavailable');
  });

  it('answers 503 broker_unavailable when the terminal stays silent past PRE_SEND_TIMEOUT_MS', async () => {
    const terminal = new ScriptedTerminal();
    let asked = false;
    terminal.deals = () => {
      asked = true;
      return new Promise(() => undefined);
    };
    harness = { ...(await buildTestApp({ terminal, env: { PRE_SEND_TIMEOUT_MS: '1000' } })), terminal };
    let res: LightMyRequestResponse | undefined;
    void get(range()).then((answer) => (res = answer));
    await settle(() => asked);
    await harness.clock.advanceAsync(1000);
    await settle(() => res !== undefined);
    expect(expectEnvelope(res!, 503, 'broker_unavailable').message).toContain('PRE_SEND_TIMEOUT_MS');
  });
});
