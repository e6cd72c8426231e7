import type { Database } from '@fxdesk/core';

/**
 * The strategy's run as recorded: the last start, stop or restart. Every replica runs what it
 * says; `generation` counts the changes, so a replica sees a restart (same instruments, same
 * dry_run) as a change too.
 */
export interface RunState {
  running: boolean;
  instruments: string[];
  dryRun: boolean;
  /** When the run last started or restarted (ISO). */
  startedAt: string;
  /** When this change was recorded (ISO): for a stopped run, when it stopped. */
  changedAt: string;
  /** 1 for the first change ever recorded, one more for each after it. */
  generation: number;
}

/** A change of the run to record: the state without its generation, which the store counts. */
export type RunChange = Omit<RunState, 'generation' | 'changedAt'>;

/** The run's row; its flags are 0 and 1 (BOOLEAN in a PostgreSQL schema of before: true and false). */
type RunRow = {
  running: number | boolean;
  instruments: string;
  dry_run: number | boolean;
  started_at: string;
  updated_at: string;
  generation: number;
};

// A row from before issue 15 has no start time: it reads as its last update.
const RUN = 'SELECT running, instruments, dry_run, COALESCE(started_at, updated_at) AS started_at, updated_at, generation FROM strategy_run_state WHERE id = 1';

// The upsert re-checks the generation on the row as the last writer left it, so of any number of
// changes made over one generation, on any replica, exactly one is recorded.
const RECORD_RUN = `INSERT INTO strategy_run_state (id, running, instruments, dry_run, started_at, updated_at, generation)
  VALUES (1, @running, @instruments, @dryRun, @startedAt, @changedAt, @expected + 1)
  ON CONFLICT (id) DO UPDATE SET running = excluded.running, instruments = excluded.instruments, dry_run = excluded.dry_run,
    started_at = excluded.started_at, updated_at = excluded.updated_at, generation = excluded.generation
  WHERE strategy_run_state.generation = @expected`;

/** The run, one row that every replica runs (see StrategyEngine). */
export class RunStore {
  constructor(private readonly db: Database) {}

  /** The run as last recorded; undefined when none ever was. */
  async runState(): Promise<RunState | undefined> {
    const row = await this.db.one<RunRow>(RUN);
    return (
      row && {
        running: Boolean(row.running),
        instruments: JSON.parse(row.instruments) as string[],
        dryRun: Boolean(row.dry_run),
        startedAt: row.started_at,
        changedAt: row.updated_at,
        generation: row.generation,
      }
    );
  }

  /**
   * Records a start, stop or restart made after the state of generation `expected` (0: none
   * recorded yet): the new state, or undefined, with nothing written, when another change was
   * recorded since.
   */
  async recordRun(change: RunChange, at: string, expected: number): Promise<RunState | undefined> {
    const { running, instruments, dryRun, startedAt } = change;
    const params = { running, instruments: JSON.stringify(instruments), dryRun, startedAt, changedAt: at, expected };
    const { changes } = await this.db.run(RECORD_RUN, params);
    return changes === 1 ? { running, instruments: [...instruments], dryRun, startedAt, changedAt: at, generation: expected + 1 } : undefined;
  }
}
