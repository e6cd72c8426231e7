import { bannersOf } from '../banners.js';
import { useDesk, useNow } from '../use-desk.js';

/** What is wrong with the desk (or the market), above every page; announced as it changes. */
export function Banners() {
  const { state, reload } = useDesk();
  // Every second: the load banner counts down to its next read.
  const now = useNow(1000);
  const banners = bannersOf(state, now);
  return (
    <div class="banners" aria-live="polite">
      {banners.map((b) => (
        <div key={b.id} class={`banner banner-${b.level}`} role={b.level === 'error' ? 'alert' : 'status'} data-banner={b.id}>
          <strong>{b.title}.</strong> {b.text}
          {b.id === 'load' && (
            <button type="button" class="secondary" onClick={reload}>
              Retry
            </button>
          )}
        </div>
      ))}
    </div>
  );
}
