import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { AppError, type App } from '@fxdesk/core';
import {
  CANDLE_FILE_MEDIA_TYPES,
  ErrorEnvelopeSchema,
  StoredCandleImportQuerySchema,
  StoredCandleImportSchema,
  type StoredCandleImport,
} from '@fxdesk/schemas';
import { z } from 'zod';
import { errors } from '../errors.js';
import { ImportError, importFile, type ImportReport } from '../import/importer.js';
import type { CandleStore } from '../store/candle-store.js';

export interface CandleImportOptions {
  /** MAX_IMPORT_BYTES: the largest body taken, as sent. */
  maxBytes: number;
  /** Where an upload is written while it arrives (DATA_DIR), removed once imported. */
  tempDir: string;
}

/** The import's own refusal: the file (or a `tz` for it) the importer cannot read, or a file of no valid row. */
function invalidImport(message: string, details?: { path: string; message: string }[]): AppError {
  return new AppError('invalid_import', message, { status: 422, details });
}

function tooLarge(maxBytes: number): AppError {
  // The client may still be sending: the connection is closed after the answer rather than read to its end.
  return new AppError('payload_too_large', `the file is larger than MAX_IMPORT_BYTES (${maxBytes} bytes); nothing was imported`, {
    headers: { connection: 'close' },
  });
}

/** The body's chunks, up to `maxBytes` in all; past it 413 is thrown and the request is left as it is, so the answer can still go out. */
async function* limited(body: Readable, maxBytes: number): AsyncGenerator<Buffer> {
  let bytes = 0;
  for await (const chunk of body.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
    bytes += chunk.length;
    if (bytes > maxBytes) throw tooLarge(maxBytes);
    yield chunk;
  }
}

/**
 * Writes the body to `file`, at most `maxBytes` of it (413 beyond). The body arrives at the
 * client's pace and the import's transaction opens only once it is whole, so a slow upload never
 * holds the store's writes (and, on SQLite, its reads) back.
 */
async function receive(body: Readable, file: string, maxBytes: number): Promise<void> {
  try {
    await pipeline(limited(body, maxBytes), fs.createWriteStream(file));
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw new AppError('bad_request', `the upload ended before the whole file arrived (${(err as Error).message}); nothing was imported`);
  }
}

/** The importer's report as the route answers it. */
function answerOf(query: z.output<typeof StoredCandleImportQuerySchema>, report: ImportReport): StoredCandleImport {
  const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
  const { malformed, outOfOrder, duplicate } = report.skipped;
  return {
    symbol: query.symbol,
    timeframe: query.timeframe,
    source: query.source,
    format: report.format,
    time_zone: report.timeZone,
    rows_read: report.rowsRead,
    imported: report.imported,
    already_held: report.alreadyHeld,
    skipped: { malformed, out_of_order: outOfOrder, duplicate },
    rejects: report.rejects,
    first: iso(report.firstMs),
    last: iso(report.lastMs),
  };
}

/** Imports the file at `file` as the query says; what cannot be read at all is 422 `invalid_import`. */
async function importUpload(store: CandleStore, file: string, query: z.output<typeof StoredCandleImportQuerySchema>): Promise<ImportReport> {
  try {
    return await importFile(store, {
      file,
      symbol: query.symbol,
      source: query.source,
      timeframe: query.timeframe,
      format: query.format,
      timeZone: query.tz,
    });
  } catch (err) {
    if (err instanceof ImportError) throw invalidImport(`${err.message}; nothing was imported`);
    // zlib's codes: a .gz cut short or corrupt, which the transaction leaves unapplied.
    if (typeof (err as { code?: unknown }).code === 'string' && (err as { code: string }).code.startsWith('Z_')) {
      throw invalidImport(`the file does not gunzip (${(err as Error).message}); nothing was imported`);
    }
    throw err;
  }
}

/** POST /v1/market-data/stored-candles/imports: a candle file uploaded into the store, as `npm run data -- import` reads one. */
export function registerCandleImportRoutes(app: App, store: CandleStore | undefined, options: CandleImportOptions): void {
  void app.register(async (scope: App) => {
    // The body is the file as it is: handed over unread, to be streamed to disk.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser([...CANDLE_FILE_MEDIA_TYPES], (_request, payload, done) => done(null, payload));

    scope.post(
      '/market-data/stored-candles/imports',
      {
        schema: {
          tags: ['market data'],
          summary: 'Imports a candle file into the store (mt5, mt4, histdata, dukascopy or csv, gzipped or not): the upload of `npm run data -- import`',
          description:
            'The body is the file as it is (gzip detected by its bytes), up to MAX_IMPORT_BYTES. Its format is detected from its first line unless ' +
            '`format` is given; every time is stored in UTC. A malformed row, one out of time order or one repeating the time before it is skipped ' +
            'and reported by line number; candles the store already holds are counted, not added (a re-import adds nothing). One transaction: the ' +
            'file is committed whole, or not at all. 422 `invalid_import` when it cannot be read (no known format, a header that does not read, a ' +
            '`tz` that does not apply, a .gz cut short) or holds no valid row, the first rejects in `details`; 413 `payload_too_large` beyond ' +
            'MAX_IMPORT_BYTES. The whole body must arrive within the request timeout (30 s); a larger file on a slow link: `npm run data -- import`.',
          consumes: [...CANDLE_FILE_MEDIA_TYPES],
          querystring: StoredCandleImportQuerySchema,
          body: z.unknown().meta({ type: 'string', format: 'binary', description: 'The candle file, its bytes as they are (gzipped or not)' }),
          response: {
            200: StoredCandleImportSchema,
            400: ErrorEnvelopeSchema.describe('The upload ended before the whole file arrived (`bad_request`); nothing was imported'),
            413: ErrorEnvelopeSchema.describe('The file is larger than MAX_IMPORT_BYTES (`payload_too_large`); nothing was imported'),
            415: ErrorEnvelopeSchema.describe(`The body is not sent as ${CANDLE_FILE_MEDIA_TYPES.join(', ')} (\`unsupported_media_type\`)`),
            422: ErrorEnvelopeSchema.describe(
              'A malformed query (`validation_error`); a file that cannot be read or holds no valid row, the first rejects by line in `details` (`invalid_import`)',
            ),
            503: ErrorEnvelopeSchema.describe('The service runs without a candle store (`store_unavailable`)'),
          },
        },
      },
      async (request) => {
        if (store === undefined) throw errors.create('store_unavailable', 'this service runs without a candle store');
        const body = request.body as Readable | undefined;
        if (body === undefined) throw invalidImport(`send the file as the body (${CANDLE_FILE_MEDIA_TYPES.join(', ')})`);
        if (Number(request.headers['content-length']) > options.maxBytes) throw tooLarge(options.maxBytes);
        await fs.promises.mkdir(options.tempDir, { recursive: true });
        const dir = await fs.promises.mkdtemp(path.join(options.tempDir, 'import-'));
        try {
          const file = path.join(dir, 'upload');
          await receive(body, file, options.maxBytes);
          const report = await importUpload(store, file, request.query);
          if (report.imported + report.alreadyHeld === 0) {
            throw invalidImport(
              `the file holds no valid row (${report.rowsRead} rows read, every one skipped); nothing was imported`,
              report.rejects.map((r) => ({ path: `line ${r.line}`, message: r.reason })),
            );
          }
          return answerOf(request.query, report);
        } finally {
          await fs.promises.rm(dir, { recursive: true, force: true });
        }
      },
    );
  });
}
