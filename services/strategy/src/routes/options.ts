import { ErrorEnvelopeSchema } from '@fxdesk/schemas';
import type { RateLimitHooks } from '../rate-limits.js';

/** Route options of a rate-limited spec 000 endpoint: its group's limiter, the kit's global one off. */
export function limitedBy(hook: RateLimitHooks['get']) {
  return { config: { rateLimit: false as const }, onRequest: hook };
}

/** The 429 every limited endpoint may answer. */
export const RATE_LIMITED_RESPONSE = { 429: ErrorEnvelopeSchema.meta({ description: 'RATE_LIMITED, with Retry-After' }) };
