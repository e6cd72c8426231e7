import { noSignalText } from '../banners.js';
import { useDesk, useNow } from '../use-desk.js';

/** The empty state of a signal list: when the strategy next decides. */
export function NoSignal() {
  const now = useNow(1000);
  const { state } = useDesk();
  return <p class="empty">{noSignalText(state, now)}</p>;
}
