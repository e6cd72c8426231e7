import fs from 'node:fs';
import type { Readable } from 'node:stream';
import zlib from 'node:zlib';

/** Lines of a file, a chunk at a time: `firstLine` is the 1-based number of `lines[0]`. */
export interface LineBatch {
  firstLine: number;
  lines: string[];
}

const CHUNK_BYTES = 1 << 20;
const GZIP_MAGIC = [0x1f, 0x8b];

/** Whether the file starts with gzip's magic bytes (whatever its name). */
export async function isGzip(file: string): Promise<boolean> {
  const handle = await fs.promises.open(file, 'r');
  try {
    const head = Buffer.alloc(2);
    const { bytesRead } = await handle.read(head, 0, 2, 0);
    return bytesRead === 2 && head[0] === GZIP_MAGIC[0] && head[1] === GZIP_MAGIC[1];
  } finally {
    await handle.close();
  }
}

/**
 * The lines of a text file, gunzipped on the way when it is gzip (node:zlib, streaming): a
 * megabyte at a time, never the whole file in memory. Line ends are LF or CRLF (the CR is
 * dropped), a UTF-8 byte-order mark is dropped; a failure to read or gunzip (a truncated .gz)
 * is thrown by the iteration.
 */
export async function* readLines(file: string): AsyncGenerator<LineBatch> {
  // Opened here first, so a missing file throws before a stream exists to fail unheard.
  const isGzipped = await isGzip(file);
  const raw = fs.createReadStream(file, { highWaterMark: CHUNK_BYTES });
  let stream: Readable = raw;
  if (isGzipped) {
    const gunzip = zlib.createGunzip({ chunkSize: CHUNK_BYTES });
    raw.on('error', (err) => gunzip.destroy(err));
    stream = raw.pipe(gunzip);
  }
  stream.setEncoding('utf8');
  let rest = '';
  let lineNumber = 1;
  let isFirst = true;
  try {
    for await (const chunk of stream as AsyncIterable<string>) {
      let text = rest + chunk;
      if (isFirst) {
        if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
        isFirst = false;
      }
      const lines = text.split(text.includes('\r') ? /\r?\n/ : '\n');
      rest = lines.pop() as string;
      yield { firstLine: lineNumber, lines };
      lineNumber += lines.length;
    }
  } finally {
    raw.destroy();
    stream.destroy();
  }
  if (rest.endsWith('\r')) rest = rest.slice(0, -1);
  if (rest.length > 0) yield { firstLine: lineNumber, lines: [rest] };
}
