import path from 'node:path';
import { ManualClock } from '@fxdesk/primitives';
import { afterAll, describe, expect, it } from 'vitest';
import { advanceUntilSignal, harness, MONDAY_NOON, sourceWith, tempDir } from './helpers.js';

const temp = tempDir();
afterAll(() => temp.remove());

describe('signals in SQLite', () => {
  it('survive a restart of the service: the latest signal per pair, the history and total_signals_today', async () => {
    const dbFile = path.join(temp.dir, 'restart.db');
    const clock = new ManualClock(MONDAY_NOON);
    const first = await harness({ clock, dbFile, env: { MIN_CONFLUENCE: '1' } });
    await first.app.inject({ method: 'POST', url: '/start' });
    await advanceUntilSignal(first);
    const history = (await first.app.inject({ url: '/signals' })).json();
    const status = (await first.app.inject({ url: '/status' })).json();
    const stored = history.signals[0];
    await first.close();

    const second = await harness({ clock, dbFile, env: { MIN_CONFLUENCE: '1', RESUME_ON_START: 'false' } });
    try {
      expect((await second.app.inject({ url: `/signals/${stored.instrument}` })).json().signal).toEqual(stored);
      expect((await second.app.inject({ url: '/signals' })).json()).toEqual(history);
      const after = (await second.app.inject({ url: '/status' })).json();
      expect(after.total_signals_today).toBe(status.total_signals_today);
      expect(after.last_signal_time).toBe(status.last_signal_time);
      expect(after.running).toBe(false);
    } finally {
      await second.close();
    }
  });

  it('counts total_signals_today by UTC day', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 5, 23, 0));
    const h = await harness({ clock, env: { MIN_CONFLUENCE: '1' } });
    try {
      await h.app.inject({ method: 'POST', url: '/start' });
      await advanceUntilSignal(h);
      const today = (await h.app.inject({ url: '/status' })).json().total_signals_today;
      expect(today).toBeGreaterThan(0);
      await h.app.inject({ method: 'POST', url: '/stop' });
      clock.set(Date.UTC(2026, 0, 6, 0, 0, 1));
      const tomorrow = (await h.app.inject({ url: '/status' })).json();
      expect(tomorrow.total_signals_today).toBe(0);
      expect(tomorrow.last_signal_time).not.toBeNull();
    } finally {
      await h.close();
    }
  });

  it('keeps the paper account across a restart', async () => {
    const dbFile = path.join(temp.dir, 'paper.db');
    const clock = new ManualClock(MONDAY_NOON);
    const first = await harness({ clock, dbFile, env: { MIN_CONFLUENCE: '1' } });
    await first.app.inject({ method: 'POST', url: '/start', payload: { dry_run: true } });
    for (let i = 0; i < 60; i++) await first.advance(300_000);
    const before = (await first.app.inject({ url: '/status' })).json().paper_account;
    expect(before.balance).not.toBe(100_000);
    await first.close();
    const second = await harness({ clock, dbFile });
    try {
      expect((await second.app.inject({ url: '/status' })).json().paper_account.balance).toBe(before.balance);
    } finally {
      await second.close();
    }
  });
});

describe('the running state across a process restart', () => {
  async function statusAfterStart(h: Awaited<ReturnType<typeof harness>>) {
    // The resume runs in the background once the app is ready.
    for (let i = 0; i < 20 && !(await h.app.inject({ url: '/status' })).json().running; i++) await h.settle();
    return (await h.app.inject({ url: '/status' })).json();
  }

  it('resumes the run that was going when the process stopped, with its instruments and dry_run', async () => {
    const dbFile = path.join(temp.dir, 'resume.db');
    const clock = new ManualClock(MONDAY_NOON);
    const first = await harness({ clock, dbFile });
    await first.app.inject({ method: 'POST', url: '/start', payload: { instruments: ['EUR_USD', 'USD_JPY'], dry_run: true } });
    await first.close();

    const second = await harness({ clock, dbFile });
    try {
      const status = await statusAfterStart(second);
      expect(status.running).toBe(true);
      expect(status.active_pairs).toEqual(['EUR_USD', 'USD_JPY']);
      expect(status.dry_run).toBe(true);
    } finally {
      await second.close();
    }
  });

  it('does not resume a run stopped through POST /stop', async () => {
    const dbFile = path.join(temp.dir, 'stopped.db');
    const clock = new ManualClock(MONDAY_NOON);
    const first = await harness({ clock, dbFile });
    await first.app.inject({ method: 'POST', url: '/start' });
    await first.app.inject({ method: 'POST', url: '/stop' });
    await first.close();

    const second = await harness({ clock, dbFile });
    try {
      expect((await statusAfterStart(second)).running).toBe(false);
    } finally {
      await second.close();
    }
  });

  it('does not resume when RESUME_ON_START is false', async () => {
    const dbFile = path.join(temp.dir, 'no-resume.db');
    const clock = new ManualClock(MONDAY_NOON);
    const first = await harness({ clock, dbFile });
    await first.app.inject({ method: 'POST', url: '/start' });
    await first.close();

    const second = await harness({ clock, dbFile, env: { RESUME_ON_START: 'false' } });
    try {
      expect((await statusAfterStart(second)).running).toBe(false);
    } finally {
      await second.close();
    }
  });
});

describe('AUTO_START', () => {
  async function statusAfterBoot(h: Awaited<ReturnType<typeof harness>>) {
    for (let i = 0; i < 20 && !(await h.app.inject({ url: '/status' })).json().running; i++) await h.settle();
    return (await h.app.inject({ url: '/status' })).json();
  }

  it('starts a fresh desk by itself on INSTRUMENTS, trading (dry_run false)', async () => {
    const h = await harness({ env: { AUTO_START: 'true', INSTRUMENTS: 'EUR_USD,GBP_USD' } });
    try {
      const status = await statusAfterBoot(h);
      expect(status).toMatchObject({ running: true, active_pairs: ['EUR_USD', 'GBP_USD'], dry_run: false });
    } finally {
      await h.close();
    }
  });

  it('stays stopped at the next start after a stop made through POST /stop', async () => {
    const dbFile = path.join(temp.dir, 'auto-stopped.db');
    const clock = new ManualClock(MONDAY_NOON);
    const first = await harness({ clock, dbFile, env: { AUTO_START: 'true' } });
    expect((await statusAfterBoot(first)).running).toBe(true);
    expect((await first.app.inject({ method: 'POST', url: '/stop' })).statusCode).toBe(200);
    await first.close();

    const second = await harness({ clock, dbFile, env: { AUTO_START: 'true' } });
    try {
      expect((await statusAfterBoot(second)).running).toBe(false);
    } finally {
      await second.close();
    }
  });

  it("shows, after a stop and a restart of the process, the stopped run's mode and that it was stopped, and when", async () => {
    const dbFile = path.join(temp.dir, 'stopped-live.db');
    const clock = new ManualClock(MONDAY_NOON);
    const first = await harness({ clock, dbFile, env: { AUTO_START: 'true' } });
    expect(await statusAfterBoot(first)).toMatchObject({ running: true, dry_run: false, idle: null });
    await first.advance(90_000);
    const stoppedAt = new Date(clock.now()).toISOString();
    expect((await first.app.inject({ method: 'POST', url: '/stop' })).statusCode).toBe(200);
    await first.close();

    clock.advance(3_600_000);
    const second = await harness({ clock, dbFile, env: { AUTO_START: 'true' } });
    try {
      const status = await statusAfterBoot(second);
      expect(status).toMatchObject({ running: false, dry_run: false, idle: { reason: 'stopped', since: stoppedAt } });
      expect(status.idle.message).toContain('POST /start');
      // The console reads the same record.
      expect((await second.app.inject({ url: '/console/status' })).json()).toMatchObject({ dry_run: false, idle: { reason: 'stopped' } });
    } finally {
      await second.close();
    }
  });

  it('waits for the market to list its symbols before starting, so a desk booting beside it starts right', async () => {
    const base = await harness();
    const real = base.deps.source;
    let failures = 2;
    const booting = sourceWith(real, {
      catalog: async () => {
        if (failures > 0) {
          failures -= 1;
          throw new Error('connect ECONNREFUSED 127.0.0.1:8010');
        }
        return real.catalog();
      },
    });
    const h = await harness({ clock: base.clock, deps: { source: booting }, env: { AUTO_START: 'true', INSTRUMENTS: 'USD_JPY' } });
    try {
      await h.settle();
      expect((await h.app.inject({ url: '/status' })).json()).toMatchObject({ running: false, idle: { reason: 'starting', since: null } });
      await h.advance(1000);
      await h.advance(2000);
      const status = await statusAfterBoot(h);
      expect(status.running).toBe(true);
      // The catalog's digits, not the 5-digit fallback of a market that could not be read.
      expect(h.engine.pair('USD_JPY')?.digits).toBe(3);
    } finally {
      await h.close();
      await base.close();
    }
  });

  it('leaves a fresh desk idle when off (the default), and says so', async () => {
    const h = await harness();
    try {
      expect(await statusAfterBoot(h)).toMatchObject({ running: false, dry_run: null, idle: { reason: 'never_started', since: null } });
    } finally {
      await h.close();
    }
  });
});

describe('GET /signals (history)', () => {
  it('lists signals newest first, filters by instrument and pages with next_cursor', async () => {
    const h = await harness({ env: { MIN_CONFLUENCE: '1' } });
    try {
      await h.app.inject({ method: 'POST', url: '/start' });
      for (let i = 0; i < 40; i++) await h.advance(300_000);
      const all = (await h.app.inject({ url: '/signals?limit=500' })).json().signals as { signal_id: string; generated_at: string; instrument: string }[];
      expect(all.length).toBeGreaterThan(5);
      const times = all.map((s) => s.generated_at);
      expect([...times].sort().reverse()).toEqual(times);

      const pages: string[] = [];
      let cursor: string | null = null;
      do {
        const page: { signals: { signal_id: string }[]; next_cursor: string | null } = (
          await h.app.inject({ url: `/signals?limit=2${cursor ? `&cursor=${cursor}` : ''}` })
        ).json();
        expect(page.signals.length).toBeLessThanOrEqual(2);
        pages.push(...page.signals.map((s) => s.signal_id));
        cursor = page.next_cursor;
      } while (cursor);
      expect(pages).toEqual(all.map((s) => s.signal_id));

      const instrument = all[0]!.instrument;
      const filtered = (await h.app.inject({ url: `/signals?instrument=${instrument}&limit=500` })).json().signals as { instrument: string }[];
      expect(filtered.length).toBe(all.filter((s) => s.instrument === instrument).length);
      expect(filtered.every((s) => s.instrument === instrument)).toBe(true);
    } finally {
      await h.close();
    }
  });

  it('answers 422 VALIDATION_ERROR for a cursor it did not issue and for a limit out of range', async () => {
    const h = await harness();
    try {
      const bad = await h.app.inject({ url: '/signals?cursor=nonsense' });
      expect(bad.statusCode).toBe(422);
      expect(bad.json()).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ path: 'query.cursor' }] });
      expect((await h.app.inject({ url: '/signals?limit=0' })).json().code).toBe('VALIDATION_ERROR');
      expect((await h.app.inject({ url: '/signals?limit=501' })).statusCode).toBe(422);
    } finally {
      await h.close();
    }
  });
});
