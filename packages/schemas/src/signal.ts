import { z } from 'zod';
import { BrokerSymbolSchema, PositiveDecimalStringSchema, Rfc3339Schema, UuidSchema } from './primitives.js';

export const ExecutionTypeSchema = z.enum(['market', 'limit', 'stop']);
export const DirectionSchema = z.enum(['buy', 'sell']);

/** A signal-provider slug: lowercase words joined by `-` or `_`. */
export const SourceSlugSchema = z
  .string()
  .min(1)
  .max(32)
  .regex(/^[a-z0-9]+(?:[-_][a-z0-9]+)*$/, { message: 'expected a lowercase slug like "tradingview"' });

const SignalFieldsSchema = z.strictObject({
  signal_id: UuidSchema.meta({ description: 'Idempotency key; never reuse with changed fields' }),
  occurred_at: Rfc3339Schema.meta({ description: 'When the signal fired; used for the freshness check' }),
  execution_type: ExecutionTypeSchema,
  symbol: BrokerSymbolSchema.meta({ description: 'Exact, case-sensitive broker symbol; must be in ALLOWED_SYMBOLS' }),
  direction: DirectionSchema,
  volume: PositiveDecimalStringSchema.meta({ description: 'Lots, checked against the volume step and MAXIMUM_VOLUME' }),
  source: SourceSlugSchema.meta({ description: 'Signal provider; must be in ALLOWED_SIGNAL_SOURCES; written to the order comment', example: 'tradingview' }),
  entry_price: PositiveDecimalStringSchema.optional().meta({ description: 'Required for limit and stop; prohibited for market' }),
  stop_loss: PositiveDecimalStringSchema.optional().meta({ description: 'Absolute stop-loss price' }),
  take_profit: PositiveDecimalStringSchema.optional().meta({ description: 'Absolute take-profit price' }),
  stop_loss_distance: PositiveDecimalStringSchema.optional().meta({ description: 'Stop-loss distance in price units, unsigned' }),
  take_profit_distance: PositiveDecimalStringSchema.optional().meta({ description: 'Take-profit distance in price units, unsigned' }),
  expires_at: Rfc3339Schema.optional().meta({ description: 'Expiry of a pending order' }),
  deviation_points: z.number().int().min(0).optional().meta({ description: 'Slippage cap in points; at most MAX_DEVIATION_POINTS' }),
  note: z.string().max(500).optional().meta({ description: 'Free-text tag' }),
  ignore_signal_age: z
    .boolean()
    .default(true)
    .meta({ description: 'When true the SIGNAL_MAX_AGE_SECONDS check is skipped; the future tolerance and expires_at still apply' }),
});

/**
 * The signal submission of spec 001 (A): strict (unknown fields rejected), decimals as strings,
 * timestamps with a zone, and the cross-field rules of the spec enforced.
 */
export const SignalSubmissionSchema = SignalFieldsSchema.superRefine((s, ctx) => {
  if (s.execution_type === 'market' && s.entry_price !== undefined) {
    ctx.addIssue({ code: 'custom', path: ['entry_price'], message: 'is prohibited for market orders' });
  }
  if (s.execution_type !== 'market' && s.entry_price === undefined) {
    ctx.addIssue({ code: 'custom', path: ['entry_price'], message: `is required for ${s.execution_type} orders` });
  }
  if (s.stop_loss !== undefined && s.stop_loss_distance !== undefined) {
    ctx.addIssue({ code: 'custom', path: ['stop_loss_distance'], message: 'give stop_loss or stop_loss_distance, not both' });
  }
  if (s.take_profit !== undefined && s.take_profit_distance !== undefined) {
    ctx.addIssue({ code: 'custom', path: ['take_profit_distance'], message: 'give take_profit or take_profit_distance, not both' });
  }
}).meta({ id: 'SignalSubmission' });

export type SignalSubmission = z.output<typeof SignalSubmissionSchema>;
export type SignalSubmissionInput = z.input<typeof SignalSubmissionSchema>;
