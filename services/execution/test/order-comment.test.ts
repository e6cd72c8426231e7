import { describe, expect, it } from 'vitest';
import { commentPrefix, MT5_COMMENT_LENGTH, orderComment, signalTag, sourceOfComment } from '../src/order-comment.js';

const id = '7b0c6a9e-3f0e-4a8e-9d44-2f1b2c3d4e5f';

describe('order comment', () => {
  it('carries the source slug and a tag of the signal_id in exactly 31 characters', () => {
    const comment = orderComment('tradingview', id);
    expect(comment).toHaveLength(MT5_COMMENT_LENGTH);
    expect(comment).toMatch(/^tradingview:[0-9a-f]{19}$/);
    expect(comment.endsWith(signalTag(id, 19))).toBe(true);
  });

  it('keeps at least 12 tag characters by shortening a long source slug', () => {
    const comment = orderComment('a-very-long-signal-provider-slug', id);
    expect(comment).toHaveLength(MT5_COMMENT_LENGTH);
    expect(comment).toMatch(/^a-very-long-signal:[0-9a-f]{12}$/);
  });

  it('is the same for the upper- and lower-case spelling of an id', () => {
    expect(orderComment('manual', id.toUpperCase())).toBe(orderComment('manual', id));
  });

  it('differs between ids that share their leading digits (UUIDv7)', () => {
    const a = orderComment('fxdesk-strategy', '01890a5d-ac96-774b-bcce-b302099a8057');
    const b = orderComment('fxdesk-strategy', '01890a5d-ac96-774b-bcce-b302099a8058');
    expect(a).not.toBe(b);
  });
});

describe('source of an order comment', () => {
  it('reads the slug back from a comment the service wrote', () => {
    expect(sourceOfComment(orderComment('tradingview', id))).toBe('tradingview');
  });

  it('reads the cut slug of a long source, the same as its comment prefix', () => {
    const comment = orderComment('a-very-long-signal-provider-slug', id);
    expect(comment.startsWith(commentPrefix('a-very-long-signal-provider-slug'))).toBe(true);
    expect(sourceOfComment(comment)).toBe('a-very-long-signal');
  });

  it('reads the slug back from a comment a venue kept 26 characters of (MetaApi), the slug at its longest', () => {
    expect(sourceOfComment(orderComment('fxdesk-strategy', id).slice(0, 26))).toBe('fxdesk-strategy');
    expect(sourceOfComment(orderComment('a-very-long-signal-provider-slug', id).slice(0, 26))).toBe('a-very-long-signal');
  });

  it('is null for a comment the service did not write', () => {
    expect(sourceOfComment('placed by hand')).toBeNull();
  });
});
