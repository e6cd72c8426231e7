import type { MetricsRegistry } from '@fxdesk/core';
import type { Clock } from '@fxdesk/primitives';
import { DOWNSTREAM_SERVICES, type DownstreamService, type DownstreamState } from '@fxdesk/schemas';
import type { Logger } from 'pino';
import type { EventHub } from './event-hub.js';

interface Track {
  configured: boolean;
  lastSuccessAt: number | null;
  lastError: { at: number; code: string; message: string } | null;
  consecutiveFailures: number;
  lastCallOk: boolean | null;
  /** Whether its failing now has been logged as a warning. */
  warned: boolean;
}

/**
 * How long from the strategy's start a service that has not answered yet is taken as still
 * starting (`npm start` starts every service at once): its failures until then are logged at info.
 */
export const STARTING_GRACE_MS = 30_000;

function describe(err: unknown): { code: string; message: string } {
  const e = err as { code?: unknown; message?: unknown };
  const code = typeof e?.code === 'string' ? e.code : 'error';
  const message = typeof e?.message === 'string' ? e.message : String(err);
  return { code, message: message.slice(0, 500) };
}

/**
 * How each downstream service has been answering. A failure never stops the strategy: it is
 * recorded here (GET /status `downstream`), counted in /metrics and logged, once as a warning
 * when a service starts failing and again when it recovers. A service that has not answered
 * since the strategy started gets STARTING_GRACE_MS to come up before its failing is a warning.
 */
export class DownstreamHealth {
  private readonly tracks = new Map<DownstreamService, Track>();
  private readonly failures;
  private readonly startedAt: number;

  constructor(
    configured: Record<DownstreamService, boolean>,
    private readonly clock: Clock,
    private readonly logger: Logger,
    metrics: MetricsRegistry,
    /** Told when a service starts or stops answering. */
    private readonly events: Pick<EventHub, 'downstream'>,
    /** Given each call's outcome, as the service's record then stands (a leader keeps it for its followers). */
    private readonly share?: (service: DownstreamService, state: DownstreamState) => void,
  ) {
    this.startedAt = clock.now();
    for (const name of DOWNSTREAM_SERVICES) {
      this.tracks.set(name, { configured: configured[name], lastSuccessAt: null, lastError: null, consecutiveFailures: 0, lastCallOk: null, warned: false });
    }
    this.failures = metrics.counter('strategy_downstream_failures_total', 'Failed calls to downstream services, by service.');
  }

  ok(service: DownstreamService): void {
    const track = this.track(service);
    if (track.consecutiveFailures > 0) {
      this.logger.info({ service, failures: track.consecutiveFailures }, `${service} answers again`);
    }
    track.lastSuccessAt = this.clock.now();
    track.consecutiveFailures = 0;
    track.warned = false;
    this.settle(service, track, true);
    this.shared(service, track);
  }

  fail(service: DownstreamService, err: unknown, context?: Record<string, unknown>): void {
    const track = this.track(service);
    const { code, message } = describe(err);
    track.lastError = { at: this.clock.now(), code, message };
    track.consecutiveFailures += 1;
    this.settle(service, track, false);
    this.shared(service, track);
    this.failures.inc({ service });
    const fields = { service, code, err: message, failures: track.consecutiveFailures, ...context };
    const isStarting = track.lastSuccessAt === null && this.clock.now() - this.startedAt < STARTING_GRACE_MS;
    if (isStarting) {
      if (track.consecutiveFailures === 1) this.logger.info(fields, `${service} does not answer yet; the strategy goes on`);
    } else if (!track.warned) {
      track.warned = true;
      this.logger.warn(fields, `${service} call failed; the strategy goes on`);
    } else this.logger.debug(fields, `${service} call failed again`);
  }

  /**
   * Takes another replica's view of a service this one does not call (a follower: the leader's
   * orders and announcements), told as a change of its own would be.
   */
  adopt(service: DownstreamService, state: DownstreamState): void {
    const track = this.track(service);
    if (!track.configured || state.state === 'unknown' || state.state === 'not_configured') return;
    track.lastSuccessAt = state.last_success_at === null ? null : Date.parse(state.last_success_at);
    track.lastError = state.last_error && { at: Date.parse(state.last_error.at), code: state.last_error.code, message: state.last_error.message };
    track.consecutiveFailures = state.consecutive_failures;
    this.settle(service, track, state.state === 'ok');
  }

  view(): Record<DownstreamService, DownstreamState> {
    const out = {} as Record<DownstreamService, DownstreamState>;
    for (const [name, t] of this.tracks) out[name] = this.stateOf(name, t);
    return out;
  }

  /** Records the call's outcome; a change (ok ↔ failing) is an event for the console. */
  private settle(service: DownstreamService, track: Track, ok: boolean): void {
    const changed = track.lastCallOk !== ok;
    track.lastCallOk = ok;
    if (changed) this.events.downstream({ service, state: this.stateOf(service, track) });
  }

  /** A call's outcome, shared. */
  private shared(service: DownstreamService, track: Track): void {
    this.share?.(service, this.stateOf(service, track));
  }

  private stateOf(name: DownstreamService, t: Track): DownstreamState {
    const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
    return {
      configured: t.configured,
      state: !t.configured && name !== 'market_data' ? 'not_configured' : t.lastCallOk === null ? 'unknown' : t.lastCallOk ? 'ok' : 'failing',
      last_success_at: iso(t.lastSuccessAt),
      last_error: t.lastError && { at: new Date(t.lastError.at).toISOString(), code: t.lastError.code, message: t.lastError.message },
      consecutive_failures: t.consecutiveFailures,
    };
  }

  private track(service: DownstreamService): Track {
    return this.tracks.get(service) as Track;
  }
}
