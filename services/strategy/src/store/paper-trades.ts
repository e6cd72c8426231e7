import type { Database, Queries } from '@fxdesk/core';
import type { CloseReason, ExitReason, StopReason } from '@fxdesk/trading';
import type { AnnouncementOutcome, JournalStore } from './journal.js';
import { UNANNOUNCED_PAPER_FILL } from './schema.js';

/**
 * A paper trade as a dry_run signal opens it: the signal's levels. `side` is 1 (long) or −1
 * (short); `entry` is the signal's price until the trade enters, then the fill.
 */
export interface PaperTrade {
  signalId: string;
  instrument: string;
  side: 1 | -1;
  units: number;
  entry: number;
  stopLoss: number;
  takeProfit: number;
  /** Open time (epoch s) of the candle the signal came from: only later candles can fill or close it. */
  candleTime: number;
  openedAt: string;
}

/** A paper trade not closed yet, with what the fill model and the exit rules keep of it between candles. */
export interface PaperPosition extends PaperTrade {
  /** Open time (epoch s) of the candle it entered at; null while the signal waits for the next open. */
  entryTime: number | null;
  /** The stop now (an exit rule may have moved it from stopLoss), and the rule that set it. */
  stop: number;
  stopReason: StopReason;
  candlesHeld: number;
  /** Open time (epoch s) of the last candle applied to it. */
  lastCandleTime: number;
  /** An exit decided at a close, to fill at the next open. */
  closing: CloseReason | null;
  volumeLots: number | null;
}

/** A paper trade as it entered: `entry` is the fill, at the open of the candle `entryTime` (epoch s). */
export interface PaperFill extends PaperTrade {
  entryTime: number;
  volumeLots: number | null;
}

/** How a paper trade closed, beside its exit price and P/L. */
export interface PaperExit {
  reason: ExitReason;
  /** Open time (epoch s) of the candle it closed in. */
  exitTime: number;
  /** In the account currency, included in the P/L. */
  commission: number;
  rMultiple: number;
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

type PaperPositionRow = PaperTradeRow & {
  entry_time: number | null;
  stop: number;
  stop_reason: string;
  candles_held: number;
  last_candle_time: number;
  closing: string | null;
  volume_lots: number | null;
};

const COLUMNS = 'signal_id, instrument, side, units, entry, stop_loss, take_profit, candle_time, opened_at';
const POSITION_COLUMNS = `${COLUMNS}, entry_time, stop, stop_reason, candles_held, last_candle_time, closing, volume_lots`;
const UNCLOSED = 'FROM strategy_paper_trades WHERE closed_at IS NULL';

function paperTradeOf(row: PaperTradeRow): PaperTrade {
  return {
    signalId: row.signal_id,
    instrument: row.instrument,
    side: row.side === 1 ? 1 : -1,
    units: row.units,
    entry: row.entry,
    stopLoss: row.stop_loss,
    takeProfit: row.take_profit,
    candleTime: Number(row.candle_time),
    openedAt: row.opened_at,
  };
}

function paperPositionOf(row: PaperPositionRow): PaperPosition {
  return {
    ...paperTradeOf(row),
    entryTime: row.entry_time === null ? null : Number(row.entry_time),
    stop: row.stop,
    stopReason: row.stop_reason as StopReason,
    candlesHeld: row.candles_held,
    lastCandleTime: Number(row.last_candle_time),
    closing: row.closing as CloseReason | null,
    volumeLots: row.volume_lots,
  };
}

/**
 * The paper account's trades: opened with the dry_run signal they come from, in the signal's
 * write (`open`, called by SignalStore.insert), waiting for their entry at the next candle's open,
 * then moved and closed once by the paper account.
 */
export class PaperTradeStore {
  constructor(
    private readonly db: Database,
    private readonly journal: JournalStore,
  ) {}

  /** Opens `trade`, waiting for its entry, in the transaction of its signal's insert. */
  async open(tx: Queries, trade: PaperTrade): Promise<void> {
    await tx.run(
      `INSERT INTO strategy_paper_trades (${COLUMNS}, stop, stop_reason, candles_held, last_candle_time)
       VALUES (@signalId, @instrument, @side, @units, @entry, @stopLoss, @takeProfit, @candleTime, @openedAt, @stopLoss, 'stop', 0, @candleTime)
       ON CONFLICT (signal_id) DO NOTHING`,
      { ...trade },
    );
  }

  /** Marks the open trade `signalId` to close at the next open for `reason`, in the transaction of the signal that closes it. */
  async markClosing(tx: Queries, signalId: string, reason: CloseReason): Promise<void> {
    await tx.run(`UPDATE strategy_paper_trades SET closing = @reason WHERE signal_id = @signalId AND closed_at IS NULL`, { signalId, reason });
  }

  /** The trades not closed, entered or waiting for their entry. */
  async openPaperTrades(): Promise<PaperTrade[]> {
    const rows = await this.db.query<PaperTradeRow>(`SELECT ${COLUMNS} ${UNCLOSED} ORDER BY opened_at, signal_id`);
    return rows.map(paperTradeOf);
  }

  /** The trades not closed, with their state, of one pair or of all, in the order they were opened. */
  async positions(instrument?: string): Promise<PaperPosition[]> {
    const where = instrument === undefined ? '' : ' AND instrument = @instrument';
    const rows = await this.db.query<PaperPositionRow>(
      `SELECT ${POSITION_COLUMNS} ${UNCLOSED}${where} ORDER BY opened_at, signal_id`,
      instrument === undefined ? {} : { instrument },
    );
    return rows.map(paperPositionOf);
  }

  /** Keeps what changed of a trade not closed: its entry, its stop, the candles applied, a close decided. */
  async keep(position: PaperPosition): Promise<void> {
    await this.db.run(
      `UPDATE strategy_paper_trades SET entry = @entry, units = @units, entry_time = @entryTime, stop = @stop, stop_reason = @stopReason,
         candles_held = @candlesHeld, last_candle_time = @lastCandleTime, closing = @closing, volume_lots = @volumeLots
       WHERE signal_id = @signalId AND closed_at IS NULL`,
      {
        signalId: position.signalId,
        entry: position.entry,
        units: position.units,
        entryTime: position.entryTime,
        stop: position.stop,
        stopReason: position.stopReason,
        candlesHeld: position.candlesHeld,
        lastCandleTime: position.lastCandleTime,
        closing: position.closing,
        volumeLots: position.volumeLots,
      },
    );
  }

  /** Forgets a trade that never entered (the broker would have refused its stops at the open). */
  async drop(signalId: string): Promise<void> {
    await this.db.run('DELETE FROM strategy_paper_trades WHERE signal_id = @signalId AND entry_time IS NULL AND closed_at IS NULL', { signalId });
  }

  /**
   * Closes the open trade `signalId` once; with `exit` (how it closed), journals it in the same
   * write, as `paper:<signal_id>`.
   */
  async closePaperTrade(signalId: string, exitPrice: number, pnl: number, closedAt: string, exit?: PaperExit): Promise<void> {
    await this.db.transaction(async (tx) => {
      const { changes } = await tx.run(
        `UPDATE strategy_paper_trades SET closed_at = @closedAt, exit_price = @exitPrice, pnl = @pnl, exit_reason = @reason, exit_time = @exitTime,
           commission = @commission, r_multiple = @rMultiple, closing = NULL
         WHERE signal_id = @signalId AND closed_at IS NULL`,
        {
          signalId,
          exitPrice,
          pnl,
          closedAt,
          reason: exit?.reason ?? null,
          exitTime: exit?.exitTime ?? null,
          commission: exit?.commission ?? null,
          rMultiple: exit?.rMultiple ?? null,
        },
      );
      if (changes !== 1 || !exit) return;
      const row = await tx.one<{ instrument: string; side: number; entry: number; entry_time: number | null; candle_time: number; volume_lots: number | null }>(
        'SELECT instrument, side, entry, entry_time, candle_time, volume_lots FROM strategy_paper_trades WHERE signal_id = @signalId',
        { signalId },
      );
      if (!row) return;
      const entrySec = Number(row.entry_time ?? row.candle_time);
      await this.journal.record(
        {
          id: `paper:${signalId}`,
          account: 'paper',
          signal_id: signalId,
          position: null,
          instrument: row.instrument,
          side: row.side === 1 ? 'LONG' : 'SHORT',
          volume_lots: row.volume_lots ?? 0,
          entry_time: new Date(entrySec * 1000).toISOString(),
          entry_price: row.entry,
          exit_time: new Date(exit.exitTime * 1000).toISOString(),
          exit_price: exitPrice,
          exit_reason: exit.reason,
          pnl,
          commission: exit.commission,
          swap: 0,
          r_multiple: exit.rMultiple,
          duration_seconds: exit.exitTime - entrySec,
        },
        tx,
      );
    });
  }

  /** The closed trades that came with an exit's details (since the exits were kept), in the order they entered. */
  async closedPaperTrades(): Promise<Array<PaperTrade & PaperExit & { entryTime: number; exitPrice: number; pnl: number; volumeLots: number }>> {
    const rows = await this.db.query<
      PaperTradeRow & {
        entry_time: number;
        exit_reason: ExitReason;
        exit_time: number;
        exit_price: number;
        pnl: number;
        commission: number;
        r_multiple: number;
        volume_lots: number;
      }
    >(
      `SELECT ${COLUMNS}, entry_time, exit_reason, exit_time, exit_price, pnl, commission, r_multiple, volume_lots FROM strategy_paper_trades
       WHERE closed_at IS NOT NULL AND exit_reason IS NOT NULL ORDER BY entry_time, signal_id`,
    );
    return rows.map((row) => ({
      ...paperTradeOf(row),
      entryTime: Number(row.entry_time),
      reason: row.exit_reason,
      exitTime: Number(row.exit_time),
      exitPrice: row.exit_price,
      pnl: row.pnl,
      commission: row.commission,
      rMultiple: row.r_multiple,
      volumeLots: row.volume_lots,
    }));
  }

  /** Trades entered whose fill is not announced yet, in the order they entered: the fill (entry price and time) and the signal's levels. */
  async unannouncedFills(limit: number): Promise<PaperFill[]> {
    const rows = await this.db.query<PaperTradeRow & { entry_time: number; volume_lots: number | null }>(
      `SELECT ${COLUMNS}, entry_time, volume_lots FROM strategy_paper_trades WHERE ${UNANNOUNCED_PAPER_FILL} ORDER BY entry_time, signal_id LIMIT @limit`,
      { limit },
    );
    return rows.map((row) => ({ ...paperTradeOf(row), entryTime: Number(row.entry_time), volumeLots: row.volume_lots }));
  }

  /** Keeps what the announcement of the trade's fill came to. */
  async markFillAnnounced(signalId: string, outcome: AnnouncementOutcome): Promise<void> {
    await this.db.run('UPDATE strategy_paper_trades SET fill_announced = @outcome WHERE signal_id = @signalId', { signalId, outcome });
  }

  /**
   * Profit and loss of every closed paper trade, in the account currency; with `beforeSec`, of
   * those that closed on a candle before it (and those closed with no exit candle).
   */
  async realizedPaperPnl(beforeSec?: number): Promise<number> {
    const row =
      beforeSec === undefined
        ? await this.db.one<{ total: number }>('SELECT COALESCE(SUM(pnl), 0) AS total FROM strategy_paper_trades WHERE closed_at IS NOT NULL')
        : await this.db.one<{ total: number }>(
            'SELECT COALESCE(SUM(pnl), 0) AS total FROM strategy_paper_trades WHERE closed_at IS NOT NULL AND (exit_time IS NULL OR exit_time < @beforeSec)',
            { beforeSec },
          );
    return Number(row?.total ?? 0);
  }
}
