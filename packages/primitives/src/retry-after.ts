/** A `Retry-After` value (RFC 9110 §10.2.3): delay-seconds, or an HTTP-date as epoch ms. */
type RetryAfter = { seconds: number } | { atMs: number };

function parseRetryAfter(value: string | string[] | undefined): RetryAfter | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined || text.trim() === '') return undefined;
  if (/^\d+$/.test(text.trim())) return { seconds: Number(text.trim()) };
  const atMs = Date.parse(text);
  return Number.isNaN(atMs) ? undefined : { atMs };
}

/** `Retry-After` as milliseconds from `nowMs` (0 for a date already past); undefined when absent or unreadable. */
export function retryAfterMs(value: string | string[] | undefined, nowMs: number): number | undefined {
  const parsed = parseRetryAfter(value);
  if (!parsed) return undefined;
  return 'seconds' in parsed ? parsed.seconds * 1000 : Math.max(0, parsed.atMs - nowMs);
}

/** `Retry-After` as whole seconds from `nowMs`, rounded up (0 for a date already past); undefined when absent or unreadable. */
export function retryAfterSeconds(value: string | string[] | undefined, nowMs: number): number | undefined {
  const parsed = parseRetryAfter(value);
  if (!parsed) return undefined;
  return 'seconds' in parsed ? parsed.seconds : Math.max(0, Math.ceil((parsed.atMs - nowMs) / 1000));
}
