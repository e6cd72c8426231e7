/**
 * The announcements of what the desk's trades did (README "Announcements of fills, exits and the
 * day"): each fill (a live order the execution service filled, a paper trade entered), each exit
 * the journal records, live and paper, and each UTC day's summary by account, sent by the leader
 * through the notification service under a key that names what it announces. What each came to
 * is kept with its row in the store, so a restart, or a new leader, goes on from there; a send
 * repeated after a crash between the answer and that write is answered by the notification
 * service from its record (same key), never sent twice.
 */
import type { NotificationChannel, NotificationClient } from '@fxdesk/client';
import type { Clock, TimerHandle } from '@fxdesk/primitives';
import type { JournalTrade, StrategySignal } from '@fxdesk/schemas';
import type { Logger } from 'pino';
import type { DownstreamHealth } from './downstream.js';
import { PAPER_CURRENCY } from './paper-account.js';
import { answered, errorFields, isRetryable } from './signal-dispatch.js';
import { utcDay, type AccountTotals, type AnnouncementOutcome, type PaperFill, type StrategyStores } from './store/index.js';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
/** Rows of each kind read at a time. */
const BATCH = 100;
/** How often the leader looks for something to announce (and tries again what failed). */
export const ANNOUNCE_CHECK_MS = 5000;

/** The kinds of announcement, each switched on or off by its setting. */
export type AnnouncementKind = 'fills' | 'exits' | 'daily';

/** One message to the notification service, under its idempotency key. */
export interface Announcement {
  key: string;
  subject: string;
  message: string;
}

export interface AnnouncementsOptions {
  stores: Pick<StrategyStores, 'signals' | 'paperTrades' | 'journal' | 'dailySummaries' | 'risk'>;
  /** Set with NOTIFICATION_URL; unset, every announcement comes to `off`. */
  notification?: NotificationClient;
  clock: Clock;
  logger: Logger;
  health: Pick<DownstreamHealth, 'ok' | 'fail'>;
  /** Whether this replica leads (only the leader announces). */
  isLeading: () => boolean;
  /** SIGNAL_SOURCE: the source the notification service keys the announcements under. */
  source: string;
  channels: NotificationChannel[];
  /** ANNOUNCE_FILLS, ANNOUNCE_EXITS, ANNOUNCE_DAILY_SUMMARY. */
  kinds: Record<AnnouncementKind, boolean>;
  /** DAILY_SUMMARY_UTC_HOUR: a day's summary goes at this hour of the next day… */
  dailyHourUtc: number;
  /** …and this much later, so the day's last trades are journaled first (a candle closing at midnight, the live journal's next read). */
  dailyDelayMs: number;
}

const iso = (ms: number) => new Date(ms).toISOString();
const sideOf = (side: 1 | -1) => (side === 1 ? 'LONG' : 'SHORT');
/** A price as a trader reads it: at most 6 decimals, no trailing zeros (a live exit is a weighted average). */
const price = (v: number) => String(Number(v.toFixed(6)));
const signed = (v: number, places: number) => `${v >= 0 ? '+' : '−'}${Math.abs(v).toFixed(places)}`;
/** P/L in the account's currency: the paper account's is USD; the live one's the venue's, which the deals do not name. */
const money = (v: number, account: JournalTrade['account']) => `${signed(v, 2)} ${account === 'paper' ? PAPER_CURRENCY : '(account currency)'}`;

function duration(seconds: number): string {
  const d = Math.floor(seconds / 86_400);
  const h = Math.floor((seconds % 86_400) / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  if (d > 0) return `${d}d ${h}h`;
  if (h > 0) return `${h}h ${m}m`;
  return m > 0 ? `${m}m` : `${seconds}s`;
}

/** The fill of a live signal's order, as the execution service answered it (`filled` or `partially_filled`). */
export function liveFillAnnouncement(signal: StrategySignal): Announcement {
  const how = signal.execution.status === 'partially_filled' ? 'partly filled' : 'filled';
  const tickets = signal.execution.tickets;
  return {
    key: `fill:${signal.signal_id}`,
    subject: `${how === 'filled' ? 'Filled' : 'Partly filled'}: ${signal.type} ${signal.instrument} (live)`,
    message: [
      `${signal.type} ${signal.instrument} ${how} at the venue (live)`,
      `signal entry ${signal.entry_price} · stop ${signal.stop_loss} · target ${signal.take_profit}`,
      ...(tickets ? [`order ${tickets.order ?? '–'} · position ${tickets.position ?? '–'}`] : []),
      `signal ${signal.signal_id}`,
    ].join('\n'),
  };
}

/** A paper trade's entry at the open of the candle after its signal. */
export function paperFillAnnouncement(fill: PaperFill): Announcement {
  const side = sideOf(fill.side);
  const lots = fill.volumeLots === null ? '' : `, ${fill.volumeLots.toFixed(2)} lots`;
  return {
    key: `fill:${fill.signalId}`,
    subject: `Filled: ${side} ${fill.instrument} at ${price(fill.entry)} (paper)`,
    message: [
      `${side} ${fill.instrument} filled at ${price(fill.entry)} (paper${lots})`,
      `stop ${price(fill.stopLoss)} · target ${price(fill.takeProfit)}`,
      `entered at the open of ${iso(fill.entryTime * 1000)}`,
      `signal ${fill.signalId}`,
    ].join('\n'),
  };
}

/** A journaled trade's exit: prices, reason, P/L and R. */
export function exitAnnouncement(trade: JournalTrade): Announcement {
  const r = trade.r_multiple === null ? 'R n/a' : `${signed(trade.r_multiple, 2)} R`;
  return {
    key: `exit:${trade.id}`,
    subject: `Closed: ${trade.side} ${trade.instrument} ${money(trade.pnl, trade.account)} (${trade.exit_reason}, ${trade.account})`,
    message: [
      `${trade.side} ${trade.instrument} closed by ${trade.exit_reason} (${trade.account})`,
      `entry ${price(trade.entry_price)} → exit ${price(trade.exit_price)}`,
      `P/L ${money(trade.pnl, trade.account)} · ${r}`,
      `${trade.volume_lots.toFixed(2)} lots, held ${duration(trade.duration_seconds)}, closed ${trade.exit_time}`,
      `trade ${trade.id}`,
    ].join('\n'),
  };
}

/** One account's summary of a UTC day (`YYYY-MM-DD`). */
export function dailyAnnouncement(day: string, totals: AccountTotals): Announcement {
  const losses = totals.trades - totals.wins;
  const winRate = Math.round((totals.wins / totals.trades) * 100);
  const trades = `${totals.trades} trade${totals.trades === 1 ? '' : 's'}`;
  return {
    key: `daily:${totals.account}:${day}`,
    subject: `Day ${day} (${totals.account}): ${trades}, ${money(totals.pnl, totals.account)}`,
    message: [
      `${day} UTC, ${totals.account} account`,
      `${trades}: ${totals.wins} won, ${losses} lost (${winRate} % won)`,
      `P/L ${money(totals.pnl, totals.account)} · ${signed(totals.rMultiples, 2)} R`,
    ].join('\n'),
  };
}

/**
 * Sends the announcements of fills, exits and days on the leader, ANNOUNCE_CHECK_MS after each round: the
 * rows of the store whose announcement has not come to anything yet, oldest first, fills before
 * exits. A send the notification service cannot take now (no answer, 5xx, 429, a wrong key)
 * stops the round and is tried again at the next, in the same order; a refusal (another 4xx) is
 * final, logged and kept as `refused`. A kind switched off, or no NOTIFICATION_URL, marks its
 * rows `off`: switching it on later announces what comes after, not a backlog.
 */
export class Announcements {
  private timer: TimerHandle | undefined;
  private running: Promise<void> | undefined;
  private isClosed = false;

  constructor(private readonly o: AnnouncementsOptions) {}

  start(): void {
    if (this.timer === undefined) this.schedule();
  }

  /** One round (one at a time: a round asked for while one runs is that one). */
  sweep(): Promise<void> {
    this.running ??= this.round().finally(() => (this.running = undefined));
    return this.running;
  }

  async whenIdle(): Promise<void> {
    await this.running;
  }

  /** Stops the rounds; the one running ends at its next send. */
  async close(): Promise<void> {
    this.isClosed = true;
    if (this.timer) this.o.clock.clearTimer(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** The next check, ANNOUNCE_CHECK_MS after the last one ended. */
  private schedule(): void {
    if (this.isClosed) return;
    this.timer = this.o.clock.setTimeout(() => {
      void (this.o.isLeading() ? this.sweep() : Promise.resolve()).finally(() => this.schedule());
    }, ANNOUNCE_CHECK_MS);
    this.timer.unref();
  }

  private async round(): Promise<void> {
    try {
      const isCaughtUp = (await this.risk()) && (await this.fills()) && (await this.exits());
      if (isCaughtUp) await this.days();
    } catch (err) {
      this.o.logger.error({ err }, 'announcements: the store could not be read or written (tried again at the next check)');
    }
  }

  /** The desk's halts and resumes (README "Risk"), before anything else: no setting switches them off. */
  private async risk(): Promise<boolean> {
    const { risk } = this.o.stores;
    for (;;) {
      const announcements = await risk.unannounced(BATCH);
      for (const announcement of announcements) {
        if (!(await this.deliver('risk', announcement, (outcome) => risk.markAnnounced(announcement.key, outcome)))) return false;
      }
      if (announcements.length < BATCH) return true;
    }
  }

  private async fills(): Promise<boolean> {
    const { signals, paperTrades } = this.o.stores;
    for (;;) {
      const [live, paper] = await Promise.all([signals.unannouncedFills(BATCH), paperTrades.unannouncedFills(BATCH)]);
      for (const signal of live) {
        if (!(await this.deliver('fills', liveFillAnnouncement(signal), (outcome) => signals.markFillAnnounced(signal.signal_id, outcome)))) return false;
      }
      for (const fill of paper) {
        if (!(await this.deliver('fills', paperFillAnnouncement(fill), (outcome) => paperTrades.markFillAnnounced(fill.signalId, outcome)))) return false;
      }
      if (live.length < BATCH && paper.length < BATCH) return true;
    }
  }

  private async exits(): Promise<boolean> {
    const { journal } = this.o.stores;
    for (;;) {
      const trades = await journal.unannounced(BATCH);
      for (const trade of trades) {
        if (!(await this.deliver('exits', exitAnnouncement(trade), (outcome) => journal.markAnnounced(trade.id, outcome)))) return false;
      }
      if (trades.length < BATCH) return true;
    }
  }

  /**
   * The summary of each day due since the last one dealt with, one per account that closed a
   * trade that day (a day without any sends nothing). The first round of a new store begins
   * after the last day due then: a desk announces no days of before.
   */
  private async days(): Promise<boolean> {
    const { journal, dailySummaries } = this.o.stores;
    const now = this.o.clock.now();
    const lastDueMs = Math.floor((now - DAY_MS - this.o.dailyHourUtc * HOUR_MS - this.o.dailyDelayMs) / DAY_MS) * DAY_MS;
    const last = await dailySummaries.lastDay();
    if (last === undefined) {
      await dailySummaries.record(utcDay(lastDueMs), 'before', iso(now));
      return true;
    }
    const isOn = this.o.notification !== undefined && this.o.kinds.daily;
    for (let dayMs = Date.parse(last) + DAY_MS; dayMs <= lastDueMs; dayMs += DAY_MS) {
      if (this.isClosed || !this.o.isLeading()) return false;
      const day = utcDay(dayMs);
      for (const totals of isOn ? await journal.totals(dayMs, dayMs + DAY_MS) : []) {
        if (!(await this.deliver('daily', dailyAnnouncement(day, totals), async () => {}))) return false;
      }
      await dailySummaries.record(day, isOn ? 'announced' : 'off', iso(now));
    }
    return true;
  }

  /** Sends one announcement and keeps what it came to; false when the round stops here (not leading, closed, or the service cannot take it now). */
  private async deliver(kind: AnnouncementKind | 'risk', announcement: Announcement, keep: (outcome: AnnouncementOutcome) => Promise<void>): Promise<boolean> {
    if (this.isClosed || !this.o.isLeading()) return false;
    const client = this.o.notification;
    if (!client || (kind !== 'risk' && !this.o.kinds[kind])) {
      await keep('off');
      return true;
    }
    const { key, subject, message } = announcement;
    try {
      const result = await client.send({ message, subject, channels: this.o.channels, source: this.o.source, idempotencyKey: key });
      this.o.health.ok('notification');
      await keep(result.status === 'skipped' ? 'skipped' : 'sent');
      return true;
    } catch (err) {
      if (answered(err) && !isRetryable(err)) {
        this.o.health.ok('notification');
        const { code, message: why } = errorFields(err);
        this.o.logger.warn({ key, code, err: why }, `announcement ${key} refused by the notification service: not sent again`);
        await keep('refused');
        return true;
      }
      this.o.health.fail('notification', err, { announcement: key });
      return false;
    }
  }
}
