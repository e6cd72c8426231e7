import fs from 'node:fs';

/** CPU time (user + system) of a process so far (not its children), in seconds; NaN where /proc cannot tell. */
export function cpuSeconds(pid: number | undefined): number {
  try {
    // Fields after the command's closing parenthesis; utime and stime are the 14th and 15th of the line, in clock ticks (100 a second on Linux).
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}
