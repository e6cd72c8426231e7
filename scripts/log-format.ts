const LEVELS: Record<string, string> = {
  trace: 'TRACE',
  debug: 'DEBUG',
  info: 'INFO ',
  warn: 'WARN ',
  error: 'ERROR',
  fatal: 'FATAL',
};

const HIDDEN = new Set(['level', 'time', 'pid', 'hostname', 'name', 'msg', 'v']);

/**
 * One pino JSON line as a short human line: `12:00:01 INFO  message key=value`.
 * Anything that is not a pino line passes through unchanged.
 */
export function formatLogLine(line: string): string {
  if (!line.startsWith('{')) return line;
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  const time = typeof entry.time === 'string' ? entry.time.slice(11, 19) : '';
  const levelName = typeof entry.level === 'string' ? entry.level : '';
  const level = LEVELS[levelName] ?? levelName.toUpperCase();
  const extras = Object.entries(entry)
    .filter(([k]) => !HIDDEN.has(k))
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(' ');
  const message = typeof entry.msg === 'string' ? entry.msg : '';
  return `${time} ${level} ${message}${extras ? `  ${extras}` : ''}`;
}
