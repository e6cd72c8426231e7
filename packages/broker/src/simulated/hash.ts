/**
 * Small, fast, platform-independent hashes for the simulated market: 32-bit integer arithmetic
 * only (Math.imul), so every process on every machine derives the same numbers from a seed.
 */

const TWO_POW_32 = 4294967296;

function rotl(x: number, r: number): number {
  return (x << r) | (x >>> (32 - r));
}

function mixWord(h: number, word: number): number {
  let k = Math.imul(word, 0xcc9e2d51);
  k = rotl(k, 15);
  k = Math.imul(k, 0x1b873593);
  h ^= k;
  h = rotl(h, 13);
  return (Math.imul(h, 5) + 0xe6546b64) | 0;
}

function finalize(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** A 32-bit key for a string (MurmurHash3 over its UTF-16 code units). */
export function hashString(text: string, seed = 0): number {
  let h = seed | 0;
  for (let i = 0; i < text.length; i++) h = mixWord(h, text.charCodeAt(i));
  h ^= text.length;
  return finalize(h);
}

/** Derives a sub-key, e.g. one per (seed, symbol, purpose). */
export function deriveKey(key: number, ...parts: (string | number)[]): number {
  let h = key;
  for (const part of parts) h = typeof part === 'number' ? hashIndex(h, part) : hashString(part, h);
  return h;
}

/**
 * Hash of an integer index under a key, as an unsigned 32-bit integer. The index may exceed
 * 32 bits (slot numbers at millisecond resolution do), so both halves are mixed in.
 */
export function hashIndex(key: number, index: number): number {
  const high = Math.floor(index / TWO_POW_32);
  return finalize(mixWord(mixWord(key | 0, high), index - high * TWO_POW_32) ^ 8);
}

/** Uniform in [0, 1) from a 32-bit hash. */
export function unit(hash: number): number {
  return hash / TWO_POW_32;
}

/** Uniform in [-1, 1) from a 32-bit hash. */
export function signedUnit(hash: number): number {
  return (hash / TWO_POW_32) * 2 - 1;
}

/** A standard normal variate from a 32-bit hash and its rehash (Box–Muller): within ±6.7. */
export function normal(hash: number): number {
  const u1 = 1 - unit(hash);
  const u2 = unit(rehash(hash));
  return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
}

/** A second, independent-looking hash from a first one (cheaper than hashing the index again). */
export function rehash(hash: number): number {
  return finalize((hash ^ 0x9e3779b9) | 0);
}
