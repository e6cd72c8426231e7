/**
 * Server-sent events framing (WHATWG HTML §9.2.5), as the market-data service writes its tick
 * stream: a field is one `name: value` line, a blank line ends an event, a line starting with `:`
 * is a comment. JSON.stringify never emits a raw line break, so a JSON payload fits one `data:` line.
 */

/** One named event with its id; `data` must not contain a line break. */
export function eventFrame(event: string, id: number, data: string): string {
  return `event: ${event}\nid: ${id}\ndata: ${data}\n\n`;
}

/** A comment line; one every 15 s or so keeps proxies from dropping an idle stream (§9.2.7). */
export function commentFrame(text: string): string {
  return `: ${text}\n\n`;
}

/** The reconnection time (ms) an EventSource waits after the stream drops (§9.2.6, `retry`). */
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
