import type { LabJobError, LabJobStatus } from '@fxdesk/schemas';
import { useState } from 'preact/hooks';
import { describeError } from '../api.js';
import { formatDateTime, formatDuration } from '../format.js';
import { isActive } from '../lab/jobs.js';
import type { JobRead } from '../lab/use-job.js';
import { Link, navigate } from '../router.js';
import { routeHref } from '../routes.js';
import { StatusBadge } from './signal-table.js';

interface Job {
  status: LabJobStatus;
  progress: number;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  error: LabJobError | null;
}

interface JobStatusProps {
  job: Job;
  /** "backtest" or "sweep": what the buttons and texts name. */
  what: string;
  /** The latest read failed: what is shown is the read before. */
  readError: string | null;
  /** DELETE: cancels while queued or running, deletes once ended. */
  remove: () => Promise<unknown>;
  /** Reads the job again (after a cancel; a deleted one leaves for the lab). */
  refresh: () => void;
}

/** A job's state: progress while it moves (with Cancel), how it ended (the error of a failed one), and Delete once ended. */
export function JobStatus({ job, what, readError, remove, refresh }: JobStatusProps) {
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);
  const active = isActive(job.status);
  const percent = Math.floor(job.progress * 100);

  const act = async () => {
    setBusy(true);
    setFailure(null);
    try {
      await remove();
      setConfirming(false);
      if (active) refresh();
      else navigate(routeHref({ page: 'lab' }));
    } catch (err) {
      setFailure(describeError(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="panel job-status" aria-label={`The ${what}'s state`}>
      <p class="job-line">
        <StatusBadge status={job.status} /> <span data-job-status={job.status}>{statusText(job, what)}</span>
      </p>
      {active && (
        <div class="progress-row">
          <progress max={100} value={job.status === 'queued' ? undefined : percent} aria-label={`${what} progress`}>
            {percent} %
          </progress>
          <span class="num">{job.status === 'queued' ? 'waiting for a worker' : `${percent} %`}</span>
          <button type="button" class="secondary" disabled={busy} onClick={() => void act()}>
            Cancel
          </button>
        </div>
      )}
      {job.status === 'failed' && job.error && (
        <p class="error" role="alert">
          The {what} failed: {job.error.message} <span class="muted">({job.error.code})</span>
        </p>
      )}
      {!active &&
        (confirming ? (
          <div class="confirm">
            <p>Delete this {what} and its results?</p>
            <button type="button" disabled={busy} onClick={() => void act()}>
              Delete
            </button>
            <button type="button" class="secondary" onClick={() => setConfirming(false)}>
              Keep it
            </button>
          </div>
        ) : (
          <button type="button" class="secondary" onClick={() => setConfirming(true)}>
            Delete {what}
          </button>
        ))}
      {failure && (
        <p class="error" role="alert">
          {failure}
        </p>
      )}
      {readError && (
        <p class="note">
          The {what} cannot be read now ({readError}); shown as last read.
        </p>
      )}
    </section>
  );
}

/** A job's page before its first answer: reading it, or why it cannot be shown (gone, or the read failed). */
export function JobUnread({ what, read }: { what: string; read: Exclude<JobRead<unknown>, { state: 'ok' }> }) {
  if (read.state === 'loading')
    return (
      <p class="loading" role="status">
        Reading the {what}…
      </p>
    );
  return (
    <div class="panel">
      <h1>{what === 'sweep' ? 'Sweep' : 'Backtest'}</h1>
      <p class={read.missing ? 'empty' : 'error'} role="alert">
        {read.missing ? `No such ${what}: it may have been deleted. ` : `The ${what} cannot be read: ${read.message}. `}
        <Link href={routeHref({ page: 'lab' })}>Back to the lab</Link>
      </p>
    </div>
  );
}

function statusText(job: Job, what: string): string {
  switch (job.status) {
    case 'queued':
      return `Queued since ${formatDateTime(job.created_at)}`;
    case 'running':
      return `Running since ${formatDateTime(job.started_at)}`;
    case 'done': {
      const took = job.started_at && job.finished_at ? ` in ${formatDuration(Date.parse(job.finished_at) - Date.parse(job.started_at))}` : '';
      return `Done at ${formatDateTime(job.finished_at)}${took}`;
    }
    case 'failed':
      return `Failed at ${formatDateTime(job.finished_at)}`;
    case 'cancelled':
      return `The ${what} was cancelled${job.finished_at ? ` at ${formatDateTime(job.finished_at)}` : ''}: it has no results`;
  }
}
