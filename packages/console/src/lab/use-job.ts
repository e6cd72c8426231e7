import type { LabEvent, LabJobStatus } from '@fxdesk/schemas';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, describeError } from '../api.js';
import { useDesk } from '../use-desk.js';
import { jobNews, nextReadMs } from './jobs.js';

export type JobRead<T> =
  | { state: 'loading' }
  /** `error`: the latest read failed (the job shown is the one read before). */
  | { state: 'ok'; job: T; error: string | null }
  | { state: 'error'; message: string; missing: boolean };

/** A sweep's ranking is read again at most this often as its backtests end (each one `lab` event). */
const MEMBERS_READ_MS = 5000;

/**
 * A backtest or sweep, followed on the desk's event stream rather than by polling (its reads
 * share spec 000's 60 GETs a minute): read at once, again at each status change its `lab`
 * events tell (and, for a sweep, at most every 5 s as its backtests end), its progress moved in
 * place from the events between. While the stream is down it is read every 10 s as long as it
 * moves, and once more when the stream is back; a `reset` reads it again too. `refresh` reads
 * it again now (after a cancel).
 */
export function useJob<T extends { status: LabJobStatus; progress: number }>(
  read: () => Promise<T>,
  followed: { kind: LabEvent['kind']; id: string },
): { job: JobRead<T>; refresh: () => void } {
  const { listen, state } = useDesk();
  const { kind, id } = followed;
  const [job, setJob] = useState<JobRead<T>>({ state: 'loading' });
  const [reads, setReads] = useState(0);
  const readRef = useRef(read);
  readRef.current = read;
  const shownKey = useRef(`${kind}/${id}`);
  const status = useRef<LabJobStatus | null>(null);
  /** Reads sent and not answered yet; a status an event told meanwhile, checked against their answer. */
  const inFlight = useRef(0);
  const heard = useRef<LabJobStatus | null>(null);
  const isStreamDown = state.connection === 'reconnecting';

  useEffect(() => {
    if (shownKey.current !== `${kind}/${id}`) {
      shownKey.current = `${kind}/${id}`;
      status.current = null;
      setJob({ state: 'loading' });
    }
    let timer: ReturnType<typeof setTimeout> | null = null;
    let cancelled = false;
    const once = async () => {
      let failure: unknown = null;
      inFlight.current++;
      try {
        const answer = await readRef.current().finally(() => inFlight.current--);
        if (cancelled) return;
        status.current = answer.status;
        setJob({ state: 'ok', job: answer, error: null });
        // An event told another status while it was read: the answer was older.
        const told = heard.current;
        heard.current = null;
        if (told !== null && told !== answer.status) setReads((n) => n + 1);
      } catch (err) {
        if (cancelled) return;
        failure = err;
        const missing = err instanceof ApiError && err.status === 404;
        setJob((shown) =>
          shown.state === 'ok' && !missing ? { ...shown, error: describeError(err) } : { state: 'error', message: describeError(err), missing },
        );
      }
      const delay = nextReadMs(status.current, failure, isStreamDown);
      if (delay !== null) timer = setTimeout(() => void once(), delay);
    };
    void once();
    return () => {
      cancelled = true;
      if (timer) clearTimeout(timer);
    };
  }, [kind, id, reads, isStreamDown]);

  useEffect(() => {
    let membersTimer: ReturnType<typeof setTimeout> | null = null;
    const readAgain = () => setReads((n) => n + 1);
    const unlisten = listen((name, data) => {
      if (name === 'reset') return readAgain();
      if (name !== 'lab') return;
      const event = data as LabEvent;
      const news = jobNews(event, { kind, id, status: status.current });
      if (news?.type === 'read' && inFlight.current > 0) heard.current = event.status;
      else if (news?.type === 'read') {
        // Known from now on: the events after it that only move its progress need no read.
        status.current = event.status;
        readAgain();
      } else if (news?.type === 'progress') {
        const progress = news.progress;
        setJob((shown) => (shown.state === 'ok' ? { ...shown, job: { ...shown.job, progress } } : shown));
      } else if (news?.type === 'member_ended' && membersTimer === null) {
        membersTimer = setTimeout(() => {
          membersTimer = null;
          readAgain();
        }, MEMBERS_READ_MS);
      }
    });
    return () => {
      unlisten();
      if (membersTimer) clearTimeout(membersTimer);
    };
  }, [listen, kind, id]);

  return { job, refresh: () => setReads((n) => n + 1) };
}
