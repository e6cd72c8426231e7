import type { Clock } from '@fxdesk/primitives';
import type { FeedState, FeedStateChange } from './feed.js';
import { Listeners } from './listeners.js';
import type { Quote, Unsubscribe } from './types.js';

/**
 * What every QuoteFeed does alike: it holds its connection state and tells its listeners of each
 * change and of each quote (every listener gets its own copy). A feed extends it and says when
 * its state moves and when a quote arrives.
 */
export abstract class FeedEvents {
  protected current: FeedState = 'disconnected';
  protected abstract readonly clock: Clock;
  private readonly stateListeners = new Listeners<FeedStateChange>();
  private readonly quoteListeners = new Listeners<Quote>((quote) => ({ ...quote }));

  state(): FeedState {
    return this.current;
  }

  onState(listener: (change: FeedStateChange) => void): Unsubscribe {
    return this.stateListeners.add(listener);
  }

  onQuote(listener: (quote: Quote) => void): Unsubscribe {
    return this.quoteListeners.add(listener);
  }

  /** Moves to `state` (a move to the state it is in is none) and tells the listeners why. */
  protected transition(state: FeedState, reason?: string): void {
    if (state === this.current) return;
    this.current = state;
    this.stateListeners.emit({ state, at: this.clock.now(), ...(reason === undefined ? {} : { reason }) });
  }

  protected emitQuote(quote: Quote): void {
    this.quoteListeners.emit(quote);
  }
}
