const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
const SKIP = new Set(['level', 'time', 'pid', 'hostname', 'msg', 'v']);

/**
 * The server's log for a person at a terminal: one line per entry, `HH:MM:SS LEVEL message
 * key=value ...`, a request as `GET /path 200 3.1ms`, an error with its stack. Where the output is
 * not a terminal (a file, a collector), the log stays JSON, one object per line.
 */
export function prettyLogStream(out: { write(text: string): unknown }): { write(line: string): void } {
  return {
    write(line: string) {
      let entry: Record<string, unknown>;
      try {
        entry = JSON.parse(line) as Record<string, unknown>;
      } catch {
        out.write(line);
        return;
      }
      out.write(`${formatEntry(entry)}\n`);
    },
  };
}

export function formatEntry(entry: Record<string, unknown>): string {
  const time = typeof entry.time === 'number' ? new Date(entry.time).toISOString().slice(11, 19) : '--:--:--';
  const level = (LEVELS[Number(entry.level)] ?? String(entry.level)).padEnd(5);
  const parts = [time, level, String(entry.msg ?? '')];
  const req = entry.req as { method?: string; url?: string } | undefined;
  const res = entry.res as { statusCode?: number } | undefined;
  if (req?.method) parts.push(`${req.method} ${req.url ?? ''}`);
  if (res?.statusCode) parts.push(String(res.statusCode));
  if (typeof entry.responseTime === 'number') parts.push(`${entry.responseTime.toFixed(1)}ms`);
  for (const [key, value] of Object.entries(entry)) {
    if (SKIP.has(key) || key === 'req' || key === 'res' || key === 'responseTime' || key === 'err') continue;
    parts.push(`${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`);
  }
  const err = entry.err as { message?: string; stack?: string } | undefined;
  return err ? `${parts.join(' ')}\n  ${err.stack ?? err.message ?? ''}` : parts.join(' ');
}
