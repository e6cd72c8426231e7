import { randomUUID } from 'node:crypto';
import { ExecutionClient, executionCalls, ServiceError } from '@fxdesk/client';
import { expectClientMatchesDocument } from '@fxdesk/core/testing';
import type { SignalSubmissionInput } from '@fxdesk/schemas';
import { afterEach, describe, expect, it } from 'vitest';
import { ScriptedTerminal } from './fake-terminal.js';
import { API_KEY, buildTestApp, NOW, simulatedApp, type SimulatedHarness } from './helpers.js';

const MARKET_BUY = {
  occurred_at: new Date(NOW).toISOString(),
  execution_type: 'market',
  direction: 'buy',
  volume: '0.10',
  source: 'tradingview',
} as const;

describe('@fxdesk/client ExecutionClient', () => {
  it("checks each answer with the schema the service's OpenAPI document names for it", async () => {
    const { app } = await buildTestApp({ terminal: new ScriptedTerminal() });
    try {
      // The kit's check takes GET, POST and DELETE; the one PATCH is held to the document below.
      const { modifyPosition, ...calls } = executionCalls;
      await expectClientMatchesDocument(app, calls);
      const doc = (await app.inject({ method: 'GET', url: '/docs/json' })).json<{
        paths: Record<string, Record<string, { responses: Record<string, { content: Record<string, { schema: { $ref: string } }> }> }>>;
      }>();
      expect(doc.paths[modifyPosition.path]?.patch?.responses['200']?.content['application/json']?.schema.$ref).toBe('#/components/schemas/ActionAnswer');
    } finally {
      await app.close();
    }
  });

  it('submits signals, reads one back, and lists them filtered, page by page', async () => {
    const h = await simulatedApp();
    const client = new ExecutionClient({ baseUrl: await h.app.listen({ host: '127.0.0.1', port: 0 }), apiKey: API_KEY });
    try {
      const submitted: string[] = [];
      for (const symbol of ['EURUSD', 'GBPUSD', 'EURUSD', 'EURUSD']) {
        await h.clock.advanceAsync(1000);
        const body: SignalSubmissionInput = { ...MARKET_BUY, signal_id: randomUUID(), symbol };
        expect((await client.submitSignal(body)).result.state).toBe('filled');
        submitted.push(body.signal_id);
      }
      expect((await client.signal(submitted[1] as string)).state).toBe('filled');
      const first = await client.listSignals({ symbol: 'EURUSD', state: 'filled', limit: 2 });
      const rest = await client.listSignals({ symbol: 'EURUSD', state: 'filled', limit: 2, cursor: first.next_cursor ?? undefined });
      expect([...first.signals, ...rest.signals].map((s) => s.signal_id)).toEqual([submitted[3], submitted[2], submitted[0]]);
      expect(rest.next_cursor).toBeNull();
      expect((await client.listSignals()).signals).toHaveLength(4);
    } finally {
      await client.close();
      await h.app.close();
    }
  });
});

describe('ExecutionClient: positions, orders, actions and deals', () => {
  let h: SimulatedHarness;
  let client: ExecutionClient;

  afterEach(async () => {
    await client.close();
    await h.app.close();
  });

  async function start(): Promise<void> {
    h = await simulatedApp({ env: { ALLOWED_SYMBOLS: 'EURUSD,GBPUSD' } });
    client = new ExecutionClient({ baseUrl: await h.app.listen({ host: '127.0.0.1', port: 0 }), apiKey: API_KEY });
  }

  /** Opens a market buy (or places a limit with `extra`) and answers its ticket. */
  async function open(extra: Partial<SignalSubmissionInput> = {}): Promise<string> {
    const { result } = await client.submitSignal({ ...MARKET_BUY, signal_id: randomUUID(), symbol: 'EURUSD', ...extra });
    return (result.tickets.position ?? result.tickets.order) as string;
  }

  it('lists the open positions and the resting orders, filtered by symbol', async () => {
    await start();
    const position = await open();
    await open({ symbol: 'GBPUSD' });
    const order = await open({ execution_type: 'limit', entry_price: '1.00000' });
    expect((await client.positions({ symbol: 'EURUSD' })).positions.map((p) => p.ticket)).toEqual([position]);
    expect((await client.orders()).orders.map((o) => [o.ticket, o.type])).toEqual([[order, 'buy_limit']]);
  });

  it('closes part of a position under an Idempotency-Key, and a repeat replays the stored answer', async () => {
    await start();
    const ticket = await open();
    const first = await client.closePosition(ticket, 'close-part-1', { volume: '0.04' });
    expect(first).toMatchObject({ replayed: false, result: { kind: 'close', ticket, state: 'done', result: { volume: '0.04' } } });
    expect(await client.closePosition(ticket, 'close-part-1', { volume: '0.04' })).toEqual({ ...first, replayed: true });
    expect((await client.positions()).positions[0]?.volume).toBe('0.06');
  });

  it('moves the stop loss of a position', async () => {
    await start();
    const ticket = await open();
    const { result } = await client.modifyPosition(ticket, 'modify-1', { sl: '1.00000' });
    expect(result).toMatchObject({ kind: 'modify', ticket, state: 'done' });
    expect(Number((await client.positions()).positions[0]?.sl)).toBe(1);
  });

  it('cancels a resting order', async () => {
    await start();
    const order = await open({ execution_type: 'limit', entry_price: '1.00000' });
    expect((await client.cancelOrder(order, 'cancel-1')).result).toMatchObject({ kind: 'cancel', ticket: order, state: 'done' });
    expect((await client.orders()).orders).toEqual([]);
  });

  it('flattens the positions of one symbol, each with its outcome', async () => {
    await start();
    const eurusd = await open();
    await open({ symbol: 'GBPUSD' });
    const { result } = await client.closeAll('flatten-1', { symbol: 'EURUSD' });
    expect(result.positions.map((p) => [p.ticket, p.state])).toEqual([[eurusd, 'done']]);
    expect((await client.positions()).positions.map((p) => p.symbol)).toEqual(['GBPUSD']);
  });

  it('throws the refusal of an action as a ServiceError with its code', async () => {
    await start();
    const refusal = await client.closePosition('999', 'close-nothing').catch((err: unknown) => err);
    expect(refusal).toBeInstanceOf(ServiceError);
    expect(refusal).toMatchObject({ status: 422, code: 'position_not_found' });
  });

  it('lists the stored actions, newest first, page by page', async () => {
    await start();
    const ticket = await open();
    await client.modifyPosition(ticket, 'modify-a', { sl: '1.00000' });
    await h.clock.advanceAsync(1_000);
    await client.closePosition(ticket, 'close-a');
    const first = await client.actions({ limit: 1 });
    const rest = await client.actions({ cursor: first.next_cursor ?? undefined });
    expect([...first.actions, ...rest.actions].map((a) => a.idempotency_key)).toEqual(['close-a', 'modify-a']);
  });

  it('reads the deals of a position, its entry and its close with their profit', async () => {
    await start();
    const ticket = await open();
    await h.clock.advanceAsync(60_000);
    await client.closePosition(ticket, 'close-b');
    const { deals, next_cursor } = await client.deals({ from: new Date(NOW).toISOString(), to: new Date(NOW + 3_600_000).toISOString(), position: ticket });
    expect(deals.map((d) => [d.entry, d.side, d.source])).toEqual([
      ['in', 'buy', 'tradingview'],
      ['out', 'sell', 'tradingview'],
    ]);
    expect(deals[1]?.profit).toMatch(/^-?\d+\.\d{2}$/);
    expect(next_cursor).toBeNull();
  });
});
