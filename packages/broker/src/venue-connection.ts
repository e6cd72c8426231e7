import type { Clock, TimerHandle } from '@fxdesk/primitives';
import { BrokerError } from './errors.js';
import { Listeners } from './listeners.js';
import type { Unsubscribe } from './types.js';

export interface VenueConnectionOptions {
  clock: Clock;
  /** Between two health probes, from the first connect on (0: none). */
  healthIntervalMs: number;
  /** A read that the venue answers only while it can be traded on. */
  probe: () => Promise<unknown>;
}

/**
 * A request-response venue's connection as a TradingTerminal reports it (OANDA v20, MetaApi):
 * the connected flag and its listeners, told of each change; the probe that sets it (answered:
 * connected; failed for any reason but throttling, which says nothing of the link: disconnected),
 * one at a time; and the health timer that probes every `healthIntervalMs` on the clock until
 * closed, so a venue that comes back is seen.
 */
export class VenueConnection {
  private connected = false;
  private closed = false;
  private probing: Promise<void> | undefined;
  private healthTimer: TimerHandle | undefined;
  private readonly listeners = new Listeners<boolean>();

  constructor(private readonly options: VenueConnectionOptions) {}

  get isConnected(): boolean {
    return this.connected;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  onChange(listener: (connected: boolean) => void): Unsubscribe {
    return this.listeners.add(listener);
  }

  /** Sets the flag; the listeners hear of a change only. */
  set(connected: boolean): void {
    if (connected === this.connected) return;
    this.connected = connected;
    this.listeners.emit(connected);
  }

  /** Probes the venue (a probe under way is shared) and sets the flag from the outcome; rejects with the probe's failure. */
  probe(): Promise<void> {
    this.probing ??= (async () => {
      try {
        await this.options.probe();
        if (!this.closed) this.set(true);
      } catch (err) {
        if (!(err instanceof BrokerError && err.kind === 'rate_limited')) this.set(false);
        throw err;
      } finally {
        this.probing = undefined;
      }
    })();
    return this.probing;
  }

  /** Arms the next health probe, unless one is armed, none is wanted or the connection is closed. */
  scheduleHealth(): void {
    if (this.closed || this.options.healthIntervalMs <= 0 || this.healthTimer) return;
    this.healthTimer = this.options.clock
      .setTimeout(() => {
        this.healthTimer = undefined;
        // A failed probe already marked the connection down; the next one may bring it back.
        void this.probe()
          .catch(() => undefined)
          .finally(() => this.scheduleHealth());
      }, this.options.healthIntervalMs)
      .unref();
  }

  /** Final: no more probes, and disconnected. */
  close(): void {
    this.closed = true;
    if (this.healthTimer) this.options.clock.clearTimer(this.healthTimer);
    this.healthTimer = undefined;
    this.set(false);
  }
}
