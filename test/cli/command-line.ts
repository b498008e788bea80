// The command-line cases every cli/ tool built on cli/args.ts answers the
// same way: help on stdout with 0, and each usage
// error as one line naming the problem, then the usage, on stderr with 2. A
// tool's test file calls this with its entry point and usage line.
import assert from 'node:assert/strict';
import { it } from 'node:test';

type Io = { out: (line: string) => void; err: (line: string) => void };

export function itAnswersItsCommandLine(cli: (argv: string[], io: Io) => Promise<number>, usage: RegExp) {
  const cases: Array<[string, string[], number, RegExp]> = [
    ['--help', ['--help'], 0, usage],
    ['-h', ['-h'], 0, usage],
    ['an unknown option', ['--force'], 2, /^unknown option --force\nusage: /],
    ['an option with a value it does not take', ['--out=x.png'], 2, /^unknown option --out\nusage: /],
    ['a second word', ['one', 'two'], 2, /^unexpected argument "two"\nusage: /],
  ];
  for (const [what, argv, code, text] of cases) {
    it(`${what}: exit ${code}, doing nothing else`, async () => {
      const out: string[] = [];
      const err: string[] = [];
      assert.equal(await cli(argv, { out: (l) => out.push(l), err: (l) => err.push(l) }), code);
      assert.match((code === 0 ? out : err).join('\n'), text);
      assert.deepEqual(code === 0 ? err : out, []);
    });
  }
}
