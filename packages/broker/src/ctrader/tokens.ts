import { BrokerError } from '../errors.js';
import { tokenFingerprint, type CTraderTokenPair, type CTraderTokenStore, type StoredCTraderTokens } from './token-store.js';
import type { RefreshTokenResSchema } from './wire.js';
import type { z } from 'zod';

/** One ProtoOARefreshTokenReq with `refreshToken`, answered by its ProtoOARefreshTokenRes. */
type RefreshExchange = (refreshToken: string) => Promise<z.output<typeof RefreshTokenResSchema>>;

/**
 * Codes that say the access token itself no longer works: ProtoOAErrorCode
 * OA_AUTH_TOKEN_EXPIRED ("When token used for account authorization is expired") and
 * CH_ACCESS_TOKEN_INVALID ("Access token is invalid"), OpenApiModelMessages.proto.
 */
const TOKEN_REJECTED = new Set(['OA_AUTH_TOKEN_EXPIRED', 'CH_ACCESS_TOKEN_INVALID']);

/**
 * An access token expires 2,628,000 s (about 30 days) after it is issued
 * (help.ctrader.com/open-api/account-authentication); a session starting within a day of that
 * refreshes first rather than being cut at the expiry.
 */
const REFRESH_MARGIN_MS = 24 * 3_600_000;

export function isTokenRejection(err: unknown): err is BrokerError {
  return err instanceof BrokerError && err.venueCode !== undefined && TOKEN_REJECTED.has(err.venueCode);
}

/** Whether the `ctrader_token` readiness check passes, and why. */
export interface TokenStatus {
  ok: boolean;
  detail: string;
}

/**
 * The access token a feed authorizes its account with, and its renewal by the refresh token
 * (ProtoOARefreshTokenReq). Which pair a feed starts with: the stored one while the
 * configuration still names the pair it descends from, else the configured one (a pair set
 * in the configuration since was granted later). Each refresh is saved at once, since it spends
 * the refresh token it used. A token refused with nothing left to renew it (no refresh token, or
 * one the venue refused) stays refused: no further session is tried with it until the store
 * holds another pair.
 */
export class CTraderTokens {
  private readonly store: CTraderTokenStore | undefined;
  private readonly origin: string;
  private pair: CTraderTokenPair;
  private expiresAtMs: number | undefined;
  private refreshedAtMs: number | undefined;
  private isStale = false;
  private refusal: BrokerError | undefined;
  private problem: string | undefined;

  constructor(configured: CTraderTokenPair, store: CTraderTokenStore | undefined) {
    this.store = store;
    this.origin = tokenFingerprint(configured);
    this.pair = configured;
    const stored = store?.load();
    if (stored?.origin === this.origin) this.use(stored);
  }

  get accessToken(): string {
    return this.pair.accessToken;
  }

  get canRefresh(): boolean {
    return this.pair.refreshToken !== undefined;
  }

  /** The refusal that holds every session back, if the token was refused for good. */
  get refused(): BrokerError | undefined {
    return this.refusal;
  }

  /** Whether to renew before authorizing the account: the token was rejected, or expires soon. */
  shouldRefreshFirst(nowMs: number): boolean {
    if (!this.canRefresh) return false;
    return this.isStale || (this.expiresAtMs !== undefined && this.expiresAtMs - nowMs < REFRESH_MARGIN_MS);
  }

  /** The venue rejected or invalidated the access token: the next session renews it first. */
  markStale(): void {
    this.isStale = true;
  }

  /**
   * Takes a pair the store holds that differs from the one in use (another process of the
   * same account refreshed it, or an operator put it there): true when it did, and the
   * refusal, if any, is lifted.
   */
  adoptStored(): boolean {
    const stored = this.store?.load();
    if (!stored || stored.origin !== this.origin || stored.accessToken === this.pair.accessToken) return false;
    this.use(stored);
    return true;
  }

  /**
   * Renews the pair with `exchange` (one ProtoOARefreshTokenReq) and saves it. A refusal by
   * the venue holds every later session back; a failure on the way (timeout, lost link)
   * leaves the next session to try again. Processes sharing the store renew one at a time
   * (`lockForRenewal`), each reading the store again once it holds the lock.
   */
  async refresh(exchange: RefreshExchange, nowMs: () => number): Promise<void> {
    const refreshToken = this.pair.refreshToken;
    if (refreshToken === undefined) throw this.refuse(new BrokerError('unauthorized', 'the cTrader access token was refused and no refresh token is set'));
    const renew = () => this.renewUnlessRenewed(refreshToken, exchange, nowMs);
    await (this.store?.lockForRenewal ? this.store.lockForRenewal(renew) : renew());
  }

  /** The store's pair when another process renewed while this one waited for the lock, else one refresh. */
  private async renewUnlessRenewed(refreshToken: string, exchange: RefreshExchange, nowMs: () => number): Promise<void> {
    if (this.adoptStored()) return;
    let renewed;
    try {
      renewed = await exchange(refreshToken);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (err instanceof BrokerError && (err.kind === 'unauthorized' || err.kind === 'rejected')) {
        // "The refresh token is valid forever until you use it to refresh an access token"
        // (help.ctrader.com/open-api/faq): a process that renewed without the lock (one broken as
        // stale) may have spent it, and saved the pair it got.
        if (this.adoptStored()) return;
        throw this.refuse(new BrokerError('unauthorized', `the cTrader refresh token was refused (${message})`, { venueCode: err.venueCode, cause: err }));
      }
      this.problem = `access token refresh failed, retried at the next session: ${message}`;
      throw err;
    }
    const at = nowMs();
    const stored: StoredCTraderTokens = {
      accessToken: renewed.accessToken,
      refreshToken: renewed.refreshToken,
      expiresAtMs: at + renewed.expiresIn * 1000,
      refreshedAtMs: at,
      origin: this.origin,
    };
    this.use(stored);
    try {
      this.store?.save(stored);
    } catch (err) {
      // The session can go on with the new pair; a restart could not (the old refresh token is spent).
      this.problem = `the refreshed tokens could not be saved to ${this.store?.location}: ${err instanceof Error ? err.message : String(err)}; a restart would start from a spent refresh token`;
    }
  }

  /** The access token was refused and cannot be renewed: every later session is held back. */
  refuse(err: BrokerError): BrokerError {
    const hint =
      this.pair.refreshToken === undefined
        ? 'set CTRADER_REFRESH_TOKEN, or a new CTRADER_ACCESS_TOKEN, and restart'
        : 'grant the application access again and set the new CTRADER_ACCESS_TOKEN and CTRADER_REFRESH_TOKEN';
    this.refusal = new BrokerError('unauthorized', `${err.message}; ${hint}`, { venueCode: err.venueCode, cause: err });
    this.problem = this.refusal.message;
    return this.refusal;
  }

  status(): TokenStatus {
    if (this.problem !== undefined) return { ok: false, detail: this.problem };
    if (this.refreshedAtMs === undefined) {
      return { ok: true, detail: this.pair.refreshToken === undefined ? 'configured access token; no refresh token set' : 'configured access token' };
    }
    const expires = this.expiresAtMs === undefined ? '' : `, expires ${new Date(this.expiresAtMs).toISOString()}`;
    return { ok: true, detail: `access token refreshed ${new Date(this.refreshedAtMs).toISOString()}${expires}` };
  }

  private use(stored: StoredCTraderTokens): void {
    this.pair = { accessToken: stored.accessToken, refreshToken: stored.refreshToken };
    this.expiresAtMs = stored.expiresAtMs;
    this.refreshedAtMs = stored.refreshedAtMs;
    this.isStale = false;
    this.refusal = undefined;
    this.problem = undefined;
  }
}
