import type { LabJobError, LabJobStatus } from '@fxdesk/schemas';
import { useState } from 'preact/hooks';
import { describeError } from '../api.js';
import { formatDateTime, formatDuration } from '../format.js';
import { isActive } from '../lab/jobs.js';
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
  onDelete: () => Promise<void>;
}

/** A job's state: progress while it moves (with Cancel), how it ended (the error of a failed one), and Delete once ended. */
export function JobStatus({ job, what, readError, onDelete }: JobStatusProps) {
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);
  const active = isActive(job.status);
  const percent = Math.floor(job.progress * 100);

  const act = async () => {
    setBusy(true);
    setFailure(null);
    try {
      await onDelete();
      setConfirming(false);
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
