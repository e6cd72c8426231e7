import { z } from 'zod';
import { EXIT_REASONS, LabMetricsSchema, TRADE_SIDES } from './lab.js';
import { InstrumentNameSchema, IsoTimestampSchema } from './primitives.js';

/** The accounts the strategy journals: the venue's (orders through the execution service) and the paper account's (dry_run). */
export const JOURNAL_ACCOUNTS = ['live', 'paper'] as const;
export type JournalAccount = (typeof JOURNAL_ACCOUNTS)[number];

/** One closed trade of the journal (GET /trades). Money in the account currency. */
export const JournalTradeSchema = z
  .object({
    id: z.string().meta({ description: 'paper:<signal_id>, or live:<position ticket>' }),
    account: z.enum(JOURNAL_ACCOUNTS),
    signal_id: z.uuid().nullable().meta({ description: 'The signal that opened it; null for a position the desk did not open from a signal' }),
    position: z.string().nullable().meta({ description: "The venue's position ticket (live); null on paper" }),
    instrument: z.string(),
    side: z.enum(TRADE_SIDES),
    volume_lots: z.number(),
    entry_time: IsoTimestampSchema,
    entry_price: z.number(),
    exit_time: IsoTimestampSchema.meta({ description: 'When the last of its volume was closed' }),
    exit_price: z.number().meta({ description: 'Volume-weighted over its closing deals' }),
    exit_reason: z.enum(EXIT_REASONS).meta({
      description:
        'stop, target; break_even or trailing: the stop an exit rule had moved; time, opposite_signal: an exit rule; manual: closed by hand (the console, the API, the broker’s own platform); flatten: POST /stop {close_positions} or close-all',
    }),
    pnl: z.number().meta({ description: 'Net: profit plus commission plus swap' }),
    commission: z.number().meta({ description: 'Included in pnl; negative is a cost' }),
    swap: z.number().meta({ description: 'Included in pnl' }),
    r_multiple: z.number().nullable().meta({ description: 'pnl over the money at risk to the stop at entry; null when it entered without a stop' }),
    duration_seconds: z.number(),
  })
  .meta({ id: 'JournalTrade' });
export type JournalTrade = z.infer<typeof JournalTradeSchema>;

const Range = {
  from: IsoTimestampSchema.optional().meta({ description: 'Trades that closed at or after it' }),
  to: IsoTimestampSchema.optional().meta({ description: 'Trades that closed before it' }),
};

/** GET /trades query. */
export const JournalQuerySchema = z.strictObject({
  account: z.enum(JOURNAL_ACCOUNTS).optional().meta({ description: 'live or paper; both when omitted' }),
  instrument: InstrumentNameSchema.optional(),
  side: z.enum(TRADE_SIDES).optional(),
  exit_reason: z.enum(EXIT_REASONS).optional(),
  ...Range,
  limit: z.coerce.number().int().min(1).max(500).default(50).meta({ description: 'Trades per page, 1 to 500; default 50 (JSON only: CSV holds every match)' }),
  cursor: z.string().max(64).optional().meta({ description: 'next_cursor of the previous page' }),
  format: z.enum(['json', 'csv']).default('json').meta({ description: 'csv: every matching trade as text/csv, newest first, the columns of JournalTrade' }),
});
export type JournalQuery = z.infer<typeof JournalQuerySchema>;

/** GET /trades, newest exit first. */
export const JournalPageSchema = z
  .object({
    trades: z.array(JournalTradeSchema),
    next_cursor: z.string().nullable().meta({ description: 'Pass as cursor for the next (older) page; null on the last page' }),
  })
  .meta({ id: 'JournalPage' });
export type JournalPage = z.infer<typeof JournalPageSchema>;

/** GET /performance query. */
export const PerformanceQuerySchema = z.strictObject({
  account: z.enum(JOURNAL_ACCOUNTS).meta({ description: 'live or paper' }),
  ...Range,
});
export type PerformanceQuery = z.infer<typeof PerformanceQuerySchema>;

const PeriodPnlSchema = z.object({
  start: z.string().meta({ description: 'YYYY-MM-DD (UTC): the day, or the Monday its week starts on' }),
  pnl: z.number(),
  trades: z.number().int(),
});

/** GET /performance: the lab's metrics over the journal's trades of a range, and P/L by day and by week. */
export const PerformanceSchema = z
  .object({
    account: z.enum(JOURNAL_ACCOUNTS),
    from: IsoTimestampSchema.meta({ description: 'The range: as asked, else from the first trade' }),
    to: IsoTimestampSchema.meta({ description: 'As asked, else now' }),
    initial_equity: z.number().meta({ description: 'The balance at `from`: the paper balance, or the live one less the P/L journaled since' }),
    metrics: LabMetricsSchema.meta({
      description:
        'As a backtest computes them, over the realized equity (marked at each trade’s exit and at each UTC day’s end but Saturday’s, Sunday’s hours counting with Monday’s); exposure: the share of the range with a trade open',
    }),
    equity: z
      .array(z.object({ time: IsoTimestampSchema, equity: z.number() }))
      .meta({ description: 'The realized equity after each trade, from `initial_equity`' }),
    pnl_by_day: z.array(PeriodPnlSchema),
    pnl_by_week: z.array(PeriodPnlSchema),
  })
  .meta({ id: 'Performance' });
export type Performance = z.infer<typeof PerformanceSchema>;
