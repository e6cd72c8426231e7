import type { LabEvent } from '@fxdesk/schemas';
import type { Logger } from 'pino';
import { latestWrite } from '../latest-write.js';
import type { FailedJobs, LabStore } from './store.js';

/** Hears every job's changes (the console's event hub: `lab` events). */
export interface LabListener {
  labChanged(event: LabEvent): void;
}

/** Progress is written when it moved by at least this much (or reached the end). */
const PROGRESS_STEP = 0.01;

/**
 * What the listener hears of the jobs: each change told as the store has it then, one store read
 * after another, so it hears each job's states in order; and a running job's progress, written
 * to the store by steps and told once stored.
 */
export class JobEvents {
  /** The `lab` events told so far, one after another. */
  private telling: Promise<unknown> = Promise.resolve();
  /** Progress writes on their way to the store. */
  private readonly writes = new Set<Promise<void>>();

  constructor(private readonly options: { store: LabStore; logger: Logger; listener?: LabListener }) {}

  /**
   * Tells the listener a job's state as the store has it now, when `changed`; answers `changed`.
   * `ifRunning`: only while it runs (progress written as it is cancelled is no news).
   */
  async told(kind: LabEvent['kind'], id: string, changed = true, ifRunning = false): Promise<boolean> {
    const { listener, store, logger } = this.options;
    if (!changed || !listener) return changed;
    const telling = this.telling.then(async () => {
      const state = await store.jobState(kind, id);
      if (state && (!ifRunning || state.status === 'running')) listener.labChanged({ kind, id, ...state });
    });
    this.telling = telling.catch((err: unknown) => logger.warn({ err, id }, 'reading a lab job for its event failed'));
    await this.telling;
    return changed;
  }

  async toldFailed(failed: FailedJobs): Promise<void> {
    for (const id of failed.sweeps) await this.told('sweep', id);
    for (const id of failed.backtests) await this.told('backtest', id);
  }

  /** Ends a sweep's backtest (cancelled, failed), told when it had started: its queued state never was. */
  async endMember(id: string, end: () => Promise<boolean>): Promise<void> {
    const hasStarted = (await this.options.store.jobState('backtest', id))?.status === 'running';
    if ((await end()) && hasStarted) await this.told('backtest', id);
  }

  /**
   * Writes a running job's progress when it moved by a step or reached the end, never backwards,
   * and tells it; one write at a time (the newest next), so the store never goes back.
   */
  progressWriter(kind: LabEvent['kind'], id: string): (fraction: number) => void {
    const { store, logger } = this.options;
    const write = latestWrite(
      async (fraction: number) => {
        await (kind === 'backtest' ? store.setBacktestProgress(id, fraction) : store.setSweepProgress(id, fraction));
        await this.told(kind, id, true, true);
      },
      { onError: (err) => logger.warn({ err, id }, 'writing a lab job’s progress failed'), pending: this.writes },
    );
    let written = 0;
    return (fraction) => {
      if (fraction < written + PROGRESS_STEP && fraction < 1) return;
      written = Math.min(1, fraction);
      write(written);
    };
  }

  /** Settles once no progress write is on its way. */
  async whenWritten(): Promise<void> {
    while (this.writes.size > 0) await Promise.all([...this.writes]);
  }

  /** Settles once every event asked for so far is told. */
  async whenTold(): Promise<void> {
    await this.telling;
  }
}
