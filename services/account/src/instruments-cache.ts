import type { Instrument } from '@fxdesk/broker';
import type { Clock } from '@fxdesk/primitives';

export interface CachedInstruments {
  instruments: Instrument[];
  /** Whether this answer came from memory rather than a broker call. */
  cached: boolean;
  /** Epoch ms of the broker call that produced the list. */
  fetchedAt: number;
  /** Epoch ms after which the next read asks the broker again. */
  expiresAt: number;
}

/**
 * The broker's instrument list, kept for `ttlMs` on the injected clock. Concurrent misses share
 * one broker call; a failed call is not cached, so the next read tries again.
 */
export class InstrumentsCache {
  private entry: { instruments: Instrument[]; fetchedAt: number } | undefined;
  private inFlight: Promise<{ instruments: Instrument[]; fetchedAt: number }> | undefined;

  constructor(
    private readonly load: () => Promise<Instrument[]>,
    private readonly clock: Clock,
    private readonly ttlMs: number,
  ) {}

  async get(): Promise<CachedInstruments> {
    const entry = this.entry;
    if (entry && this.clock.now() < entry.fetchedAt + this.ttlMs) {
      return { ...entry, cached: true, expiresAt: entry.fetchedAt + this.ttlMs };
    }
    this.inFlight ??= this.refresh();
    const fresh = await this.inFlight;
    return { ...fresh, cached: false, expiresAt: fresh.fetchedAt + this.ttlMs };
  }

  private async refresh(): Promise<{ instruments: Instrument[]; fetchedAt: number }> {
    try {
      const instruments = await this.load();
      this.entry = { instruments, fetchedAt: this.clock.now() };
      return this.entry;
    } finally {
      this.inFlight = undefined;
    }
  }
}
