import type { StrategyStatus } from '@fxdesk/schemas';
import { formatHourMinute } from '../format.js';
import { nextCandleClose } from '../market-time.js';
import { useNow } from '../use-desk.js';

/** The empty state of a signal list: when the strategy next decides. */
export function NoSignal({ status, subject = 'signal' }: { status: StrategyStatus | null; subject?: string }) {
  const now = useNow(1000);
  if (!status) return <p class="empty">No {subject} yet.</p>;
  if (!status.running) return <p class="empty">No {subject} yet: the strategy is stopped.</p>;
  const close = nextCandleClose(status.timeframe, now);
  return (
    <p class="empty">
      No {subject} yet: the next {status.timeframe} candle closes at {formatHourMinute(close)} UTC.
    </p>
  );
}
