// Reading a large sheet is long work on the one thread that also answers
// every request: a 200,000-row CSV is a second or more of parsing and
// checking. So the loops over a file's bytes and rows work in slices and hand
// the event loop back between slices (setImmediate: timers, I/O and other
// requests run first), and other requests keep answering while a sheet is
// read. The slice sizes keep a slice to a few milliseconds on a slow machine;
// a hand-back costs microseconds, so a small file pays nothing noticeable.
// (A worker thread was measured and not taken: copying the parsed rows back
// blocks the main thread for longer than the slices add up to.)

/** Resolves on a later turn of the event loop, after the I/O and timers that are due. */
export const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Bytes of a file decoded, checked or parsed per slice. */
export const BYTES_PER_TURN = 64 * 1024;

/** Rows checked (edge tabs, lookup tab) or records built per slice. */
export const ROWS_PER_TURN = 4096;

/**
 * Runs `slice(from, to)` over [start, end) in pieces of `size`, with a turn of
 * the event loop between pieces (none before the first).
 */
export async function inTurns(start: number, end: number, size: number, slice: (from: number, to: number) => void): Promise<void> {
  for (let from = start; from < end; from += size) {
    if (from > start) await nextTurn();
    slice(from, Math.min(end, from + size));
  }
}
