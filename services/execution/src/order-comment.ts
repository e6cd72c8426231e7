import { createHash } from 'node:crypto';

/** MT5 keeps at most 31 characters of an order comment (MqlTradeRequest.comment). */
export const MT5_COMMENT_LENGTH = 31;
/** Never fewer tag characters than this (48 bits), however long the source slug. */
const MIN_TAG_LENGTH = 12;
/** The fewest characters of a comment a venue keeps: MetaApi's 26 (it cuts what the terminal would keep). */
const SHORTEST_KEPT_COMMENT_LENGTH = 26;
/** Tag characters left of a comment a venue cut, the source slug at its longest: where a comment is still the service's. */
const FEWEST_KEPT_TAG_LENGTH = SHORTEST_KEPT_COMMENT_LENGTH - (MT5_COMMENT_LENGTH - MIN_TAG_LENGTH);

/** A short, uniform tag of a signal_id: the hex SHA-256 of the lower-case id, cut to `length`. */
export function signalTag(signalId: string, length: number): string {
  return createHash('sha256').update(signalId.toLowerCase()).digest('hex').slice(0, length);
}

/**
 * `<source>:<tag>` in exactly the terminal's 31 characters: the source slug for attribution
 * (cut to 18 characters when longer) and as many hex characters of the signal_id's tag as fit,
 * at least 12, so an unknown outcome can be found on the terminal by its comment. The tag is a
 * hash rather than the id's own digits because UUIDv7 and v1 ids share their leading digits.
 */
export function orderComment(source: string, signalId: string): string {
  const prefix = commentPrefix(source);
  return `${prefix}${signalTag(signalId, MT5_COMMENT_LENGTH - prefix.length)}`;
}

/** `<source>:`, the slug cut as orderComment cuts it: every comment of the source's orders starts with it. */
export function commentPrefix(source: string): string {
  return `${source.slice(0, MT5_COMMENT_LENGTH - 1 - MIN_TAG_LENGTH)}:`;
}

const SERVICE_COMMENT = new RegExp(`^([a-z0-9]+(?:[-_][a-z0-9]+)*):[0-9a-f]{${FEWEST_KEPT_TAG_LENGTH},30}$`);

/**
 * The source slug an order comment carries (as cut to fit), or null when the comment is not one
 * of the service's; also when the venue kept fewer than 31 characters of it (MetaApi: 26), as
 * long as some of its tag is left.
 */
export function sourceOfComment(comment: string): string | null {
  const m = SERVICE_COMMENT.exec(comment);
  return m ? (m[1] as string) : null;
}
