import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { postSignal, signal, simulatedApp, type SimulatedHarness, sqliteStore } from './helpers.js';

let harness: SimulatedHarness | undefined;
let dir: string | undefined;
afterEach(async () => {
  await harness?.app.close();
  harness = undefined;
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** On a durable file, as in production. */
async function setup(): Promise<SimulatedHarness> {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fxdesk-exec-race-'));
  harness = await simulatedApp({ store: sqliteStore(path.join(dir, 'execution.db')), env: { MAXIMUM_VOLUME: '10' } });
  return harness;
}

describe('concurrent submissions of one signal_id', () => {
  it('100 identical submissions cause exactly one order_send; every other answer is a replay or 409 signal_in_progress', async () => {
    const h = await setup();
    const body = signal();
    const answers = await Promise.all(Array.from({ length: 100 }, () => postSignal(h.app, body)));
    expect(h.terminal.stats.orderSendCalls).toBe(1);
    const originals = answers.filter((a) => a.statusCode === 200 && a.headers['idempotent-replayed'] === undefined);
    expect(originals).toHaveLength(1);
    for (const answer of answers) {
      if (answer === originals[0]) continue;
      const isReplay = answer.headers['idempotent-replayed'] === 'true' && answer.body === originals[0]!.body;
      const isInProgress = answer.statusCode === 409 && answer.json().code === 'signal_in_progress';
      expect(isReplay || isInProgress).toBe(true);
    }
  });

  it('100 submissions of one id with differing payloads make one trade; the rest are 409 idempotency_conflict', async () => {
    const h = await setup();
    const base = signal();
    const bodies = Array.from({ length: 100 }, (_, i) => ({ ...base, volume: ((i + 1) / 100).toFixed(2) }));
    const answers = await Promise.all(bodies.map((b) => postSignal(h.app, b)));
    expect(h.terminal.stats.orderSendCalls).toBe(1);
    expect(await h.terminal.positions()).toHaveLength(1);
    expect(answers.filter((a) => a.statusCode === 200)).toHaveLength(1);
    expect(answers.filter((a) => a.statusCode === 409 && a.json().code === 'idempotency_conflict')).toHaveLength(99);
  });
});
