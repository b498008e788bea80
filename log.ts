// The service's one logger: single-line entries, `info` on stdout, errors on
// stderr, through pino's asynchronous destinations, the lines of one turn of
// the event loop handed over together (flushed at exit); as JSON lines made by pino
// (`time`, `level`, `msg` and the fields) or as text (time, level, message,
// then key=value with every value JSON-quoted). Values that may come from
// users are escaped in both, so a crafted name cannot forge log lines.
import { randomUUID } from 'node:crypto';
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
  /** Every line here instead of stdout/stderr, at once (tests). */
  sink?: LineSink;
  /** Every line appended to this file instead of stdout/stderr, as they would be written (benchmarks). */
  file?: string;
}

/** JSON string escaping removes newlines and control characters from any value (a finite number is written as JSON would). */
const render = (fields?: Record<string, unknown>) => {
  let line = '';
  for (const key in fields) {
    const value = fields[key] ?? null;
    line += ` ${key}=${typeof value === 'number' && Number.isFinite(value) ? String(value) : JSON.stringify(value)}`;
  }
  return line;
};
/** A message is the code's own text, but may quote a setting or a name: no control character reaches the line. */
const plain = (message: string) => message.replace(/[\x00-\x1f\x7f]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);

const LEVELS: Record<LogLevel, number> = { debug: 20, info: 30, warn: 40, error: 50, silent: Number.POSITIVE_INFINITY };

let lastMs = 0;
let lastIso = '';
/** The time as ISO 8601, made once per millisecond: under load many lines share one (toISOString costs a microsecond or two). */
function isoNow(): string {
  const now = Date.now();
  if (now !== lastMs) {
    lastMs = now;
    lastIso = new Date(now).toISOString();
  }
  return lastIso;
}

/**
 * JSON lines through pino, its destination told each entry's level (pino's
 * metadata streams) so errors go to their own stream.
 */
function jsonLogger(level: LogLevel, out: LineSink, err: LineSink): Logger {
  const destination = {
    [pino.symbols.needsMetadataGsym]: true,
    lastLevel: 0,
    write(line: string) {
      (this.lastLevel >= LEVELS.error ? err : out).write(line);
    },
  };
  const logger = pino({
    level,
    base: undefined,
    timestamp: () => `,"time":"${isoNow()}"`,
    formatters: { level: (label) => ({ level: label }) },
  }, destination);
  return {
    info: (message, fields) => (fields ? logger.info(fields, message) : logger.info(message)),
    error: (message, fields) => (fields ? logger.error(fields, message) : logger.error(message)),
  };
}

/**
 * Text lines, written straight to pino's destinations: made from the message
 * and fields at once rather than from a JSON line pino would make first (half
 * the cost of a request line).
 */
function textLogger(level: LogLevel, out: LineSink, err: LineSink): Logger {
  const floor = LEVELS[level];
  return {
    info: (message, fields) => {
      if (floor <= LEVELS.info) out.write(`${isoNow()} INFO ${plain(message)}${render(fields)}\n`);
    },
    error: (message, fields) => {
      if (floor <= LEVELS.error) err.write(`${isoNow()} ERROR ${plain(message)}${render(fields)}\n`);
    },
  };
}

/** pino's asynchronous file destination, as it would write stdout and stderr. */
type Destination = ReturnType<typeof pino.destination>;

/** Each gathering destination's last flush, run at exit in case the turn's flush has not run. */
const gathering = new Set<() => void>();
let exitHook = false;

/**
 * Lines gathered in one string and handed to `dest` once per turn of the
 * event loop: a request line then costs a string append. Written one by one,
 * each line cost pino's destination a byte count of everything still waiting
 * for the disk (sonic-boom measures its pending chunk again on every write),
 * more than all the rest of a GET answered from memory under load. At exit
 * (a graceful stop ends with process.exit) what is gathered is written and
 * the destination flushed synchronously, whichever of its exit hooks ran first.
 */
function gathered(dest: Destination): LineSink {
  let lines = '';
  let closed = false;
  dest.once('close', () => {
    closed = true;
  });
  const flush = () => {
    if (lines === '' || closed) return;
    const all = lines;
    lines = '';
    dest.write(all);
  };
  gathering.add(() => {
    if (lines === '' || closed) return;
    flush();
    try {
      dest.flushSync();
    } catch {
      // A file destination not open yet this early: pino's own exit hook loses its lines alike.
    }
  });
  if (!exitHook) {
    exitHook = true;
    process.on('exit', () => {
      for (const atExit of gathering) atExit();
    });
  }
  return {
    write(line) {
      if (lines === '') setImmediate(flush);
      lines += line;
    },
  };
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const out = options.sink ?? gathered(pino.destination({ dest: options.file ?? 1, sync: false }));
  const err = options.sink ?? gathered(pino.destination({ dest: options.file ?? 2, sync: false }));
  const level = options.quiet ? 'error' : options.level ?? 'info';
  return options.format === 'json' ? jsonLogger(level, out, err) : textLogger(level, out, err);
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

/** What the request log learns of a request while it is answered: who called once the scope guard knows, its route, its trace ID once asked for. */
export interface RequestNote {
  /** Made when first asked for (traceIdOf): by the request line, or by a 500's answer and its error line, which then share it. */
  traceId?: string;
  user?: string;
  /** The route template its registered route answers under (http/register.ts): the request's metrics label without a second router match. */
  route?: string;
}

// A property of the request rather than a WeakMap entry: a WeakMap insertion
// per request cost about a microsecond (its ephemeron table and the garbage
// collector's work on it), a tenth of a GET answered from memory.
const NOTE = Symbol('request note');
type Noted = { [NOTE]?: RequestNote };

/** Gives `req` an empty note (http/observe.ts, for each request it answers). */
export function noteRequest(req: Request): RequestNote {
  const note: RequestNote = {};
  (req as Noted)[NOTE] = note;
  return note;
}

/** The note of `req`, when http/observe.ts gave it one (the scope guard, the registrar and the error handler add to it). */
export const requestNote = (req: Request): RequestNote | undefined => (req as Noted)[NOTE];

/** The trace ID of `req`: made the first time it is asked for, the same after; a fresh one for a request without a note. */
export function traceIdOf(req: Request): string {
  const note = requestNote(req);
  if (!note) return randomUUID();
  note.traceId ??= randomUUID();
  return note.traceId;
}
