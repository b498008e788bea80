// The service's one logger, through pino: single-line entries, `info` and
// below on stdout, errors on stderr, as text (time, level, message, then
// key=value with every value JSON-quoted) or as JSON lines (`time`, `level`,
// `msg` and the fields). Values that may come from users are escaped in both,
// so a crafted name cannot forge log lines.
import pino from 'pino';

export interface Logger {
  info(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

export type LogFormat = 'text' | 'json';
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';

/** Where lines go when not to stdout/stderr (tests): each call gets one whole line with its newline. */
export interface LineSink {
  write(line: string): void;
}

export interface LoggerOptions {
  format?: LogFormat;
  level?: LogLevel;
  /** Leave out everything below errors (test fixtures). */
  quiet?: boolean;
  /** Every line here instead of stdout/stderr. */
  sink?: LineSink;
}

/** JSON string escaping removes newlines and control characters from any value. */
const render = (fields?: Record<string, unknown>) => {
  let line = '';
  for (const key in fields) line += ` ${key}=${JSON.stringify(fields[key] ?? null)}`;
  return line;
};
/** A message is the code's own text, but may quote a setting or a name: no control character reaches the line. */
const plain = (message: string) => message.replace(/[\x00-\x1f\x7f]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);

const LEVEL_NAMES: Record<number, string> = { 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
const ERROR_LEVEL = 50;

/**
 * A pino destination that asks for each entry's level and fields beside the
 * JSON line (pino's metadata streams), so a text line is written from them
 * without parsing the JSON again, and errors go to their own stream.
 */
function destination(format: LogFormat, out: LineSink, err: LineSink) {
  return {
    [pino.symbols.needsMetadataGsym]: true,
    lastLevel: 0,
    lastMsg: '' as string | undefined,
    lastObj: undefined as Record<string, unknown> | undefined,
    write(line: string) {
      const target = this.lastLevel >= ERROR_LEVEL ? err : out;
      if (format === 'json') return target.write(line);
      const { lastObj, lastMsg } = this;
      let fields = '';
      for (const key in lastObj) if (key !== 'msg' && key !== 'level' && key !== 'time') fields += ` ${key}=${JSON.stringify(lastObj[key] ?? null)}`;
      target.write(`${new Date().toISOString()} ${LEVEL_NAMES[this.lastLevel] ?? this.lastLevel} ${plain(lastMsg ?? '')}${fields}\n`);
    },
  };
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const format = options.format ?? 'text';
  // Asynchronous writes (one in flight, the rest gathered behind it), flushed when the process exits.
  const out = options.sink ?? pino.destination({ dest: 1, sync: false });
  const err = options.sink ?? pino.destination({ dest: 2, sync: false });
  const logger = pino({
    level: options.quiet ? 'error' : options.level ?? 'info',
    base: undefined,
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
  }, destination(format, out, err));
  return {
    info: (message, fields) => (fields ? logger.info(fields, message) : logger.info(message)),
    error: (message, fields) => (fields ? logger.error(fields, message) : logger.error(message)),
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

/** What the request log learns of a request while it is answered: its trace ID, and who called once the scope guard knows. */
export interface RequestNote {
  traceId: string;
  user?: string;
}

/** Notes by request (routes/observe.ts gives each request one; the scope guard and the error handler read and add to it). */
export const requestNotes = new WeakMap<Request, RequestNote>();
