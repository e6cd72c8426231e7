import { z } from 'zod';
import { IsoTimestampSchema, UuidSchema } from '@fxdesk/schemas';

/** Spec 001 (A) "States", plus `processing` between the claim and the outcome. */
export const SIGNAL_STATES = ['processing', 'filled', 'partially_filled', 'placed', 'rejected', 'unknown'] as const;
export const SignalStateSchema = z.enum(SIGNAL_STATES).meta({
  description: 'filled, partially_filled and placed are successes; rejected and unknown are final; processing is transient',
});
export type SignalState = z.infer<typeof SignalStateSchema>;

/** The three states a successful POST /v1/signals answers with. */
export type SuccessState = Extract<SignalState, 'filled' | 'partially_filled' | 'placed'>;

export const TicketsSchema = z
  .object({
    order: z.string().nullable().meta({ description: 'Order ticket' }),
    deal: z.string().nullable().meta({ description: 'Deal ticket, when a deal happened' }),
    position: z.string().nullable().meta({ description: 'Position ticket opened or changed by the deal' }),
  })
  .meta({ id: 'BrokerTickets' });
export type Tickets = z.infer<typeof TicketsSchema>;

export const NO_TICKETS: Tickets = { order: null, deal: null, position: null };

export const TradeOutcomeSchema = z
  .object({
    retcode: z.number().int().meta({ description: 'MT5 trade server return code' }),
    retcode_name: z.string().meta({ example: 'TRADE_RETCODE_DONE' }),
    requested_volume: z.string().meta({ description: 'Lots asked for' }),
    filled_volume: z.string().meta({ description: 'Lots executed; "0" for a placed pending order' }),
    price: z.string().nullable().meta({ description: 'Execution price, or the price of a placed order' }),
    broker_comment: z.string().meta({ description: "The terminal's comment on the result" }),
  })
  .meta({ id: 'TradeOutcome' });
export type TradeOutcome = z.infer<typeof TradeOutcomeSchema>;

/** Body of a successful POST /v1/signals (200). */
export const SignalResultSchema = z
  .object({
    signal_id: UuidSchema,
    state: z.enum(['filled', 'partially_filled', 'placed']),
    tickets: TicketsSchema,
    result: TradeOutcomeSchema,
  })
  .meta({ id: 'SignalResult' });
export type SignalResult = z.infer<typeof SignalResultSchema>;

export const SignalFailureSchema = z
  .object({
    code: z.string(),
    message: z.string(),
    details: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  })
  .meta({ id: 'SignalFailure' });
export type SignalFailure = z.infer<typeof SignalFailureSchema>;

/** What the terminal showed for an unknown signal when it was looked up by its order comment. */
export const ReconciliationSchema = z
  .object({
    checked_at: IsoTimestampSchema,
    found: z.array(
      z.object({
        kind: z.enum(['order', 'deal']),
        ticket: z.string(),
        symbol: z.string(),
        type: z.string(),
        volume: z.string(),
        price: z.string(),
        state: z.string(),
        time: IsoTimestampSchema,
      }),
    ),
    error: z.string().optional(),
  })
  .meta({ id: 'Reconciliation' });
export type Reconciliation = z.infer<typeof ReconciliationSchema>;

/** GET /v1/signals/{signal_id}: the durable record of a signal. */
export const SignalRecordSchema = z
  .object({
    signal_id: UuidSchema,
    state: SignalStateSchema,
    request: z.record(z.string(), z.unknown()).meta({ description: 'The submission exactly as received (before defaults)' }),
    order_comment: z.string().meta({ description: 'Comment sent with the order: source and a short tag of the signal_id' }),
    tickets: TicketsSchema,
    result: TradeOutcomeSchema.nullable().meta({ description: "The terminal's answer to order_check or order_send, when there was one" }),
    error: SignalFailureSchema.nullable().meta({ description: 'Why the signal is rejected or unknown' }),
    http_status: z.number().int().nullable().meta({ description: 'Status POST answered (and replays); null while processing' }),
    reconciliation: ReconciliationSchema.nullable().meta({ description: 'Terminal lookup of an unknown signal after a restart' }),
    received_at: IsoTimestampSchema,
    completed_at: IsoTimestampSchema.nullable(),
    updated_at: IsoTimestampSchema,
  })
  .meta({ id: 'SignalRecord' });
export type SignalRecord = z.infer<typeof SignalRecordSchema>;
