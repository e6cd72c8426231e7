import type { Database, Queries, SqlParams } from '@fxdesk/core';
import type { ExitReason, JournalAccount, JournalTrade } from '@fxdesk/schemas';

/** What the journal's reads filter on; times are epoch ms of the exit. */
export interface JournalFilter {
  account?: JournalAccount;
  instrument?: string;
  side?: JournalTrade['side'];
  exitReason?: ExitReason;
  fromMs?: number;
  toMs?: number;
}

/** What an announcement came to: accepted, skipped (notifications disabled there), refused (a final 4xx), or not sent (its kind off, or no NOTIFICATION_URL). */
export type AnnouncementOutcome = 'sent' | 'skipped' | 'refused' | 'off';

/** One account's closed trades over a range. */
export interface AccountTotals {
  account: JournalAccount;
  trades: number;
  /** Trades with a P/L above 0. */
  wins: number;
  pnl: number;
  /** The sum of the R multiples (a trade without one counts 0). */
  rMultiples: number;
}

/** Where a page ends: the exit time and seq of its last trade (the next page is older). */
export interface JournalCursor {
  exitMs: number;
  seq: number;
}

export interface JournalTradePage {
  trades: JournalTrade[];
  next: JournalCursor | null;
}

type JournalRow = {
  seq: number;
  id: string;
  account: JournalAccount;
  signal_id: string | null;
  position: string | null;
  instrument: string;
  side: JournalTrade['side'];
  volume_lots: number;
  entry_ms: number;
  entry_price: number;
  exit_ms: number;
  exit_price: number;
  exit_reason: ExitReason;
  pnl: number;
  commission: number;
  swap: number;
  r_multiple: number | null;
};

const COLUMNS = [
  'id',
  'account',
  'signal_id',
  'position',
  'instrument',
  'side',
  'volume_lots',
  'entry_ms',
  'entry_price',
  'exit_ms',
  'exit_price',
  'exit_reason',
  'pnl',
  'commission',
  'swap',
  'r_multiple',
] as const;
const SELECT = `SELECT seq, ${COLUMNS.join(', ')} FROM strategy_journal`;

const iso = (ms: number) => new Date(ms).toISOString();

function tradeOf(row: JournalRow): JournalTrade {
  return {
    id: row.id,
    account: row.account,
    signal_id: row.signal_id,
    position: row.position,
    instrument: row.instrument,
    side: row.side,
    volume_lots: row.volume_lots,
    entry_time: iso(Number(row.entry_ms)),
    entry_price: row.entry_price,
    exit_time: iso(Number(row.exit_ms)),
    exit_price: row.exit_price,
    exit_reason: row.exit_reason,
    pnl: row.pnl,
    commission: row.commission,
    swap: row.swap,
    r_multiple: row.r_multiple,
    duration_seconds: Math.round((Number(row.exit_ms) - Number(row.entry_ms)) / 1000),
  };
}

function paramsOf(trade: JournalTrade): SqlParams {
  return {
    id: trade.id,
    account: trade.account,
    signal_id: trade.signal_id,
    position: trade.position,
    instrument: trade.instrument,
    side: trade.side,
    volume_lots: trade.volume_lots,
    entry_ms: Date.parse(trade.entry_time),
    entry_price: trade.entry_price,
    exit_ms: Date.parse(trade.exit_time),
    exit_price: trade.exit_price,
    exit_reason: trade.exit_reason,
    pnl: trade.pnl,
    commission: trade.commission,
    swap: trade.swap,
    r_multiple: trade.r_multiple,
  };
}

/** The WHERE clause and parameters of a filter. */
function whereOf(filter: JournalFilter): { where: string; params: SqlParams } {
  const conditions: string[] = [];
  const params: Record<string, string | number> = {};
  const add = (condition: string, name: string, value: string | number | undefined) => {
    if (value === undefined) return;
    conditions.push(condition);
    params[name] = value;
  };
  add('account = @account', 'account', filter.account);
  add('instrument = @instrument', 'instrument', filter.instrument);
  add('side = @side', 'side', filter.side);
  add('exit_reason = @exitReason', 'exitReason', filter.exitReason);
  add('exit_ms >= @fromMs', 'fromMs', filter.fromMs);
  add('exit_ms < @toMs', 'toMs', filter.toMs);
  return { where: conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '', params };
}

/**
 * The journal: every closed trade of the live and the paper account, one row each under an id
 * that says where it came from (`paper:<signal_id>`, `live:<position ticket>`), so a trade seen
 * twice (a replay of the venue's deals, two replicas) is journaled once.
 */
export class JournalStore {
  constructor(private readonly db: Database) {}

  /** Journals `trade` (in `tx` when given: the paper account closes and journals in one write); false when its id is journaled already. */
  async record(trade: JournalTrade, tx: Queries = this.db): Promise<boolean> {
    const { changes } = await tx.run(
      `INSERT INTO strategy_journal (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map((c) => `@${c}`).join(', ')}) ON CONFLICT (id) DO NOTHING`,
      paramsOf(trade),
    );
    return changes === 1;
  }

  async has(id: string): Promise<boolean> {
    return (await this.db.one('SELECT 1 AS found FROM strategy_journal WHERE id = @id', { id })) !== undefined;
  }

  /** A page of the trades `filter` matches, newest exit first, older than `before`. */
  async page(filter: JournalFilter, limit: number, before?: JournalCursor): Promise<JournalTradePage> {
    const { where, params } = whereOf(filter);
    const after = before ? `${where ? `${where} AND` : 'WHERE'} (exit_ms < @beforeMs OR (exit_ms = @beforeMs AND seq < @beforeSeq))` : where;
    const rows = await this.db.query<JournalRow>(`${SELECT} ${after} ORDER BY exit_ms DESC, seq DESC LIMIT @limit`, {
      ...params,
      ...(before ? { beforeMs: before.exitMs, beforeSeq: before.seq } : {}),
      limit: limit + 1,
    });
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return { trades: page.map(tradeOf), next: rows.length > limit && last ? { exitMs: Number(last.exit_ms), seq: Number(last.seq) } : null };
  }

  /** The P/L journaled for `account` with an exit at or after `fromMs` (and before `toMs`). */
  async pnlSum(account: JournalAccount, fromMs: number, toMs = Number.MAX_SAFE_INTEGER): Promise<number> {
    const row = await this.db.one<{ total: number | null }>(
      'SELECT SUM(pnl) AS total FROM strategy_journal WHERE account = @account AND exit_ms >= @fromMs AND exit_ms < @toMs',
      { account, fromMs, toMs },
    );
    return Number(row?.total ?? 0);
  }

  /** Trades whose exit is not announced yet, in the order they were journaled. */
  async unannounced(limit: number): Promise<JournalTrade[]> {
    const rows = await this.db.query<JournalRow>(`${SELECT} WHERE announced IS NULL ORDER BY seq LIMIT @limit`, { limit });
    return rows.map(tradeOf);
  }

  /** Keeps what the announcement of the trade `id`'s exit came to (`sent`, `skipped`, `refused`, `off`). */
  async markAnnounced(id: string, outcome: AnnouncementOutcome): Promise<void> {
    await this.db.run('UPDATE strategy_journal SET announced = @outcome WHERE id = @id', { id, outcome });
  }

  /** Each account's trades with an exit in [fromMs, toMs): how many, how many won (P/L above 0), their P/L and R multiples. */
  async totals(fromMs: number, toMs: number): Promise<AccountTotals[]> {
    const rows = await this.db.query<{ account: JournalAccount; trades: number; wins: number; pnl: number; r: number | null }>(
      `SELECT account, COUNT(*) AS trades, SUM(CASE WHEN pnl > 0 THEN 1 ELSE 0 END) AS wins, SUM(pnl) AS pnl, SUM(r_multiple) AS r
       FROM strategy_journal WHERE exit_ms >= @fromMs AND exit_ms < @toMs GROUP BY account ORDER BY account`,
      { fromMs, toMs },
    );
    return rows.map((row) => ({
      account: row.account,
      trades: Number(row.trades),
      wins: Number(row.wins),
      pnl: Number(row.pnl),
      rMultiples: Number(row.r ?? 0),
    }));
  }

  /** The first exit journaled for `account`, epoch ms. */
  async firstExitMs(account: JournalAccount): Promise<number | undefined> {
    const row = await this.db.one<{ first: number | null }>('SELECT MIN(exit_ms) AS first FROM strategy_journal WHERE account = @account', { account });
    return row?.first === null || row?.first === undefined ? undefined : Number(row.first);
  }
}
