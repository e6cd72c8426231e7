import type { Database } from '@fxdesk/core';

/** What became of a day's summary: announced (each account's), not sent (switched off, no NOTIFICATION_URL), or a day before announcements began. */
export type DailySummaryOutcome = 'announced' | 'off' | 'before';

/** The UTC days whose summary the leader has dealt with, one row each: the next day to summarize follows the last. */
export class DailySummaryStore {
  constructor(private readonly db: Database) {}

  /** The last day dealt with (`YYYY-MM-DD`), or undefined before the first. */
  async lastDay(): Promise<string | undefined> {
    const row = await this.db.one<{ day: string | null }>('SELECT MAX(day) AS day FROM strategy_daily_summaries');
    return row?.day ?? undefined;
  }

  /** Records `day` as dealt with, once (a second leader's record of it changes nothing). */
  async record(day: string, outcome: DailySummaryOutcome, decidedAt: string): Promise<void> {
    await this.db.run('INSERT INTO strategy_daily_summaries (day, outcome, decided_at) VALUES (@day, @outcome, @decidedAt) ON CONFLICT (day) DO NOTHING', {
      day,
      outcome,
      decidedAt,
    });
  }
}
