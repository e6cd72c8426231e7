import type { OpenPosition } from '@fxdesk/schemas';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, describeError } from './api.js';
import { useDesk } from './use-desk.js';

/** How often the open positions are read again: the execution service has no stream of them. */
const POLL_MS = 3000;

export type Book =
  | { state: 'loading' }
  | { state: 'not_configured' }
  | { state: 'error'; message: string; positions: OpenPosition[] }
  | { state: 'ready'; positions: OpenPosition[] };

/** The strategy's open positions at the venue, read every few seconds (and after each action). */
export function usePositions(): { book: Book; refresh: () => void } {
  const { api } = useDesk();
  const [book, setBook] = useState<Book>({ state: 'loading' });
  const isReading = useRef(false);
  const refresh = useCallback(() => {
    if (isReading.current) return;
    isReading.current = true;
    api
      .positions()
      .then(({ positions }) => setBook({ state: 'ready', positions }))
      .catch((err: unknown) => {
        if (err instanceof ApiError && err.code === 'NOT_CONFIGURED') setBook({ state: 'not_configured' });
        else setBook((shown) => ({ state: 'error', message: describeError(err), positions: 'positions' in shown ? shown.positions : [] }));
      })
      .finally(() => (isReading.current = false));
  }, [api]);
  const isConfigured = book.state !== 'not_configured';
  useEffect(() => {
    if (!isConfigured) return;
    refresh();
    const timer = setInterval(refresh, POLL_MS);
    return () => clearInterval(timer);
  }, [refresh, isConfigured]);
  return { book, refresh };
}
