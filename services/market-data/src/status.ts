import type { CheckResult } from '@fxdesk/core';
import type { FeedState, FeedStateChange } from '@fxdesk/broker';
import type { Clock, TimerHandle } from '@fxdesk/primitives';
import type { StatusEvent } from '@fxdesk/schemas';

/** A status event before the per-client `dropped` counter is added. */
export type StreamStatus = Omit<StatusEvent, 'dropped'>;

export interface ConnectionMonitorOptions {
  clock: Clock;
  stalenessMs: number;
  /** The symbols served with live quotes; undefined while the catalog is unknown. */
  servedSymbols: () => readonly string[] | undefined;
  /** Whether the venue's schedule has `symbol` trading at `epochMs`. */
  isMarketOpen: (symbol: string, epochMs: number) => boolean;
  /** Called on every broker state transition and on every change of freshness. */
  onChange: () => void;
}

interface Freshness {
  /** Any served symbol trades now. */
  isMarketOpen: boolean;
  hasQuote: boolean;
  /** Milliseconds of silence, counted only since the later of connect, market open and last quote. */
  silentMs: number;
  isStale: boolean;
}

/** How often staleness is re-evaluated (the status event follows within this delay). */
const CHECK_INTERVAL_MS = 1000;
/** Most symbols a readiness detail names (a real account serves hundreds); the rest are counted. */
const NAMED_SYMBOLS_MAX = 10;

/**
 * The connection state the service reports: the broker session state, and whether quotes are
 * fresh. Silence only counts while the market is open, and only since the later of the last
 * quote, the (re)connection and the market's opening, so a quiet weekend never makes the
 * service stale and Sunday's open gets a full TICK_STALENESS_SECONDS before it does. Readiness
 * also waits for a first quote of every served symbol whose market is open.
 */
export class ConnectionMonitor {
  private readonly options: ConnectionMonitorOptions;
  private feedState: FeedState = 'disconnected';
  private feedReason: string | undefined = 'not connected yet';
  private feedSince: number;
  private lastQuoteAt: number | undefined;
  private readonly quotedSymbols = new Set<string>();
  private connectedAt: number | undefined;
  private openedAt: number | undefined;
  /** The market's state at the last evaluation; a change from closed to open sets openedAt. */
  private wasOpen: boolean | undefined;
  private reported: StreamStatus['state'] = 'disconnected';
  private timer: TimerHandle | undefined;

  constructor(options: ConnectionMonitorOptions) {
    this.options = options;
    this.feedSince = options.clock.now();
  }

  start(): void {
    this.timer = this.options.clock.setInterval(() => this.check(), CHECK_INTERVAL_MS).unref();
  }

  stop(): void {
    if (this.timer) this.options.clock.clearTimer(this.timer);
    this.timer = undefined;
  }

  get isConnected(): boolean {
    return this.feedState === 'connected';
  }

  noteFeedState(change: FeedStateChange): void {
    const now = this.options.clock.now();
    this.feedState = change.state;
    this.feedReason = change.reason;
    this.feedSince = now;
    if (change.state === 'connected') this.connectedAt = now;
    this.reported = this.status().state;
    this.options.onChange();
  }

  noteQuote(symbol: string): void {
    this.lastQuoteAt = this.options.clock.now();
    this.quotedSymbols.add(symbol);
    // Only a stale service needs re-evaluating when a quote arrives: it is fresh again.
    if (this.reported === 'stale') this.check();
  }

  /** Re-evaluates freshness and reports a change of state. */
  check(): void {
    const state = this.status().state;
    if (state === this.reported) return;
    if (this.reported === 'stale' && state === 'connected') this.feedReason = 'quotes resumed';
    this.reported = state;
    this.options.onChange();
  }

  status(): StreamStatus {
    const now = this.options.clock.now();
    const ts = new Date(now).toISOString();
    if (this.feedState !== 'connected') {
      return { state: 'disconnected', ts, reason: this.feedReason ?? `broker session ${this.feedState}` };
    }
    const freshness = this.freshness(now);
    if (freshness.isStale) return { state: 'stale', ts, reason: this.staleReason(freshness) };
    return this.feedReason ? { state: 'connected', ts, reason: this.feedReason } : { state: 'connected', ts };
  }

  /** The `broker` readiness check: a broker session is present. */
  brokerCheck(): CheckResult {
    const since = new Date(this.feedSince).toISOString();
    if (this.feedState === 'connected') return { ok: true, detail: `connected since ${since}` };
    const why = this.feedReason ? ` (${this.feedReason})` : '';
    return { ok: false, detail: `broker session ${this.feedState}${why} since ${since}` };
  }

  /**
   * The `ticks` readiness check: one row of the spec's state table each. "Connected, no quote
   * yet" is ready only while the market is closed, symbol by symbol: every served symbol whose
   * market is open must have quoted.
   */
  ticksCheck(): CheckResult {
    if (this.feedState !== 'connected') return { ok: false, detail: 'no broker session, so no live quotes' };
    const served = this.options.servedSymbols();
    if (!served) return { ok: false, detail: 'the symbol catalog is not loaded yet, so nothing is subscribed' };
    if (served.length === 0) return { ok: false, detail: 'no symbol to serve: the catalog lists no enabled symbol, or none that SYMBOLS names' };
    const now = this.options.clock.now();
    const f = this.freshness(now);
    if (f.isStale) return { ok: false, detail: this.staleReason(f) };
    const unquoted = served.filter((symbol) => !this.quotedSymbols.has(symbol));
    const awaited = unquoted.filter((symbol) => this.options.isMarketOpen(symbol, now));
    if (awaited.length > 0) {
      return { ok: false, detail: `no quote yet of ${awaited.length} of ${served.length} symbols while their market is open: ${listSymbols(awaited)}` };
    }
    if (!f.isMarketOpen && !f.hasQuote) return { ok: true, detail: 'market closed; no quotes received yet' };
    const quotes = f.isMarketOpen
      ? `last quote ${Math.floor(f.silentMs / 1000)} s ago (limit ${this.options.stalenessMs / 1000} s)`
      : 'market closed; quotes resume at the open';
    const closed =
      unquoted.length > 0 ? `; no quotes received yet of ${unquoted.length} of ${served.length} symbols, their market closed: ${listSymbols(unquoted)}` : '';
    return { ok: true, detail: quotes + closed };
  }

  private staleReason(f: Freshness): string {
    const seconds = Math.floor(f.silentMs / 1000);
    const limit = this.options.stalenessMs / 1000;
    return f.hasQuote
      ? `last quote ${seconds} s ago while the market is open, over TICK_STALENESS_SECONDS=${limit}`
      : `no quote in ${seconds} s since connecting while the market is open, over TICK_STALENESS_SECONDS=${limit}`;
  }

  private freshness(now: number): Freshness {
    const open = this.options.servedSymbols()?.some((symbol) => this.options.isMarketOpen(symbol, now));
    if (open && this.wasOpen === false) this.openedAt = now;
    if (open !== undefined) this.wasOpen = open;
    const isMarketOpen = open === true;
    const since = Math.max(this.lastQuoteAt ?? -Infinity, this.connectedAt ?? -Infinity, this.openedAt ?? -Infinity);
    const silentMs = Number.isFinite(since) ? now - since : 0;
    return {
      isMarketOpen,
      hasQuote: this.lastQuoteAt !== undefined,
      silentMs,
      isStale: isMarketOpen && silentMs > this.options.stalenessMs,
    };
  }
}

function listSymbols(symbols: readonly string[]): string {
  const named = symbols.slice(0, NAMED_SYMBOLS_MAX).join(', ');
  return symbols.length > NAMED_SYMBOLS_MAX ? `${named} and ${symbols.length - NAMED_SYMBOLS_MAX} more` : named;
}
