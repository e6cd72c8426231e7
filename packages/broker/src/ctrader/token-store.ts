import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { withFileLock } from './token-file-lock.js';

/** An access token, and the refresh token that renews it when there is one. */
export interface CTraderTokenPair {
  accessToken: string;
  refreshToken?: string;
}

const StoredTokensSchema = z.object({
  accessToken: z.string().min(1),
  refreshToken: z.string().min(1),
  /** When the access token expires: the refresh's time plus ProtoOARefreshTokenRes.expiresIn. */
  expiresAtMs: z.number().int(),
  refreshedAtMs: z.number().int(),
  /** `tokenFingerprint` of the configured pair this one descends from, refresh after refresh. */
  origin: z.string().regex(/^[0-9a-f]{64}$/),
});

/** A refreshed pair as the store keeps it. */
export type StoredCTraderTokens = z.output<typeof StoredTokensSchema>;

/** Where a feed keeps the pair it refreshed, so that a restart starts from it. */
export interface CTraderTokenStore {
  /** Names the place in messages (a path), never the tokens. */
  readonly location: string;
  /** The saved pair, or undefined when nothing was saved; throws on a record it cannot read. */
  load(): StoredCTraderTokens | undefined;
  save(tokens: StoredCTraderTokens): void;
  /**
   * Runs `renew` while no other process renews from the same store; a store only one process
   * uses needs none.
   */
  lockForRenewal?<T>(renew: () => Promise<T>): Promise<T>;
}

/**
 * Which configured pair a stored one came from: a SHA-256 of both tokens. Configuration that
 * still names that pair is older than the store (each refresh spends the refresh token before);
 * configuration naming another pair was granted since, and wins.
 */
export function tokenFingerprint(pair: CTraderTokenPair): string {
  return createHash('sha256')
    .update(`${pair.accessToken}\n${pair.refreshToken ?? ''}`)
    .digest('hex');
}

/**
 * A JSON file holding one pair, readable by its owner only (mode 0600), replaced atomically: the
 * new record goes to a temporary file beside it, is flushed to disk, then renamed over the old
 * one, so a crash (or a reader in another process) sees either the old pair or the new one, never
 * half of either. Processes that share the file renew one at a time, under `<file>.lock`
 * (withFileLock).
 */
export function fileTokenStore(file: string): CTraderTokenStore {
  return {
    location: file,
    load: () => {
      let text: string;
      try {
        text = fs.readFileSync(file, 'utf8');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw err;
      }
      const parsed = StoredTokensSchema.safeParse(parseJson(text));
      if (!parsed.success) throw new Error(`${file} is not a cTrader token record: delete it to start from the configured tokens`);
      return parsed.data;
    },
    save: (tokens) => {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      const temporary = `${file}.${process.pid}.tmp`;
      const fd = fs.openSync(temporary, 'w', 0o600);
      try {
        // An earlier temporary file left by a crash keeps its mode through open: set it again.
        fs.fchmodSync(fd, 0o600);
        fs.writeFileSync(fd, `${JSON.stringify(tokens)}\n`);
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
      fs.renameSync(temporary, file);
    },
    lockForRenewal: (renew) => withFileLock(file, renew),
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
