import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, describeError } from './api.js';

export interface Page<T> {
  items: T[];
  next: string | null;
}

export interface Paged<T> {
  items: T[];
  /** More (older) items to read. */
  hasMore: boolean;
  loading: boolean;
  error: string | null;
  /** The call answered 404 NOT_CONFIGURED: the service behind it is not set up. */
  notConfigured: boolean;
  loadMore: () => void;
  /** Reads the first page again (new items at the top), keeping what was read beyond it. */
  refresh: () => void;
  /** Replaces one item (a live update), found by `key`. */
  patch: (key: string, update: (item: T) => T) => void;
  /** Puts a new item (a live one) at the top, or replaces it where it is. */
  add: (item: T) => void;
}

/**
 * A cursor-paged list, newest first: the first page at start and on `refresh`, older pages on
 * `loadMore`. `key` names an item, so a refreshed first page merges with what is shown.
 */
export function usePaged<T>(read: (cursor: string | null) => Promise<Page<T>>, key: (item: T) => string, deps: unknown[]): Paged<T> {
  const [items, setItems] = useState<T[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<string | null>(null);
  const [notConfigured, setNotConfigured] = useState(false);
  const generation = useRef(0);
  const readRef = useRef(read);
  readRef.current = read;

  const load = useCallback(
    async (cursor: string | null, mode: 'replace' | 'append' | 'refresh') => {
      const mine = generation.current;
      setLoading(true);
      try {
        const page = await readRef.current(cursor);
        if (mine !== generation.current) return;
        setError(null);
        setNotConfigured(false);
        if (mode === 'append') setItems((shown) => [...shown, ...page.items.filter((i) => !shown.some((s) => key(s) === key(i)))]);
        else if (mode === 'refresh') {
          setItems((shown) => {
            const fresh = new Set(page.items.map(key));
            return [...page.items, ...shown.filter((s) => !fresh.has(key(s)))];
          });
        } else setItems(page.items);
        if (mode !== 'refresh') setNext(page.next);
      } catch (err) {
        if (mine !== generation.current) return;
        setNotConfigured(err instanceof ApiError && err.code === 'NOT_CONFIGURED');
        setError(describeError(err));
      } finally {
        if (mine === generation.current) setLoading(false);
      }
    },
    // `read` is taken from the ref at each call and `key` is a pure function of an item.
    [],
  );

  useEffect(() => {
    generation.current++;
    setItems([]);
    setNext(null);
    void load(null, 'replace');
  }, deps);

  return {
    items,
    hasMore: next !== null,
    loading,
    error,
    notConfigured,
    loadMore: () => {
      if (next) void load(next, 'append');
    },
    refresh: () => void load(null, 'refresh'),
    patch: (id, update) => setItems((shown) => shown.map((s) => (key(s) === id ? update(s) : s))),
    add: (item) => setItems((shown) => (shown.some((s) => key(s) === key(item)) ? shown.map((s) => (key(s) === key(item) ? item : s)) : [item, ...shown])),
  };
}
