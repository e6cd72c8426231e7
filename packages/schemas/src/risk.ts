import { z } from 'zod';
import { JOURNAL_ACCOUNTS } from './journal.js';
import { IsoTimestampSchema } from './primitives.js';

/** What halted an account: the daily loss limit or the drawdown below the peak. */
export const RiskHaltSchema = z
  .object({
    reason: z.enum(['daily_loss_limit', 'max_drawdown']),
    at: IsoTimestampSchema.meta({ description: 'The equity mark that reached the limit' }),
    detail: z.string().meta({ description: 'The figures, e.g. lost 300.00 of the day’s 10000.00: the limit is 3%' }),
  })
  .meta({ id: 'RiskHalt' });

const limit = (what: string) =>
  z
    .number()
    .nullable()
    .meta({ description: `${what}; null: no limit (the setting is 0)` });

/** One account's limits, their use now and its halt (GET /risk). Money in the account currency. */
export const AccountRiskSchema = z
  .object({
    account: z.enum(JOURNAL_ACCOUNTS),
    halted: z.boolean().meta({ description: 'No new entry until a person resumes (POST /risk/resume)' }),
    halt: RiskHaltSchema.nullable(),
    equity: z
      .object({ value: z.number(), at: IsoTimestampSchema })
      .nullable()
      .meta({ description: 'The last equity marked (with the open positions’ floating P/L); null before the first' }),
    open_trades: z.object({
      open: z.number().int().meta({ description: 'Positions the strategy holds open on the account' }),
      limit: limit('MAX_OPEN_TRADES'),
      one_per_pair: z.boolean().meta({ description: 'ONE_POSITION_PER_PAIR' }),
    }),
    exposure: z.object({
      limit_lots: limit('MAX_CURRENCY_EXPOSURE_LOTS: net lots long or short in one currency'),
      by_currency: z
        .array(z.object({ currency: z.string(), net_lots: z.number().meta({ description: '+ long, − short, summed across pairs' }) }))
        .meta({ description: 'Each currency the open positions move, most exposed first' }),
    }),
    daily_loss: z.object({
      day: z.string().nullable().meta({ description: 'The trading day (YYYY-MM-DD, the date it ends: it rolls at RISK_DAY_ROLL_HOUR in RISK_DAY_TIME_ZONE)' }),
      start_equity: z.number().nullable().meta({ description: 'The equity at the day’s first mark' }),
      loss: z.number().nullable().meta({ description: 'start_equity − equity (negative: a gain)' }),
      loss_percent: z.number().nullable().meta({ description: 'loss as a % of start_equity' }),
      limit_percent: limit('DAILY_LOSS_LIMIT, % of start_equity'),
    }),
    drawdown: z.object({
      peak: z.number().nullable().meta({ description: 'The highest equity marked since the start or the last resume' }),
      drawdown: z.number().nullable().meta({ description: 'peak − equity' }),
      drawdown_percent: z.number().nullable().meta({ description: 'drawdown as a % of peak' }),
      limit_percent: limit('MAX_DRAWDOWN, % below peak'),
    }),
    cooldown: z.object({
      losses_in_a_row: z.number().int(),
      after_losses: limit('COOLDOWN_LOSSES'),
      candles: limit('COOLDOWN_CANDLES'),
      until: IsoTimestampSchema.nullable().meta({ description: 'No entry before it; null when no cooldown holds' }),
      active: z.boolean(),
    }),
  })
  .meta({ id: 'AccountRisk' });
export type AccountRisk = z.infer<typeof AccountRiskSchema>;

/** GET /risk. */
export const RiskReportSchema = z
  .object({
    halt_flatten: z.boolean().meta({ description: 'HALT_FLATTEN: a halt also closes everything the strategy opened on the account' }),
    accounts: z.array(AccountRiskSchema).meta({ description: 'live, then paper' }),
  })
  .meta({ id: 'RiskReport' });
export type RiskReport = z.infer<typeof RiskReportSchema>;

/** POST /risk/resume body. */
export const RiskResumeRequestSchema = z
  .strictObject({ account: z.enum(JOURNAL_ACCOUNTS).meta({ description: 'The halted account to resume' }) })
  .meta({ id: 'RiskResumeRequest' });
export type RiskResumeRequest = z.infer<typeof RiskResumeRequestSchema>;

/** POST /risk/resume answer: the account as it stands after the resume. */
export const RiskResumeResponseSchema = z
  .object({
    success: z.literal(true),
    message: z.string(),
    resumed_at: IsoTimestampSchema,
    account: AccountRiskSchema,
  })
  .meta({ id: 'RiskResumeResponse' });
export type RiskResumeResponse = z.infer<typeof RiskResumeResponseSchema>;
