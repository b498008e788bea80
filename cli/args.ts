// The command line of the cli/ tools, read by node:util parseArgs: each tool
// declares its options and how many positional words it takes. `--help` (or
// `-h`) is its usage on stdout and exit code 0; an unknown option, an option
// without its value or a wrong number of words is one line saying what is
// wrong, then the usage, on stderr, and exit code 2 (a usage error, as
// shells and CI tell apart from a failed run, 1), or the tool's own usage
// code where 2 means something else to it.
import { parseArgs, type ParseArgsConfig } from 'node:util';

type Options = NonNullable<ParseArgsConfig['options']>;

export interface CommandLineSpec {
  /** The help text: the usage line(s) first. */
  usage: string;
  options?: Options;
  /** Positional words taken: least, most. */
  words: readonly [number, number];
  /** The exit code of a usage error (default 2). */
  usageCode?: number;
}

export type Parsed = {
  values: { [name: string]: string | boolean | (string | boolean)[] | undefined };
  positionals: string[];
};

/** The parsed command line, or the text to print and the exit code when the tool should not run. */
export type CommandLine = ({ run: true } & Parsed) | { run: false; code: number; text: string };

export function commandLine(argv: readonly string[], spec: CommandLineSpec): CommandLine {
  let parsed: Parsed;
  const usageCode = spec.usageCode ?? 2;
  try {
    parsed = parseArgs({
      args: [...argv], allowPositionals: true, strict: true,
      options: { ...spec.options, help: { type: 'boolean', short: 'h' } },
    });
  } catch (e) {
    return { run: false, code: usageCode, text: `${problem(e)}\n${spec.usage}` };
  }
  if (parsed.values.help === true) return { run: false, code: 0, text: spec.usage };
  const [least, most] = spec.words;
  const n = parsed.positionals.length;
  if (n < least || n > most) {
    const text = n < least ? 'missing arguments' : `unexpected argument ${JSON.stringify(parsed.positionals[most])}`;
    return { run: false, code: usageCode, text: `${text}\n${spec.usage}` };
  }
  return { run: true, ...parsed };
}

/** parseArgs's error in a line: its messages add advice about `--` that fits no tool here. */
function problem(e: unknown): string {
  const { code, message } = e as { code?: string; message?: string };
  const option = /'(-[^' ]+)/.exec(message ?? '')?.[1] ?? 'an option';
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return `unknown option ${option}`;
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') return `${option} needs a value`;
  return String(message ?? e);
}

/** Prints what commandLine said instead of running; the exit code. */
export function refuse(line: Extract<CommandLine, { run: false }>, io: { out: (l: string) => void; err: (l: string) => void }): number {
  (line.code === 0 ? io.out : io.err)(line.text);
  return line.code;
}
