import type { Database, Queries } from '@fxdesk/core';
import type { JournalAccount } from '@fxdesk/schemas';
import type { RiskEntry, RiskState } from '@fxdesk/trading';
import type { AnnouncementOutcome } from './journal.js';

/** One account's risk book as the store keeps it (README "Risk"). */
export interface StoredRisk {
  /** The RiskBook's state: the halt, the peak, the day and its start, the losses in a row, the cooldown. */
  state: RiskState;
  /** The open positions the book counts (the exposure, MAX_OPEN_TRADES). */
  open: Array<{ id: string; entry: RiskEntry }>;
  /** The last equity marked, for the reads of GET /risk. */
  equity: { ms: number; value: number } | null;
  /** Resumes so far: a write over a count another replica has raised changes nothing. */
  resumes: number;
  /** The `at` of the halt whose flatten (HALT_FLATTEN) the venue's gateway answered; null: none yet. */
  flattenedHalt: number | null;
}

/** A halt's or a resume's announcement, kept with the state that made it until the leader has sent it. */
export interface RiskAnnouncement {
  key: string;
  account: JournalAccount;
  subject: string;
  message: string;
}

interface RiskRow {
  account: JournalAccount;
  state: string;
  open_positions: string;
  equity: number | null;
  equity_ms: number | null;
  resumes: number;
  halt_flattened_at: number | null;
}

const COLUMNS = 'account, state, open_positions, equity, equity_ms, resumes, halt_flattened_at';

const UPSERT = `INSERT INTO strategy_risk_states (${COLUMNS}, updated_at)
  VALUES (@account, @state, @openPositions, @equity, @equityMs, @resumes, @flattenedHalt, @updatedAt)
  ON CONFLICT (account) DO UPDATE SET state = excluded.state, open_positions = excluded.open_positions, equity = excluded.equity,
    equity_ms = excluded.equity_ms, resumes = excluded.resumes, halt_flattened_at = excluded.halt_flattened_at, updated_at = excluded.updated_at
  WHERE strategy_risk_states.resumes = @expected`;

function riskOf(row: RiskRow): StoredRisk {
  return {
    state: JSON.parse(row.state) as RiskState,
    open: JSON.parse(row.open_positions) as StoredRisk['open'],
    equity: row.equity === null || row.equity_ms === null ? null : { ms: Number(row.equity_ms), value: row.equity },
    resumes: Number(row.resumes),
    flattenedHalt: row.halt_flattened_at === null ? null : Number(row.halt_flattened_at),
  };
}

async function upsert(q: Queries, account: JournalAccount, risk: StoredRisk, expected: number, updatedAt: string): Promise<boolean> {
  const { changes } = await q.run(UPSERT, {
    account,
    state: JSON.stringify(risk.state),
    openPositions: JSON.stringify(risk.open),
    equity: risk.equity?.value ?? null,
    equityMs: risk.equity?.ms ?? null,
    resumes: risk.resumes,
    flattenedHalt: risk.flattenedHalt,
    expected,
    updatedAt,
  });
  return changes > 0;
}

async function keepAnnouncement(q: Queries, a: RiskAnnouncement): Promise<void> {
  await q.run(
    `INSERT INTO strategy_risk_announcements (announcement_key, account, subject, message) VALUES (@key, @account, @subject, @message)
     ON CONFLICT (announcement_key) DO NOTHING`,
    { key: a.key, account: a.account, subject: a.subject, message: a.message },
  );
}

/**
 * The desk's risk state, one row per account, written by the leader (after each change, a halt
 * at once with its announcement) and read by a replica taking the lead, a follower's GET /risk
 * and a resume on any replica. A resume raises `resumes`; the leader's writes carry the count they
 * were made over, so one made before a resume elsewhere changes nothing and tells it to read back.
 */
export class RiskStateStore {
  constructor(private readonly db: Database) {}

  /** Each account's stored book; an account never written is absent. */
  async riskStates(): Promise<Partial<Record<JournalAccount, StoredRisk>>> {
    const rows = await this.db.query<RiskRow & Record<string, unknown>>(`SELECT ${COLUMNS} FROM strategy_risk_states ORDER BY account`);
    return Object.fromEntries(rows.map((row) => [row.account, riskOf(row)]));
  }

  /** Writes `risk` over the stored row when its resumes are still `risk.resumes`; false when a resume came in between. */
  saveRisk(account: JournalAccount, risk: StoredRisk, updatedAt: string): Promise<boolean> {
    return upsert(this.db, account, risk, risk.resumes, updatedAt);
  }

  /** As saveRisk, with a halt's announcement in the same transaction (kept only with the state). */
  saveRiskAnnounced(account: JournalAccount, risk: StoredRisk, updatedAt: string, announcement: RiskAnnouncement): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      if (!(await upsert(tx, account, risk, risk.resumes, updatedAt))) return false;
      await keepAnnouncement(tx, announcement);
      return true;
    });
  }

  /**
   * A resume, on any replica: `resume` is given the stored row (locked until the commit) and
   * answers the resumed book and its announcement, or null when the account is not halted; the
   * book is written with one more resume. The stored book after it, or null when not halted.
   */
  resumeRisk(
    account: JournalAccount,
    updatedAt: string,
    resume: (stored: StoredRisk | undefined) => { risk: StoredRisk; announcement: RiskAnnouncement } | null,
  ): Promise<StoredRisk | null> {
    return this.db.transaction(async (tx) => {
      const row = await tx.one<RiskRow & Record<string, unknown>>(
        `SELECT ${COLUMNS} FROM strategy_risk_states WHERE account = @account ${tx.dialect.forUpdate}`,
        { account },
      );
      const stored = row && riskOf(row);
      const resumed = resume(stored);
      if (!resumed) return null;
      const risk = { ...resumed.risk, resumes: (stored?.resumes ?? 0) + 1 };
      await upsert(tx, account, risk, stored?.resumes ?? 0, updatedAt);
      await keepAnnouncement(tx, resumed.announcement);
      return risk;
    });
  }

  /** The halts and resumes not announced yet, oldest first. */
  async unannounced(limit: number): Promise<RiskAnnouncement[]> {
    const rows = await this.db.query<{ announcement_key: string; account: JournalAccount; subject: string; message: string }>(
      'SELECT announcement_key, account, subject, message FROM strategy_risk_announcements WHERE announced IS NULL ORDER BY seq LIMIT @limit',
      { limit },
    );
    return rows.map(({ announcement_key: key, account, subject, message }) => ({ key, account, subject, message }));
  }

  async markAnnounced(key: string, outcome: AnnouncementOutcome): Promise<void> {
    await this.db.run('UPDATE strategy_risk_announcements SET announced = @outcome WHERE announcement_key = @key', { key, outcome });
  }
}
