import type { AccountClient } from '@fxdesk/client';
import type { Clock } from '@fxdesk/primitives';
import type { StrategyAccount } from '@fxdesk/schemas';
import type { DownstreamHealth } from './downstream.js';

export interface AccountViewOptions {
  client?: AccountClient;
  health: DownstreamHealth;
  clock: Clock;
  /** How long an answer of the account service is reused (0: every /status asks). */
  refreshMs: number;
  /** The paper account, used when no account service is configured. */
  paper: () => Promise<StrategyAccount>;
  /** Told each fresh read of the account service: its equity (NAV) in its currency, at `ms` (the desk's risk marks it). */
  onRead?: (equity: number, currency: string, ms: number) => void;
}

/** The live account's equity and its currency, as a sizing by risk reads them. */
export interface LiveEquity {
  equity: number;
  currency: string;
}

/**
 * `status.account`: the account service's summary when ACCOUNT_URL is set (its decimal strings
 * as numbers; equity is its NAV), reused for `refreshMs`; when a read fails the last answer is
 * kept (null before the first) and the failure shows in `downstream.account`. Without
 * ACCOUNT_URL: the paper account.
 */
export class AccountView {
  private cached: { account: StrategyAccount; currency: string; at: number } | undefined;
  private inFlight: Promise<StrategyAccount | null> | undefined;

  constructor(private readonly o: AccountViewOptions) {}

  get source(): 'account_service' | 'paper' {
    return this.o.client ? 'account_service' : 'paper';
  }

  async current(): Promise<StrategyAccount | null> {
    if (!this.o.client) return this.o.paper();
    if (this.cached && this.o.clock.now() - this.cached.at < this.o.refreshMs) return this.cached.account;
    // Concurrent /status calls share one read.
    this.inFlight ??= this.read(this.o.client).finally(() => (this.inFlight = undefined));
    return this.inFlight;
  }

  /**
   * The account service's equity now (an answer of the last `refreshMs`, else a new read), or null
   * without ACCOUNT_URL or when it does not answer: a live order is never sized on an old answer.
   */
  async liveEquity(): Promise<LiveEquity | null> {
    if (!this.o.client) return null;
    const before = this.cached;
    if (!before || this.o.clock.now() - before.at >= this.o.refreshMs) await this.current();
    const now = this.cached;
    // A failed read keeps the answer before it for /status; a sizing takes only a new one.
    if (!now || (now === before && this.o.clock.now() - now.at >= this.o.refreshMs)) return null;
    return { equity: now.account.equity, currency: now.currency };
  }

  private async read(client: AccountClient): Promise<StrategyAccount | null> {
    try {
      const summary = await client.summary();
      const account = {
        balance: Number(summary.balance),
        equity: Number(summary.nav),
        margin_used: Number(summary.marginUsed),
        margin_available: Number(summary.marginAvailable),
      };
      this.cached = { account, currency: summary.currency, at: this.o.clock.now() };
      this.o.health.ok('account');
      this.o.onRead?.(account.equity, summary.currency, this.cached.at);
      return account;
    } catch (err) {
      this.o.health.fail('account', err);
      return this.cached?.account ?? null;
    }
  }
}
