import type { StrategyEventName } from '@fxdesk/schemas';

/** The /events names the console listens to (the contract's list; the compiler holds them to it). */
export const EVENT_NAMES = [
  'status',
  'pair',
  'candle',
  'signal',
  'order',
  'delivery',
  'downstream',
  'lab',
  'reset',
] as const satisfies readonly StrategyEventName[];

export interface EventHandlers {
  /** One event's parsed data. */
  onEvent: (name: StrategyEventName, data: unknown) => void;
  /** The stream is open (again). */
  onOpen: () => void;
  /** The stream broke; the browser is retrying it with Last-Event-ID. */
  onInterrupted: () => void;
  /**
   * The stream had to be opened afresh (the browser gave up on it, say after a 401 or a 5xx):
   * events in between are lost, so the page reads everything again.
   */
  onRestart: () => void;
}

/** How long to wait before opening a stream the browser gave up on, by attempt: 1 s doubling to 15 s. */
export function reopenDelayMs(attempt: number): number {
  return Math.min(15_000, 1000 * 2 ** Math.max(0, attempt));
}

/**
 * The strategy's event stream. The browser's EventSource reconnects by itself after a network
 * break and sends Last-Event-ID, so the server resumes where it left off (or sends `reset`).
 * When the server answers with an error instead, EventSource stops for good; then a new one is
 * opened after a pause, and `onRestart` tells the page to read everything again.
 */
export function connectEvents(url: string, handlers: EventHandlers): () => void {
  let source: EventSource | null = null;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let attempt = 0;
  let closed = false;

  const open = (fresh: boolean) => {
    source = new EventSource(url);
    for (const name of EVENT_NAMES) {
      source.addEventListener(name, (event: MessageEvent<string>) => {
        let data: unknown;
        try {
          data = JSON.parse(event.data);
        } catch {
          return;
        }
        handlers.onEvent(name, data);
      });
    }
    source.onopen = () => {
      attempt = 0;
      handlers.onOpen();
      if (fresh) handlers.onRestart();
      fresh = false;
    };
    source.onerror = () => {
      if (closed || !source) return;
      handlers.onInterrupted();
      if (source.readyState !== EventSource.CLOSED) return;
      source = null;
      timer = setTimeout(() => open(true), reopenDelayMs(attempt++));
    };
  };

  open(false);
  return () => {
    closed = true;
    if (timer) clearTimeout(timer);
    source?.close();
  };
}
