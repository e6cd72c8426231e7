import { z } from 'zod';

/** The error envelope every fxdesk service answers with (DESIGN.md §2). */
export const ErrorEnvelopeSchema = z
  .object({
    error: z.literal(true),
    code: z.string(),
    message: z.string(),
    timestamp: z.string(),
    requestId: z.string().optional(),
    details: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  })
  .meta({ id: 'ErrorEnvelope' });
export type ErrorEnvelopeBody = z.infer<typeof ErrorEnvelopeSchema>;
