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

/** Writes a job's progress (see {@link JobEvents.progressWriter}). */
export interface ProgressWriter {
  (fraction: number): void;
  /** Settles once the newest progress asked is stored (a failed write counts) and told. */
  whenWritten(): Promise<void>;
}

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
  progressWriter(kind: LabEvent['kind'], id: string): ProgressWriter {
    const { store, logger } = this.options;
    let asked = 0;
    let stored = 0;
    const onStored: Array<() => void> = [];
    const write = latestWrite(
      async (fraction: number) => {
        try {
          await (kind === 'backtest' ? store.setBacktestProgress(id, fraction) : store.setSweepProgress(id, fraction));
          await this.told(kind, id, true, true);
        } finally {
          stored = fraction;
          if (stored === asked) for (const resolve of onStored.splice(0)) resolve();
        }
      },
      { onError: (err) => logger.warn({ err, id }, 'writing a lab job’s progress failed'), pending: this.writes },
    );
    const progress = (fraction: number) => {
      if (fraction < asked + PROGRESS_STEP && fraction < 1) return;
      asked = Math.min(1, fraction);
      write(asked);
    };
    // The newest progress asked is the last written: once it is, every step before it is too.
    const whenWritten = () => (stored === asked ? Promise.resolve() : new Promise<void>((resolve) => onStored.push(resolve)));
    return Object.assign(progress, { whenWritten });
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
