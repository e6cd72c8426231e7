/**
 * Server-sent events framing, for the market-data tick stream and the strategy's /events alike.
 * WHATWG HTML §9.2.5 "Parsing an event stream": a field is one
 * `name: value` line, a blank line ends an event, a line starting with `:` is a comment the
 * client ignores. JSON.stringify never emits a raw line break, so a JSON payload always fits
 * on one `data:` line.
 */

/**
 * One named event with its id; `data` must not contain a line break. A null id writes no `id:`
 * field, which leaves the client's last event id as it was (§9.2.6).
 */
export function eventFrame(event: string, id: number | string | null, data: string): string {
  return id === null ? `event: ${event}\ndata: ${data}\n\n` : `event: ${event}\nid: ${id}\ndata: ${data}\n\n`;
}

/**
 * A comment line. §9.2.7 advises one "every 15 seconds or so" so that proxies which drop idle
 * HTTP connections keep the stream open.
 */
export function commentFrame(text: string): string {
  return `: ${text}\n\n`;
}

/** The reconnection time (ms) an EventSource uses after the stream drops (§9.2.6, `retry`). */
export function retryFrame(ms: number): string {
  return `retry: ${ms}\n\n`;
}

/** Response headers of an event stream: never cached, never buffered by nginx, never compressed. */
export const STREAM_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  'x-accel-buffering': 'no',
  connection: 'keep-alive',
} as const;
