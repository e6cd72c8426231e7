import { createLogger } from '@fxdesk/core';
import { ManualClock } from '@fxdesk/primitives';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DeskRisk, type DeskRiskOptions, type RiskAccount } from '../src/desk-risk.js';
import { riskSettingsOf } from '../src/risk-settings.js';
import { openStrategyStores, type StrategyStores } from '../src/store/index.js';
import { MONDAY_NOON, testConfig } from './helpers.js';

const logger = createLogger({ name: 'desk-risk-test', level: 'silent' });
const EUR_USD = { instrument: 'EUR_USD', side: 1, lots: 0.1 } as const;
const CANDLE_MS = 300_000;

const opened: StrategyStores[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
});

async function stores(): Promise<StrategyStores> {
  const s = await openStrategyStores();
  opened.push(s);
  return s;
}

/** A DeskRisk on `store` with DAILY_LOSS_LIMIT=3 and MAX_DRAWDOWN=10 (and `env`), leading when `leads.value`. */
function deskRisk(store: StrategyStores, over: Partial<DeskRiskOptions> & { env?: Record<string, string>; leads?: { value: boolean } } = {}) {
  const clock = new ManualClock(MONDAY_NOON);
  const leads = over.leads ?? { value: true };
  const risk = new DeskRisk({
    settings: riskSettingsOf(testConfig({ DAILY_LOSS_LIMIT: '3', MAX_DRAWDOWN: '10', ...over.env })),
    candleMs: CANDLE_MS,
    store: store.risk,
    isLeading: () => leads.value,
    now: () => clock.now(),
    logger,
    ...over,
  });
  return { risk, clock, leads };
}

/** Marks 10 000 at the start of Monday's session, then `equity` a minute later; answers that mark's halt. */
async function markAfter(risk: DeskRisk, account: RiskAccount, equity: number) {
  await risk.markEquity(account, MONDAY_NOON, 10_000);
  return risk.markEquity(account, MONDAY_NOON + 60_000, equity);
}

describe('DeskRisk', () => {
  it('halts the account that reaches the daily loss limit and refuses its entries, the other account trading on', async () => {
    const s = await stores();
    const { risk } = deskRisk(s);
    expect(await markAfter(risk, 'paper', 9_750)).toBeNull();
    expect(risk.check('paper', EUR_USD, MONDAY_NOON + 60_000)).toEqual({ ok: true });
    const halt = await risk.markEquity('paper', MONDAY_NOON + 120_000, 9_700);
    expect(halt).toMatchObject({ reason: 'daily_loss_limit', at: MONDAY_NOON + 120_000 });
    expect(risk.check('paper', EUR_USD, MONDAY_NOON + 180_000)).toMatchObject({ ok: false, skip: 'halted' });
    expect(risk.check('live', EUR_USD, MONDAY_NOON + 180_000)).toEqual({ ok: true });
  });

  it('stores the halt at once with its announcement under halt:<account>:<at>', async () => {
    const s = await stores();
    const announce = vi.fn();
    const { risk } = deskRisk(s, { announce });
    await markAfter(risk, 'paper', 9_700);
    expect((await s.risk.riskStates()).paper?.state.halt).toMatchObject({ reason: 'daily_loss_limit', at: MONDAY_NOON + 60_000 });
    expect(await s.risk.unannounced(10)).toEqual([expect.objectContaining({ key: `halt:paper:${MONDAY_NOON + 60_000}`, account: 'paper' })]);
    expect(announce).toHaveBeenCalledTimes(1);
  });

  it('halts at the maximum drawdown below the peak across days', async () => {
    const s = await stores();
    const { risk } = deskRisk(s);
    await risk.markEquity('live', MONDAY_NOON, 10_000);
    await risk.markEquity('live', MONDAY_NOON + 86_400_000, 9_750);
    await risk.markEquity('live', MONDAY_NOON + 2 * 86_400_000, 9_500);
    expect(await risk.markEquity('live', MONDAY_NOON + 3 * 86_400_000, 9_000)).toMatchObject({ reason: 'max_drawdown' });
  });

  it('reads the halt back on a new leader (a restart, a failover), which refuses entries until a resume', async () => {
    const s = await stores();
    const old = deskRisk(s).risk;
    old.opened('paper', 'paper:1', EUR_USD);
    await markAfter(old, 'paper', 9_700);
    const next = deskRisk(s).risk;
    expect(next.check('paper', EUR_USD, MONDAY_NOON)).toEqual({ ok: true });
    await next.load();
    expect(next.check('paper', { ...EUR_USD, instrument: 'USD_JPY' }, MONDAY_NOON + 120_000)).toMatchObject({ ok: false, skip: 'halted' });
    expect((await next.views()).find((v) => v.account === 'paper')).toMatchObject({ open: [EUR_USD], equity: { value: 9_700 } });
  });

  it('resumes the halted account: entries go out again, the day and the peak from the equity at the resume, announced under resume:<account>:<ms>', async () => {
    const s = await stores();
    const { risk } = deskRisk(s);
    await markAfter(risk, 'paper', 9_700);
    expect(await risk.resumeStored('paper', MONDAY_NOON + 120_000, 9_700)).toBe(true);
    expect(risk.check('paper', EUR_USD, MONDAY_NOON + 120_000)).toEqual({ ok: true });
    expect((await s.risk.riskStates()).paper?.state).toMatchObject({ halt: null, equityPeak: 9_700, dayStartEquity: 9_700 });
    expect((await s.risk.unannounced(10)).map((a) => a.key)).toEqual([`halt:paper:${MONDAY_NOON + 60_000}`, `resume:paper:${MONDAY_NOON + 120_000}`]);
    expect(await risk.markEquity('paper', MONDAY_NOON + 180_000, 9_500)).toBeNull();
  });

  it('resumes nothing that is not halted', async () => {
    const s = await stores();
    const { risk } = deskRisk(s);
    await markAfter(risk, 'live', 9_900);
    expect(await risk.resumeStored('live', MONDAY_NOON + 120_000, 9_900)).toBe(false);
    expect(await s.risk.unannounced(10)).toEqual([]);
  });

  it('takes a resume made on a follower at its next sync, and a write of before it does not undo it', async () => {
    const s = await stores();
    const leader = deskRisk(s).risk;
    const follower = deskRisk(s, { leads: { value: false } }).risk;
    await markAfter(leader, 'paper', 9_700);
    expect(await follower.resumeStored('paper', MONDAY_NOON + 120_000, 9_700)).toBe(true);
    expect(leader.check('paper', EUR_USD, MONDAY_NOON + 120_000)).toMatchObject({ skip: 'halted' });
    leader.opened('paper', 'paper:1', EUR_USD);
    await leader.whenWritten();
    expect(leader.check('paper', { ...EUR_USD, instrument: 'USD_JPY' }, MONDAY_NOON + 120_000)).toEqual({ ok: true });
    expect((await s.risk.riskStates()).paper).toMatchObject({ state: { halt: null }, resumes: 1, open: [{ id: 'paper:1' }] });
  });

  it('adopts a resume made elsewhere at sync', async () => {
    const s = await stores();
    const leader = deskRisk(s).risk;
    await markAfter(leader, 'live', 9_700);
    await deskRisk(s, { leads: { value: false } }).risk.resumeStored('live', MONDAY_NOON + 120_000, 9_700);
    await leader.sync();
    expect(leader.check('live', EUR_USD, MONDAY_NOON + 120_000)).toEqual({ ok: true });
  });

  it('writes nothing as a follower, and shows the leader’s stored figures', async () => {
    const s = await stores();
    const leader = deskRisk(s).risk;
    const follower = deskRisk(s, { leads: { value: false } }).risk;
    await markAfter(follower, 'paper', 9_500);
    await follower.whenWritten();
    expect(await s.risk.riskStates()).toEqual({});
    await markAfter(leader, 'paper', 9_990);
    await leader.whenWritten();
    expect((await follower.views()).find((v) => v.account === 'paper')).toMatchObject({ equity: { value: 9_990 }, state: { halt: null, equityPeak: 10_000 } });
  });

  it('flattens the halted account with HALT_FLATTEN, once, and not without it', async () => {
    const s = await stores();
    const flatten = vi.fn(async () => true);
    const on = deskRisk(s, { env: { HALT_FLATTEN: 'true' }, flatten }).risk;
    await markAfter(on, 'live', 9_700);
    await on.markEquity('live', MONDAY_NOON + 120_000, 9_600);
    await on.whenIdle();
    expect(flatten).toHaveBeenCalledTimes(1);
    expect(flatten).toHaveBeenCalledWith('live', expect.objectContaining({ reason: 'daily_loss_limit' }));
    const off = deskRisk(await stores(), { flatten }).risk;
    await markAfter(off, 'paper', 9_700);
    expect(flatten).toHaveBeenCalledTimes(1);
  });

  it('has the next leader flatten a halt its leader stored and did not see answered (killed mid-send), under the same halt; one answered is not sent again', async () => {
    const s = await stores();
    // The leader halts and sends its flatten, which is never answered: the process dies there.
    const sent: Array<{ account: RiskAccount; at: number }> = [];
    const killed = deskRisk(s, { env: { HALT_FLATTEN: 'true' }, flatten: (account, halt) => (sent.push({ account, at: halt.at }), new Promise(() => {})) });
    await markAfter(killed.risk, 'live', 9_700);
    await killed.risk.whenWritten();
    expect((await s.risk.riskStates()).live).toMatchObject({ state: { halt: { at: MONDAY_NOON + 60_000 } }, flattenedHalt: null });
    // The replica taking the lead sends the same halt's flatten (its key is the halt's: the gateway replays it).
    const next = deskRisk(s, { env: { HALT_FLATTEN: 'true' }, flatten: async (account, halt) => (sent.push({ account, at: halt.at }), true) });
    await next.risk.load();
    await next.risk.whenIdle();
    expect(sent).toEqual([
      { account: 'live', at: MONDAY_NOON + 60_000 },
      { account: 'live', at: MONDAY_NOON + 60_000 },
    ]);
    expect((await s.risk.riskStates()).live?.flattenedHalt).toBe(MONDAY_NOON + 60_000);
    // Answered and stored: a third leader does not send it, and the halt still holds.
    const third = deskRisk(s, { env: { HALT_FLATTEN: 'true' }, flatten: async (account, halt) => (sent.push({ account, at: halt.at }), true) });
    await third.risk.load();
    await third.risk.whenIdle();
    expect(sent).toHaveLength(2);
    expect(third.risk.check('live', EUR_USD, MONDAY_NOON + 120_000)).toMatchObject({ ok: false, skip: 'halted' });
  });

  it('sends a halt’s flatten again at a sync or equity mark 5 s after the gateway did not answer it, and never as a follower', async () => {
    const s = await stores();
    let answers: Array<boolean | Error> = [false, new Error('connect ECONNREFUSED'), true];
    const flatten = vi.fn(async () => {
      const answer = answers.shift()!;
      if (answer instanceof Error) throw answer;
      return answer;
    });
    const leads = { value: true };
    const { risk, clock } = deskRisk(s, { env: { HALT_FLATTEN: 'true' }, flatten, leads });
    await markAfter(risk, 'paper', 9_700);
    await risk.whenIdle();
    expect(flatten).toHaveBeenCalledTimes(1);
    // Not answered: not sent again at once, nor by a follower once the 5 s are up.
    await risk.sync();
    await risk.whenIdle();
    expect(flatten).toHaveBeenCalledTimes(1);
    clock.advance(5_000);
    leads.value = false;
    await risk.sync();
    await risk.whenIdle();
    expect(flatten).toHaveBeenCalledTimes(1);
    leads.value = true;
    await risk.sync();
    await risk.whenIdle();
    expect(flatten).toHaveBeenCalledTimes(2);
    // One process alone has no sync: the next equity mark 5 s on sends it.
    clock.advance(5_000);
    await risk.markEquity('paper', MONDAY_NOON + 120_000, 9_690);
    await risk.whenIdle();
    expect(flatten).toHaveBeenCalledTimes(3);
    await risk.sync();
    await risk.markEquity('paper', MONDAY_NOON + 180_000, 9_680);
    await risk.whenIdle();
    expect(flatten).toHaveBeenCalledTimes(3);
    expect((await s.risk.riskStates()).paper?.flattenedHalt).toBe(MONDAY_NOON + 60_000);
    answers = [];
  });

  it('holds a halt its write failed to store, never rejecting, and stores it with its announcement at the next change', async () => {
    const s = await stores();
    let isDown = true;
    const store = {
      riskStates: () => s.risk.riskStates(),
      resumeRisk: s.risk.resumeRisk.bind(s.risk),
      saveRisk: (...args: Parameters<typeof s.risk.saveRisk>) => (isDown ? Promise.reject(new Error('database down')) : s.risk.saveRisk(...args)),
      saveRiskAnnounced: (...args: Parameters<typeof s.risk.saveRiskAnnounced>) =>
        isDown ? Promise.reject(new Error('database down')) : s.risk.saveRiskAnnounced(...args),
    };
    const { risk } = deskRisk(s, { store });
    expect(await markAfter(risk, 'paper', 9_700)).toMatchObject({ reason: 'daily_loss_limit' });
    expect(risk.check('paper', EUR_USD, MONDAY_NOON + 60_000)).toMatchObject({ skip: 'halted' });
    expect(await s.risk.riskStates()).toEqual({});
    isDown = false;
    await risk.markEquity('paper', MONDAY_NOON + 120_000, 9_650);
    await risk.whenWritten();
    expect((await s.risk.riskStates()).paper?.state.halt).toMatchObject({ at: MONDAY_NOON + 60_000 });
    expect((await s.risk.unannounced(10)).map((a) => a.key)).toEqual([`halt:paper:${MONDAY_NOON + 60_000}`]);
  });

  it('keeps the losses in a row and the cooldown across a restart', async () => {
    const s = await stores();
    const env = { COOLDOWN_LOSSES: '2', COOLDOWN_CANDLES: '3' };
    const old = deskRisk(s, { env }).risk;
    for (const id of ['paper:1', 'paper:2']) {
      old.opened('paper', id, EUR_USD);
      await old.closed('paper', id, -10, MONDAY_NOON);
    }
    const next = deskRisk(s, { env }).risk;
    await next.load();
    expect(next.check('paper', EUR_USD, MONDAY_NOON + 2 * CANDLE_MS)).toMatchObject({ ok: false, skip: 'cooldown' });
    expect(next.check('paper', EUR_USD, MONDAY_NOON + 3 * CANDLE_MS)).toEqual({ ok: true });
  });
});
