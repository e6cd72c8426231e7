import { randomUUID } from 'node:crypto';
import { ExecutionClient, executionCalls } from '@fxdesk/client';
import { expectClientMatchesDocument } from '@fxdesk/core/testing';
import type { SignalSubmissionInput } from '@fxdesk/schemas';
import { describe, expect, it } from 'vitest';
import { ScriptedTerminal } from './fake-terminal.js';
import { API_KEY, buildTestApp, NOW, simulatedApp } from './helpers.js';

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
      await expectClientMatchesDocument(app, executionCalls);
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
