// The service's one logger: single-line entries on stdout/stderr. Values that
// may come from users are escaped, so a crafted name cannot forge log lines.

export interface Logger {
  info(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** JSON string escaping removes newlines and control characters from any value. */
const render = (fields?: Record<string, unknown>) =>
  fields ? ` ${Object.entries(fields).map(([k, v]) => `${k}=${JSON.stringify(v ?? null)}`).join(' ')}` : '';

export function createLogger(options: { quiet?: boolean } = {}): Logger {
  return {
    info: (message, fields) => {
      if (!options.quiet) process.stdout.write(`${message}${render(fields)}\n`);
    },
    error: (message, fields) => {
      process.stderr.write(`${message}${render(fields)}\n`);
    },
  };
}

/** For tests: keeps entries in memory. */
export function createMemoryLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    info: (m, f) => void lines.push(`${m}${render(f)}`),
    error: (m, f) => void lines.push(`${m}${render(f)}`),
  };
}
