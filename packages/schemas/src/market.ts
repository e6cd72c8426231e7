import { z } from 'zod';
import { IsoTimestampSchema } from './primitives.js';

/** A live quote as the market-data service streams it (spec 002, SSE event `tick`). */
export const TickSchema = z
  .object({
    symbol: z.string(),
    bid: z.number(),
    ask: z.number(),
    spread: z.number(),
    ts: IsoTimestampSchema,
    provider: z.string(),
  })
  .meta({ id: 'Tick' });
export type Tick = z.infer<typeof TickSchema>;

/** A candle of spec 001 (A): `time` is the bar's open in epoch seconds, `volume` the tick volume. */
export const EpochCandleSchema = z
  .object({
    time: z.number().int().meta({ description: 'Bar open time, epoch seconds (UTC)' }),
    open: z.number(),
    high: z.number(),
    low: z.number(),
    close: z.number(),
    volume: z.number().int().meta({ description: 'Tick volume' }),
    spread: z.number().int().nullable().meta({ description: 'Spread in points; null when the venue gives none' }),
  })
  .meta({ id: 'EpochCandle' });
export type EpochCandle = z.infer<typeof EpochCandleSchema>;

/** A closed candle of spec 002 (C): `ts` is the END of the bar's UTC interval. */
export const IntervalCandleSchema = z
  .object({
    ts: IsoTimestampSchema.meta({ description: 'End of the candle interval (UTC)' }),
    open: z.number(),
    high: z.number(),
    low: z.number(),
    close: z.number(),
    volume: z.number(),
    provider: z.string(),
    source_instrument: z.string(),
    spread: z.number().nullable(),
    spread_source: z.string().nullable(),
  })
  .meta({ id: 'IntervalCandle' });
export type IntervalCandle = z.infer<typeof IntervalCandleSchema>;
