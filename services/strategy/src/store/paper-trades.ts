import type { Database, Queries } from '@fxdesk/core';

/** A paper position opened by a dry_run signal. `side` is 1 (long) or −1 (short). */
export interface PaperTrade {
  signalId: string;
  instrument: string;
  side: 1 | -1;
  units: number;
  entry: number;
  stopLoss: number;
  takeProfit: number;
  /** Open time (epoch s) of the candle the signal came from: only later candles can close it. */
  candleTime: number;
  openedAt: string;
}

type PaperTradeRow = {
  signal_id: string;
  instrument: string;
  side: number;
  units: number;
  entry: number;
  stop_loss: number;
  take_profit: number;
  candle_time: number;
  opened_at: string;
};

const COLUMNS = 'signal_id, instrument, side, units, entry, stop_loss, take_profit, candle_time, opened_at';

function paperTradeOf(row: PaperTradeRow): PaperTrade {
  return {
    signalId: row.signal_id,
    instrument: row.instrument,
    side: row.side === 1 ? 1 : -1,
    units: row.units,
    entry: row.entry,
    stopLoss: row.stop_loss,
    takeProfit: row.take_profit,
    candleTime: row.candle_time,
    openedAt: row.opened_at,
  };
}

/**
 * The paper account's trades: opened with the dry_run signal they come from, in the signal's
 * write (`open`, called by SignalStore.insert), closed once by the paper account.
 */
export class PaperTradeStore {
  constructor(private readonly db: Database) {}

  /** Opens `trade` in the transaction of its signal's insert. */
  async open(tx: Queries, trade: PaperTrade): Promise<void> {
    await tx.run(
      `INSERT INTO strategy_paper_trades (${COLUMNS})
       VALUES (@signalId, @instrument, @side, @units, @entry, @stopLoss, @takeProfit, @candleTime, @openedAt) ON CONFLICT (signal_id) DO NOTHING`,
      { ...trade },
    );
  }

  async openPaperTrades(): Promise<PaperTrade[]> {
    const rows = await this.db.query<PaperTradeRow>(`SELECT ${COLUMNS} FROM strategy_paper_trades WHERE closed_at IS NULL ORDER BY opened_at, signal_id`);
    return rows.map(paperTradeOf);
  }

  async closePaperTrade(signalId: string, exitPrice: number, pnl: number, closedAt: string): Promise<void> {
    await this.db.run(
      'UPDATE strategy_paper_trades SET closed_at = @closedAt, exit_price = @exitPrice, pnl = @pnl WHERE signal_id = @signalId AND closed_at IS NULL',
      { signalId, exitPrice, pnl, closedAt },
    );
  }

  /** Profit and loss of every closed paper trade, in the account currency. */
  async realizedPaperPnl(): Promise<number> {
    const row = await this.db.one<{ total: number }>('SELECT COALESCE(SUM(pnl), 0) AS total FROM strategy_paper_trades WHERE closed_at IS NOT NULL');
    return row?.total ?? 0;
  }
}
