import type { Clock, TimerHandle } from '@fxdesk/primitives';
import type { Logger } from 'pino';
import type { Transports } from './channels/index.js';
import { DeliveryError, type OutboundMessage } from './channels/transport.js';
import type { NotificationChannel, ProviderError } from '@fxdesk/schemas';
import { SecretRedactor } from './provider-secrets.js';
import { retryDelayMs, type RetryPolicy } from './retry.js';
import type { ClaimedDelivery, NotificationStore } from './store.js';

export interface OutboxOptions {
  store: NotificationStore;
  transports: Transports;
  clock: Clock;
  random: () => number;
  logger: Logger;
  policy: RetryPolicy;
  /** Deliveries in flight at once. */
  concurrency: number;
  /** Longest sleep between looks at the table (retries fall due, other processes add rows). */
  pollIntervalMs: number;
  /** How long a claimed delivery stays ours; past it, a dead worker's delivery is in doubt. */
  leaseMs: number;
  /** Channels never sent twice: a delivery whose outcome is unknown fails instead of being resent. */
  atMostOnce: NotificationChannel[];
  /** The configured credentials (configSecrets): blanked from every provider error before it is stored or logged. */
  secrets: readonly string[];
  onResult?: (channel: NotificationChannel, outcome: 'sent' | 'retry' | 'failed') => void;
}

/**
 * The durable outbox worker. Deliveries wait in the store as `pending`; the worker claims the due
 * ones atomically (status `sending`, this replica as owner, a lease), sends each through its
 * channel's transport, and records the outcome: `sent`, `pending` again with a backoff, or
 * `failed`. Nothing lives only in memory: a restart finds every pending delivery where it was, and
 * replicas on one PostgreSQL database share the queue, each claiming rows the others have not.
 *
 * The crash window is between the provider accepting a message and our commit of `sent`. A
 * delivery caught in it stays `sending` until its lease runs out, or until its replica starts
 * again; then any replica's worker (or the restarted one's) finds it: at-least-once channels send
 * it again and at-most-once channels fail it with `outcome_unknown` (recoverInDoubt).
 */
export class Outbox {
  private inFlight = 0;
  private running: Promise<void> | undefined;
  private pumpAgain = false;
  private stopped = true;
  private timer: TimerHandle | undefined;
  private readonly sends = new Set<Promise<void>>();
  private lastRecovery = Number.NEGATIVE_INFINITY;
  /** Whether a recovery has run since start(): the first also takes back what an earlier process of this replica left. */
  private recovered = false;
  /** Counts schedule() calls: one that finds a later one made after it leaves the timer to that one. */
  private schedules = 0;

  private readonly redactor: SecretRedactor;

  constructor(private readonly o: OutboxOptions) {
    this.redactor = new SecretRedactor(o.secrets);
  }

  start(): void {
    this.stopped = false;
    this.recovered = false;
    void this.recoverThenPump();
  }

  /** Looks for due deliveries now (after a POST stored new ones). */
  wake(): void {
    // Before the start's recovery nothing is claimed (it follows that recovery instead).
    if (this.stopped || !this.recovered) return;
    void this.pump();
  }

  /** Stops claiming, waits for a pass under way (it may have claimed) and for every send to be recorded. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) this.o.clock.clearTimer(this.timer);
    this.timer = undefined;
    await this.running?.catch(() => undefined);
    await Promise.allSettled([...this.sends]);
  }

  /**
   * Resolves when nothing is in flight and nothing is due now (for tests that drive a manual
   * clock: advance, then await settle()).
   */
  async settle(): Promise<void> {
    for (;;) {
      await this.recover();
      await this.pump();
      await Promise.allSettled([...this.sends]);
      await new Promise((resolve) => setImmediate(resolve));
      const due = await this.o.store.nextDueAt();
      if (this.inFlight === 0 && this.running === undefined && (due === undefined || due > this.o.clock.now())) return;
    }
  }

  /** One pass at a time: a call during a pass asks it to look once more, and shares its promise. */
  private pump(): Promise<void> {
    if (this.running) {
      this.pumpAgain = true;
      return this.running;
    }
    this.running = this.runPump().finally(() => {
      this.running = undefined;
      // A wake-up that came after the pass's last look must not wait for the poll timer.
      if (this.pumpAgain && !this.stopped) void this.pump();
    });
    return this.running;
  }

  private async runPump(): Promise<void> {
    try {
      do {
        this.pumpAgain = false;
        const free = this.o.concurrency - this.inFlight;
        if (free <= 0 || this.stopped) break;
        const now = this.o.clock.now();
        const claimed = await this.o.store.claimDue(now, free, now + this.o.leaseMs);
        for (const delivery of claimed) this.launch(delivery);
        if (claimed.length === free) this.pumpAgain = true;
      } while (this.pumpAgain && !this.stopped);
    } catch (err) {
      this.o.logger.error({ err }, 'outbox: claiming deliveries failed');
    } finally {
      await this.schedule().catch((err: unknown) => this.o.logger.error({ err }, 'outbox: reading when the next delivery falls due failed'));
    }
  }

  /** Runs at start and on every poll tick (not on every pass: a claim should share its commit with the marks). */
  private async recover(): Promise<void> {
    const atStart = !this.recovered;
    const { failed, resent } = await this.o.store.recoverInDoubt(this.o.clock.now(), this.o.atMostOnce, this.o.policy.maxAttempts, atStart);
    this.recovered = true;
    if (failed.length > 0)
      this.o.logger.warn({ deliveryIds: failed }, 'outbox: deliveries left in flight by a stopped worker failed as outcome_unknown (at-most-once)');
    if (resent.length > 0)
      this.o.logger.warn({ deliveryIds: resent }, 'outbox: deliveries left in flight by a stopped worker will be sent again (at-least-once)');
  }

  /** Sleeps until the next delivery falls due, or the poll interval, whichever comes first. */
  private async schedule(): Promise<void> {
    if (this.stopped) return;
    const mine = ++this.schedules;
    // With every slot busy, a finishing send wakes the next pass; the timer only keeps the poll.
    // A store that does not answer leaves the poll interval: the outbox must keep polling.
    const due =
      this.inFlight >= this.o.concurrency
        ? undefined
        : await this.o.store.nextDueAt().catch((err: unknown) => {
            this.o.logger.error({ err }, 'outbox: reading when the next delivery falls due failed');
            return undefined;
          });
    if (this.stopped || mine !== this.schedules) return;
    if (this.timer) this.o.clock.clearTimer(this.timer);
    const wait = due === undefined ? this.o.pollIntervalMs : Math.min(this.o.pollIntervalMs, Math.max(0, due - this.o.clock.now()));
    this.timer = this.o.clock
      .setTimeout(() => {
        this.timer = undefined;
        void this.recoverThenPump();
      }, wait)
      .unref();
  }

  /** Lease recovery at most once per poll interval (at every call until the start's has run), then a pass. */
  private async recoverThenPump(): Promise<void> {
    if (!this.recovered || this.o.clock.now() - this.lastRecovery >= this.o.pollIntervalMs) {
      this.lastRecovery = this.o.clock.now();
      await this.recover().catch((err: unknown) => this.o.logger.error({ err }, 'outbox: recovering in-doubt deliveries failed'));
    }
    // Nothing is claimed before the start's recovery has run: it takes back whatever claims carry
    // this replica's name, which must then be an earlier process's, never one of this one's.
    if (this.recovered) await this.pump();
    else await this.schedule().catch((err: unknown) => this.o.logger.error({ err }, 'outbox: scheduling the next recovery failed'));
  }

  private launch(delivery: ClaimedDelivery): void {
    this.inFlight += 1;
    let released = false;
    // The slot frees as soon as the provider has answered and the outcome is queued, so the next
    // claim joins the same group commit as the outcomes instead of costing a commit of its own.
    const release = () => {
      if (released) return;
      released = true;
      this.inFlight -= 1;
      if (!this.stopped) void this.pump();
    };
    const send = this.deliver(delivery, release).finally(() => {
      release();
      this.sends.delete(send);
    });
    this.sends.add(send);
  }

  private async deliver(d: ClaimedDelivery, release: () => void): Promise<void> {
    const transport = this.o.transports[d.channel];
    const message: OutboundMessage = {
      deliveryId: d.id,
      channel: d.channel,
      recipient: d.recipient,
      message: d.message,
      contentType: d.contentType,
      subject: d.subject,
    };
    const log = this.o.logger.child({ deliveryId: d.id, channel: d.channel, attempt: d.attempts });
    let recorded: Promise<void>;
    try {
      const result = await transport.send(message);
      recorded = this.o.store.markSent(d.id, result, this.o.clock.now()).then(() => {
        this.o.onResult?.(d.channel, 'sent');
        log.debug({ provider: result.provider, providerMessageId: result.providerMessageId }, 'delivery sent');
      });
    } catch (err) {
      // The one place a provider's failure becomes the text we store and log: providers echo what
      // they were sent (a path holding the bot token, an Authorization header), so secrets go here.
      const failure = this.redactor.failure(err);
      if (!(err instanceof DeliveryError)) log.error({ err: this.redactor.loggable(err) }, 'delivery: unexpected transport error');
      recorded = this.recordFailure(d, failure, transport.provider, log);
    }
    release();
    await recorded.catch((e: unknown) => log.error({ err: e }, 'delivery: recording the outcome failed'));
  }

  private async recordFailure(
    d: ClaimedDelivery,
    failure: DeliveryError,
    provider: Parameters<NotificationStore['markFailed']>[2],
    log: Logger,
  ): Promise<void> {
    const now = this.o.clock.now();
    const error = failure.providerError;
    if (failure.retryable && failure.inDoubt && this.o.atMostOnce.includes(d.channel)) {
      const unknown: ProviderError = {
        ...error,
        code: 'outcome_unknown',
        message: `${error.code}: ${error.message} (the provider may have accepted it; not resent)`,
      };
      await this.o.store.markFailed(d.id, unknown, provider, now);
      this.o.onResult?.(d.channel, 'failed');
      log.warn({ error: unknown }, 'delivery failed: outcome unknown on an at-most-once channel');
      return;
    }
    if (failure.retryable && !failure.spendsAttempt) {
      const holdMs = failure.retryAfterMs ?? 0;
      await this.o.store.markRetry(d.id, error, provider, now + holdMs, now, true);
      this.o.onResult?.(d.channel, 'retry');
      log.debug({ error, retryInMs: holdMs }, 'delivery held for its recipient; the attempt does not count');
      return;
    }
    if (!failure.retryable) {
      await this.o.store.markFailed(d.id, error, provider, now);
      this.o.onResult?.(d.channel, 'failed');
      log.warn({ error }, 'delivery failed: the provider refused it');
      return;
    }
    if (d.attempts >= this.o.policy.maxAttempts) {
      const exhausted: ProviderError = { ...error, message: `${error.message} (gave up after ${d.attempts} attempts)` };
      await this.o.store.markFailed(d.id, exhausted, provider, now);
      this.o.onResult?.(d.channel, 'failed');
      log.warn({ error: exhausted }, 'delivery failed: attempts exhausted');
      return;
    }
    const delay = retryDelayMs(this.o.policy, d.attempts, this.o.random, failure.retryAfterMs);
    await this.o.store.markRetry(d.id, error, provider, now + delay, now);
    this.o.onResult?.(d.channel, 'retry');
    log.info({ error, retryInMs: delay }, 'delivery attempt failed; retrying');
  }
}
