import { describe, expect, it } from 'vitest';
import { SseParser } from '../src/sse.js';

describe('SseParser (WHATWG HTML §9.2.6)', () => {
  it('dispatches an event at a blank line with its type, data and id', () => {
    const parser = new SseParser();
    expect(parser.push('event: tick\nid: 7\ndata: {"a":1}\n\n')).toEqual([{ event: 'tick', data: '{"a":1}', id: '7' }]);
  });

  it('names an event without an event field "message"', () => {
    expect(new SseParser().push('data: x\n\n')).toEqual([{ event: 'message', data: 'x', id: undefined }]);
  });

  it('joins several data lines with a line feed', () => {
    expect(new SseParser().push('data: one\ndata: two\n\n')[0]?.data).toBe('one\ntwo');
  });

  it('ignores comments, unknown fields and a blank line with no data', () => {
    expect(new SseParser().push(': heartbeat\n\nfoo: bar\n\n')).toEqual([]);
  });

  it('accepts CRLF, CR and LF line ends, also when a CRLF is split across chunks', () => {
    const parser = new SseParser();
    expect(parser.push('data: a\r')).toEqual([]);
    expect(parser.push('\n\r\ndata: b\r\rdata: c\n\n')).toEqual([
      { event: 'message', data: 'a', id: undefined },
      { event: 'message', data: 'b', id: undefined },
      { event: 'message', data: 'c', id: undefined },
    ]);
  });

  it('keeps a partial line until the rest arrives', () => {
    const parser = new SseParser();
    expect(parser.push('event: ti')).toEqual([]);
    expect(parser.push('ck\ndata: {"b"')).toEqual([]);
    expect(parser.push(':2}\n\n')).toEqual([{ event: 'tick', data: '{"b":2}', id: undefined }]);
  });

  it('strips one leading space of a value and a byte order mark at the start of the stream', () => {
    expect(new SseParser().push('\uFEFFdata:  two spaces\n\n')[0]?.data).toBe(' two spaces');
  });

  it('takes retry only when it is all digits, and an id without NUL', () => {
    const parser = new SseParser();
    parser.push('retry: 3000\nid: 5\n\nretry: 1s\nid: a\u0000b\n\n');
    expect(parser.retryMs).toBe(3000);
    expect(parser.lastEventId).toBe('5');
  });
});
