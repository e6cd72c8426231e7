import { useRef, useState } from 'preact/hooks';
import { ApiError, describeError, newIdempotencyKey } from './api.js';

/** Where a close or a flatten stands: idle, sending, done, refused (a fresh click), or unsettled (a retry goes under the same key). */
export type ActionState =
  { step: 'idle' } | { step: 'sending' } | { step: 'done'; text: string } | { step: 'refused'; text: string } | { step: 'unsettled'; text: string };

/** Whether a failure leaves the outcome open: no answer, the action still running, or the execution service not sure. */
function isUnsettled(err: unknown): boolean {
  if (!(err instanceof ApiError)) return true;
  return err.isNetwork || err.status >= 500 || err.code === 'ACTION_IN_PROGRESS';
}

/**
 * A money action the console sends under its own Idempotency-Key: a new key for a new click, the
 * same key for the retry of a click whose outcome is open (no answer, 5xx, in progress), so a
 * double click or a retry is answered from the execution service's record and never acts twice.
 */
export function useMoneyAction<T>(send: (idempotencyKey: string) => Promise<T>, describe: (answer: T) => string, onSettled: () => void) {
  const [state, setState] = useState<ActionState>({ step: 'idle' });
  const key = useRef<string | null>(null);
  const isSending = useRef(false);

  const run = async () => {
    if (isSending.current) return;
    isSending.current = true;
    key.current ??= newIdempotencyKey();
    setState({ step: 'sending' });
    try {
      const answer = await send(key.current);
      key.current = null;
      setState({ step: 'done', text: describe(answer) });
    } catch (err) {
      const unsettled = isUnsettled(err);
      if (!unsettled) key.current = null;
      const text = describeError(err);
      const unknown = err instanceof ApiError && err.code === 'EXECUTION_OUTCOME_UNKNOWN';
      setState(
        unsettled
          ? { step: 'unsettled', text: unknown ? `${text}: the outcome is unknown, check it at the broker` : `${text}: retry sends the same request` }
          : { step: 'refused', text },
      );
    } finally {
      isSending.current = false;
      onSettled();
    }
  };

  return { state, run, isRetry: state.step === 'unsettled' };
}
