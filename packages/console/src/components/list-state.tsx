import type { Paged } from '../use-paged.js';

/** What the list's controls read of a paged list, whatever its items. */
export type ListControls = Pick<Paged<unknown>, 'items' | 'hasMore' | 'loading' | 'error' | 'notConfigured' | 'loadMore' | 'refresh'>;

/** Reads the next (older) page of a list, while it has one. */
export function MoreButton({ list, what }: { list: ListControls; what: string }) {
  if (!list.hasMore) return null;
  return (
    <button type="button" class="secondary more" onClick={list.loadMore} disabled={list.loading}>
      {list.loading ? 'Reading…' : `Older ${what}`}
    </button>
  );
}

/** A list's state above its items: not configured, failed (with Retry), or the first read under way. */
export function ListState({ list, what }: { list: ListControls; what: string }) {
  if (list.notConfigured) return <p class="empty">No {what}: the strategy has no URL for that service.</p>;
  if (list.error)
    return (
      <p class="error" role="alert">
        The {what} cannot be read: {list.error}.{' '}
        <button type="button" class="secondary" onClick={list.refresh}>
          Retry
        </button>
      </p>
    );
  if (list.loading && list.items.length === 0)
    return (
      <p class="loading" role="status">
        Reading the {what}…
      </p>
    );
  return null;
}
