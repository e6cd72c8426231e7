import type { LabJobStatus } from '@fxdesk/schemas';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, describeError } from '../api.js';
import { nextReadMs } from './jobs.js';

export type JobRead<T> =
  | { state: 'loading' }
  /** `error`: the latest read failed (the job shown is the one read before). */
  | { state: 'ok'; job: T; error: string | null }
  | { state: 'error'; message: string; missing: boolean };

/**
 * A backtest or sweep, read at once and again every second while it is queued or running (no
 * read is sent before the previous one answered); `refresh` reads it again now (after a cancel).
 */
export function useJob<T extends { status: LabJobStatus }>(read: () => Promise<T>, key: string): { job: JobRead<T>; refresh: () => void } {
  const [job, setJob] = useState<JobRead<T>>({ state: 'loading' });
  const [reads, setReads] = useState(0);
  const readRef = useRef(read);
  readRef.current = read;
  const shownKey = useRef(key);

  useEffect(() => {
    if (shownKey.current !== key) {
      shownKey.current = key;
      setJob({ state: 'loading' });
    }
    let timer: ReturnType<typeof setTimeout> | null = null;
    let cancelled = false;
    const once = async () => {
      let status: LabJobStatus | null = null;
      let failure: unknown = null;
      try {
        const answer = await readRef.current();
        if (cancelled) return;
        status = answer.status;
        setJob({ state: 'ok', job: answer, error: null });
      } catch (err) {
        if (cancelled) return;
        failure = err;
        const missing = err instanceof ApiError && err.status === 404;
        setJob((shown) =>
          shown.state === 'ok' && !missing ? { ...shown, error: describeError(err) } : { state: 'error', message: describeError(err), missing },
        );
      }
      const delay = nextReadMs(status, failure);
      if (delay !== null) timer = setTimeout(() => void once(), delay);
    };
    void once();
    return () => {
      cancelled = true;
      if (timer) clearTimeout(timer);
    };
  }, [key, reads]);

  return { job, refresh: () => setReads((n) => n + 1) };
}
