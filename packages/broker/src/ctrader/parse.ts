import type { z } from 'zod';
import { BrokerError } from '../errors.js';
import { payloadTypeLabel } from './wire.js';

/** A response payload read by its schema; what does not fit is a `protocol` error naming the field. */
export function parsePayload<S extends z.ZodType>(schema: S, payload: Record<string, unknown>, payloadType: number): z.output<S> {
  const parsed = schema.safeParse(payload);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new BrokerError(
    'protocol',
    `malformed ${payloadTypeLabel(payloadType)} from cTrader: ${issue?.path.join('.') || '(payload)'} ${issue?.message ?? ''}`.trim(),
  );
}
