import { RiskReportSchema, RiskResumeResponseSchema } from '@fxdesk/schemas';
import { afterEach, describe, expect, it } from 'vitest';
import { harness, MONDAY_NOON, type Harness } from './helpers.js';

const RISK_ENV = {
  DAILY_LOSS_LIMIT: '3',
  MAX_DRAWDOWN: '10',
  MAX_OPEN_TRADES: '4',
  MAX_CURRENCY_EXPOSURE_LOTS: '2',
  COOLDOWN_LOSSES: '3',
  COOLDOWN_CANDLES: '12',
};

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** The app with the risk limits on, the paper account halted by the daily loss limit. */
async function halted(): Promise<Harness> {
  h = await harness({ env: RISK_ENV });
  const { risk } = h.deps;
  risk.opened('paper', 'paper:1', { instrument: 'EUR_USD', side: 1, lots: 0.5 });
  risk.opened('paper', 'paper:2', { instrument: 'USD_JPY', side: -1, lots: 0.2 });
  await risk.markEquity('paper', MONDAY_NOON - 60_000, 10_000);
  await risk.markEquity('paper', MONDAY_NOON, 9_650);
  await risk.whenIdle();
  return h;
}

describe('GET /risk', () => {
  it('shows every limit beside its use and the halt with its reason, per account', async () => {
    const { app } = await halted();
    const res = await app.inject({ method: 'GET', url: '/risk' });
    expect(res.statusCode).toBe(200);
    const report = RiskReportSchema.parse(res.json());
    expect(report.accounts.map((a) => a.account)).toEqual(['live', 'paper']);
    const paper = report.accounts[1]!;
    expect(paper).toMatchObject({
      halted: true,
      halt: { reason: 'daily_loss_limit', at: new Date(MONDAY_NOON).toISOString() },
      equity: { value: 9_650 },
      open_trades: { open: 2, limit: 4, one_per_pair: true },
      exposure: { limit_lots: 2 },
      daily_loss: { start_equity: 10_000, loss: 350, loss_percent: 3.5, limit_percent: 3 },
      drawdown: { peak: 10_000, drawdown: 350, drawdown_percent: 3.5, limit_percent: 10 },
      cooldown: { losses_in_a_row: 0, after_losses: 3, candles: 12, until: null, active: false },
    });
    // Long EUR_USD 0.5 and short USD_JPY 0.2: EUR +0.5, USD −0.5 − 0.2, JPY +0.2.
    expect(paper.exposure.by_currency).toEqual([
      { currency: 'USD', net_lots: -0.7 },
      { currency: 'EUR', net_lots: 0.5 },
      { currency: 'JPY', net_lots: 0.2 },
    ]);
    expect(report.accounts[0]).toMatchObject({ halted: false, halt: null, equity: null, open_trades: { open: 0 } });
  });

  it('answers null for a limit that is off', async () => {
    h = await harness();
    const report = RiskReportSchema.parse((await h.app.inject({ method: 'GET', url: '/risk' })).json());
    expect(report.accounts[0]).toMatchObject({
      open_trades: { limit: null },
      exposure: { limit_lots: null },
      daily_loss: { limit_percent: null },
      drawdown: { limit_percent: null },
      cooldown: { after_losses: null },
    });
  });

  it('has a console copy at /console/risk', async () => {
    const { app } = await halted();
    const res = await app.inject({ method: 'GET', url: '/console/risk' });
    expect(res.statusCode).toBe(200);
    expect(RiskReportSchema.parse(res.json()).accounts[1]?.halted).toBe(true);
  });
});

describe('POST /risk/resume', () => {
  it('resumes the halted account at its equity now, and announces it', async () => {
    const { app, deps, stores } = await halted();
    const res = await app.inject({ method: 'POST', url: '/risk/resume', payload: { account: 'paper' } });
    expect(res.statusCode).toBe(200);
    const body = RiskResumeResponseSchema.parse(res.json());
    // The paper account's equity now: PAPER_BALANCE (100 000) with nothing of it traded.
    expect(body.account).toMatchObject({ account: 'paper', halted: false, halt: null, daily_loss: { start_equity: 100_000 }, drawdown: { peak: 100_000 } });
    expect(deps.risk.check('paper', { instrument: 'GBP_USD', side: 1, lots: 0.1 }, MONDAY_NOON)).toEqual({ ok: true });
    await deps.announcements.whenIdle();
    // No NOTIFICATION_URL here: kept, and marked off by the announcements' round.
    const kept = await stores.db.query<{ announcement_key: string; announced: string }>(
      'SELECT announcement_key, announced FROM strategy_risk_announcements ORDER BY seq',
    );
    expect(kept).toEqual([
      { announcement_key: `halt:paper:${MONDAY_NOON}`, announced: 'off' },
      { announcement_key: `resume:paper:${MONDAY_NOON}`, announced: 'off' },
    ]);
  });

  it('answers 409 NOT_HALTED for an account that is not halted', async () => {
    const { app } = await halted();
    const res = await app.inject({ method: 'POST', url: '/risk/resume', payload: { account: 'live' } });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ code: 'NOT_HALTED' });
  });

  it('refuses an account that is neither live nor paper', async () => {
    const { app } = await halted();
    const res = await app.inject({ method: 'POST', url: '/risk/resume', payload: { account: 'demo' } });
    expect(res.statusCode).toBe(422);
  });

  it('has a console copy at /console/risk/resume', async () => {
    const { app } = await halted();
    const res = await app.inject({ method: 'POST', url: '/console/risk/resume', payload: { account: 'paper' } });
    expect(res.statusCode).toBe(200);
  });
});
