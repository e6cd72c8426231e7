import { JournalPageSchema, PerformanceSchema, type JournalTrade } from '@fxdesk/schemas';
import { afterEach, describe, expect, it } from 'vitest';
import { performanceOf } from '../src/journal.js';
import { harness, MONDAY_NOON, type Harness } from './helpers.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const iso = (ms: number) => new Date(ms).toISOString();

/** A closed trade exiting `exitMs`, an hour after its entry. */
function trade(id: string, exitMs: number, pnl: number, over: Partial<JournalTrade> = {}): JournalTrade {
  return {
    id,
    account: 'paper',
    signal_id: null,
    position: null,
    instrument: 'EUR_USD',
    side: 'LONG',
    volume_lots: 0.1,
    entry_time: iso(exitMs - HOUR),
    entry_price: 1.085,
    exit_time: iso(exitMs),
    exit_price: 1.086,
    exit_reason: pnl > 0 ? 'target' : 'stop',
    pnl,
    commission: 0,
    swap: 0,
    r_multiple: pnl / 10,
    duration_seconds: 3600,
    ...over,
  };
}

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function withTrades(trades: JournalTrade[]): Promise<Harness> {
  h = await harness();
  for (const t of trades) await h.stores.journal.record(t);
  return h;
}

describe('GET /trades', () => {
  it('pages the journal newest exit first, following next_cursor to the last page', async () => {
    const app = (await withTrades(Array.from({ length: 7 }, (_, i) => trade(`paper:${i}`, MONDAY_NOON - i * HOUR, 5)))).app;
    const ids: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await app.inject({ url: `/trades?limit=3${cursor ? `&cursor=${cursor}` : ''}` });
      expect(res.statusCode).toBe(200);
      const page = JournalPageSchema.parse(res.json());
      ids.push(...page.trades.map((t) => t.id));
      cursor = page.next_cursor;
    } while (cursor);
    expect(ids).toEqual(['paper:0', 'paper:1', 'paper:2', 'paper:3', 'paper:4', 'paper:5', 'paper:6']);
  });

  it('filters by account, pair, side, exit reason and exit time', async () => {
    const app = (
      await withTrades([
        trade('paper:a', MONDAY_NOON - HOUR, 5),
        trade('live:1', MONDAY_NOON - 2 * HOUR, -5, { account: 'live', position: '1', side: 'SHORT' }),
        trade('paper:b', MONDAY_NOON - 3 * HOUR, 5, { instrument: 'USD_JPY' }),
      ])
    ).app;
    const ids = async (query: string) => (await app.inject({ url: `/trades?${query}` })).json<{ trades: JournalTrade[] }>().trades.map((t) => t.id);
    expect(await ids('account=live')).toEqual(['live:1']);
    expect(await ids('instrument=USD_JPY')).toEqual(['paper:b']);
    expect(await ids('side=SHORT')).toEqual(['live:1']);
    expect(await ids('exit_reason=target')).toEqual(['paper:a', 'paper:b']);
    expect(await ids(`from=${iso(MONDAY_NOON - 2 * HOUR)}&to=${iso(MONDAY_NOON - HOUR)}`)).toEqual(['live:1']);
  });

  it('answers every matching trade as CSV, quoting what needs it', async () => {
    const app = (
      await withTrades(
        Array.from({ length: 1200 }, (_, i) => trade(`paper:${i}`, MONDAY_NOON - i * 60_000, i % 2 ? 3 : -2, { id: i === 0 ? 'paper:"x",y' : `paper:${i}` })),
      )
    ).app;
    const res = await app.inject({ url: '/trades?format=csv&account=paper&limit=1' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe('attachment; filename="fxdesk-trades-paper.csv"');
    const lines = res.body.trimEnd().split('\r\n');
    expect(lines[0]).toBe(
      'id,account,signal_id,position,instrument,side,volume_lots,entry_time,entry_price,exit_time,exit_price,exit_reason,pnl,commission,swap,r_multiple,duration_seconds',
    );
    // Every trade, not a page of `limit`.
    expect(lines).toHaveLength(1201);
    expect(lines[1]).toBe(`"paper:""x"",y",paper,,,EUR_USD,LONG,0.1,${iso(MONDAY_NOON - HOUR)},1.085,${iso(MONDAY_NOON)},1.086,stop,-2,0,0,-0.2,3600`);
  });

  it('refuses a cursor it did not issue, an unknown filter and a reversed range in the envelope', async () => {
    const app = (await withTrades([])).app;
    for (const url of [
      '/trades?cursor=bm9wZQ',
      '/trades?colour=red',
      `/trades?from=${iso(MONDAY_NOON)}&to=${iso(MONDAY_NOON - 1)}`,
      '/trades?exit_reason=luck',
    ]) {
      const res = await app.inject({ url });
      expect(res.statusCode, url).toBe(422);
      expect(res.json()).toMatchObject({ error: true, code: 'VALIDATION_ERROR' });
    }
  });
});

describe('GET /performance', () => {
  it("gives the lab's metrics over the paper journal's range, with P/L by day and by week", async () => {
    // Monday 5 January 2026: two trades that day, one on Tuesday, one the next Monday; one before the range.
    const app = (
      await withTrades([
        trade('paper:before', MONDAY_NOON - 3 * DAY, 50),
        trade('paper:1', MONDAY_NOON + HOUR, 20),
        trade('paper:2', MONDAY_NOON + 2 * HOUR, -10),
        trade('paper:3', MONDAY_NOON + DAY, 30),
        trade('paper:4', MONDAY_NOON + 7 * DAY, -5),
      ])
    ).app;
    const res = await app.inject({ url: `/performance?account=paper&from=${iso(MONDAY_NOON)}&to=${iso(MONDAY_NOON + 8 * DAY)}` });
    expect(res.statusCode).toBe(200);
    const p = PerformanceSchema.parse(res.json());
    // PAPER_BALANCE plus what the account made before the range.
    expect(p.initial_equity).toBe(h!.config.PAPER_BALANCE + 50);
    expect(p.metrics).toMatchObject({ net_profit: 35, trade_count: 4, win_rate: 0.5, gross_profit: 50, gross_loss: 15, longest_losing_streak: 1 });
    expect(p.metrics.final_equity).toBe(p.initial_equity + 35);
    expect(p.metrics.max_drawdown).toBe(10);
    expect(p.pnl_by_day).toEqual([
      { start: '2026-01-05', pnl: 10, trades: 2 },
      { start: '2026-01-06', pnl: 30, trades: 1 },
      { start: '2026-01-12', pnl: -5, trades: 1 },
    ]);
    expect(p.pnl_by_week).toEqual([
      { start: '2026-01-05', pnl: 40, trades: 3 },
      { start: '2026-01-12', pnl: -5, trades: 1 },
    ]);
    expect(p.equity.map((e) => e.equity)).toEqual([20, 10, 40, 35].map((d) => p.initial_equity + d));
  });

  it('says live performance needs the account service when ACCOUNT_URL is not set', async () => {
    const app = (await withTrades([])).app;
    const res = await app.inject({ url: '/performance?account=live' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ code: 'NOT_CONFIGURED' });
  });

  it('needs an account', async () => {
    const app = (await withTrades([])).app;
    expect((await app.inject({ url: '/performance' })).statusCode).toBe(422);
  });
});

describe('performanceOf', () => {
  it('counts the days without a trade in the daily returns, as a backtest marks every day', () => {
    const trades = [trade('a', MONDAY_NOON, 100), trade('b', MONDAY_NOON + 4 * DAY, -50)];
    const dense = performanceOf('paper', trades, 10_000, MONDAY_NOON - HOUR, MONDAY_NOON + 8 * DAY);
    const sparse = performanceOf('paper', trades, 10_000, MONDAY_NOON - HOUR, MONDAY_NOON + 4 * DAY + HOUR);
    const weekend = performanceOf('paper', trades, 10_000, MONDAY_NOON - HOUR, MONDAY_NOON + 5 * DAY + 11 * HOUR);
    expect(dense.metrics.sharpe).not.toBeNull();
    // The next Monday and Tuesday, with no change, lower the mean daily return: the Sharpe ratio differs.
    expect(dense.metrics.sharpe).not.toBe(sparse.metrics.sharpe);
    // Saturday is no trading day: it is not marked (and Sunday's hours belong to Monday's).
    expect(weekend.metrics.sharpe).toBe(sparse.metrics.sharpe);
  });

  it('measures exposure as the share of the range with a trade open, overlaps counted once', () => {
    const trades = [trade('a', MONDAY_NOON + HOUR, 1), trade('b', MONDAY_NOON + HOUR + HOUR / 2, 1)];
    // Open from 12:00 to 13:30 of a 10-hour range.
    expect(performanceOf('paper', trades, 10_000, MONDAY_NOON, MONDAY_NOON + 10 * HOUR).metrics.exposure).toBe(0.15);
  });
});
