import { Writable } from 'node:stream';

/** A log destination that keeps every line, so a test can read what the service logged. */
export class LogCapture extends Writable {
  readonly lines: string[] = [];
  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: () => void): void {
    for (const line of chunk.toString('utf8').split('\n')) if (line.length > 0) this.lines.push(line);
    callback();
  }
  text(): string {
    return this.lines.join('\n');
  }
}
