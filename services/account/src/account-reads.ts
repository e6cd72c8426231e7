import { isBrokerError, type AccountReader } from '@fxdesk/broker';
import type { HealthCheck } from '@fxdesk/core';
import type { Clock } from '@fxdesk/primitives';
import type {
  AccountChanges,
  AccountDetailsRead,
  AccountInstruments,
  AccountSnapshot,
  AccountSnapshotKind,
  AccountSnapshotRef,
  AccountSummaryRead,
} from '@fxdesk/schemas';
import { brokerFailure, errors, storageFailure } from './errors.js';
import { InstrumentsCache } from './instruments-cache.js';
import type { SnapshotStore } from './store.js';

export interface AccountReadsOptions {
  broker: AccountReader;
  store: SnapshotStore;
  clock: Clock;
  instrumentsCacheTtlSeconds: number;
  /** What the configuration check reports, e.g. `oanda (practice)`. */
  brokerDescription: string;
}

/**
 * What the account endpoints do, without HTTP: read through the broker adapter, persist a
 * snapshot of every summary and details read, serve instruments from a cache, and turn broker
 * failures into the service's errors.
 */
export class AccountReads {
  private readonly instrumentsCache: InstrumentsCache;

  constructor(private readonly options: AccountReadsOptions) {
    this.instrumentsCache = new InstrumentsCache(() => options.broker.instruments(), options.clock, options.instrumentsCacheTtlSeconds * 1000);
  }

  async summary(): Promise<AccountSummaryRead> {
    const account = await this.call(() => this.options.broker.summary());
    return { account, snapshot: await this.persist('summary', account) };
  }

  async details(): Promise<AccountDetailsRead> {
    const account = await this.call(() => this.options.broker.details());
    return { account, snapshot: await this.persist('details', account) };
  }

  /** The tradable instruments, all or the named ones (404 instrument_not_found names any the broker does not list). */
  async instruments(names?: string[]): Promise<AccountInstruments> {
    const read = await this.call(() => this.instrumentsCache.get());
    let instruments = read.instruments;
    if (names && names.length > 0) {
      const wanted = new Set(names);
      instruments = instruments.filter((i) => wanted.has(i.name));
      const unknown = [...wanted].filter((n) => !instruments.some((i) => i.name === n));
      if (unknown.length > 0) throw errors.create('instrument_not_found', `the broker lists no instrument ${unknown.join(', ')}`);
    }
    return {
      instruments,
      cached: read.cached,
      fetchedAt: new Date(read.fetchedAt).toISOString(),
      expiresAt: new Date(read.expiresAt).toISOString(),
    };
  }

  async snapshots(limit: number, kind?: AccountSnapshotKind): Promise<AccountSnapshot[]> {
    try {
      return await this.options.store.recent(limit, kind);
    } catch (err) {
      throw storageFailure('read the snapshots', err);
    }
  }

  async changes(sinceTransactionId: string): Promise<AccountChanges> {
    try {
      return await this.options.broker.changesSince(sinceTransactionId);
    } catch (err) {
      if (isBrokerError(err) && err.kind === 'not_found') {
        throw errors.create('transaction_not_found', `the broker knows no transaction ${sinceTransactionId} on this account`, { cause: err });
      }
      throw brokerFailure(err);
    }
  }

  /** `/health/ready`: configuration, database, broker authentication, instrument metadata. */
  readinessChecks(): Record<string, HealthCheck> {
    const { broker, store, brokerDescription } = this.options;
    return {
      configuration: () => ({ ok: true, detail: `broker ${brokerDescription}` }),
      database: () => store.health(),
      broker_auth: async () => {
        const summary = await broker.summary();
        return { ok: true, detail: `${broker.name} accepted the credentials for account ${summary.id}` };
      },
      instrument_metadata: async () => {
        const { instruments } = await this.instrumentsCache.get();
        const sane = instruments.every((i) => i.name.length > 0 && i.displayPrecision >= 0 && Number(i.minimumTradeSize) >= 0);
        if (instruments.length === 0) return { ok: false, detail: 'the broker lists no instruments' };
        return { ok: sane, detail: sane ? `${instruments.length} instruments` : 'the broker sent malformed instrument metadata' };
      },
    };
  }

  private async call<T>(read: () => Promise<T>): Promise<T> {
    try {
      return await read();
    } catch (err) {
      throw brokerFailure(err);
    }
  }

  /** Stores the read; a read that cannot be stored is not answered (each answer names its snapshot). */
  private async persist(kind: AccountSnapshotKind, account: AccountSnapshot['account']): Promise<AccountSnapshotRef> {
    const { store, broker, clock } = this.options;
    try {
      const snapshot = await store.add(kind, broker.name, account, new Date(clock.now()).toISOString());
      return { id: snapshot.id, takenAt: snapshot.takenAt };
    } catch (err) {
      throw storageFailure(`store the ${kind} snapshot`, err);
    }
  }
}
