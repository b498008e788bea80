// Reading HTTP/1.1 responses off a raw socket, for the benchmarks' own load
// generators: where the response at the start of a buffer ends, and its status.
const HEAD_END = Buffer.from('\r\n\r\n');

/** Where the response at the start of `buf` ends and its status, or undefined while it is incomplete. */
export function responseEnd(buf: Buffer): { end: number; status: number } | undefined {
  const headEnd = buf.indexOf(HEAD_END);
  if (headEnd < 0) return undefined;
  const head = buf.toString('latin1', 0, headEnd);
  const status = Number(head.slice(9, 12));
  const length = /\r\ncontent-length: *(\d+)/i.exec(head);
  if (length) {
    const end = headEnd + 4 + Number(length[1]);
    return end <= buf.length ? { end, status } : undefined;
  }
  if (!/\r\ntransfer-encoding: *chunked/i.test(head)) throw new Error(`response without a length: ${head.split('\r\n')[0]}`);
  let at = headEnd + 4;
  for (;;) { // chunk: hex size CRLF data CRLF; the last has size 0 (no trailers expected)
    const lineEnd = buf.indexOf('\r\n', at);
    if (lineEnd < 0) return undefined;
    const size = parseInt(buf.toString('latin1', at, lineEnd), 16);
    at = lineEnd + 2 + size + 2;
    if (at > buf.length) return undefined;
    if (size === 0) return { end: at, status };
  }
}
