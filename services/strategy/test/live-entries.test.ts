import { createLogger } from '@fxdesk/core';
import type { ExecutionClient } from '@fxdesk/client';
import { afterEach, describe, expect, it } from 'vitest';
import { DeskRisk } from '../src/desk-risk.js';
import { LiveEntries } from '../src/live-entries.js';
import { riskSettingsOf } from '../src/risk-settings.js';
import { openStrategyStores, type StrategyStores } from '../src/store/index.js';
import { MONDAY_NOON, testConfig } from './helpers.js';
import { signalFixture } from './signal-fixture.js';

const logger = createLogger({ name: 'live-entries-test', level: 'silent' });
const opened: StrategyStores[] = [];
afterEach(() => Promise.all(opened.splice(0).map((s) => s.close())));

/** A leader's LiveEntries on `stores`: fixed lots, one position per pair, a venue that holds nothing. */
function entriesOn(stores: StrategyStores, risk: DeskRisk): LiveEntries {
  const execution = { positions: async () => ({ positions: [] }) } as unknown as ExecutionClient;
  return new LiveEntries({
    execution,
    signals: stores.signals,
    journal: stores.journal,
    openIds: async () => (await stores.risk.riskStates()).live?.open.map((p) => p.id) ?? [],
    sizing: { riskPercent: null, fixedLots: '0.10' },
    risk,
    equity: async () => null,
    rate: () => undefined,
    source: 'fxdesk-strategy',
    symbolMap: {},
    candleMs: 60_000,
    whenSent: async () => {},
    now: () => MONDAY_NOON,
    logger,
  });
}

function deskRisk(stores: StrategyStores): DeskRisk {
  return new DeskRisk({ settings: riskSettingsOf(testConfig()), candleMs: 60_000, store: stores.risk, isLeading: () => true, now: () => MONDAY_NOON, logger });
}

describe('LiveEntries', () => {
  it('takes a signal the leader before admitted and was killed before storing: it never went out, so its pair is not held shut', async () => {
    const stores = await openStrategyStores();
    opened.push(stores);
    const signal = signalFixture({});
    // The killed leader admitted it (its book stored it open) and died before the insert, the gate before any send.
    const killed = deskRisk(stores);
    killed.opened('live', signal.signal_id, { instrument: signal.instrument, side: 1, lots: 0.1 });
    await killed.whenWritten();
    expect((await stores.risk.riskStates()).live?.open.map((p) => p.id)).toEqual([signal.signal_id]);
    // The next leader decides the same signal again (its id is deterministic) and sends it.
    const risk = deskRisk(stores);
    await risk.load();
    expect(await entriesOn(stores, risk).admit(signal)).toEqual({ volume: '0.10' });
  });

  it('still holds a pair whose signal this process admitted and has not stored yet', async () => {
    const stores = await openStrategyStores();
    opened.push(stores);
    const risk = deskRisk(stores);
    const entries = entriesOn(stores, risk);
    const first = signalFixture({});
    expect(await entries.admit(first)).toEqual({ volume: '0.10' });
    // Not stored yet (the engine stores it after the admission): a second signal of the pair is refused.
    const second = signalFixture({ signal_id: '00000000-0000-5000-8000-0000000000aa' });
    expect(await entries.admit(second)).toMatchObject({ skipped: 'position_open' });
  });
});
