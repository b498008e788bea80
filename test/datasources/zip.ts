// A minimal zip writer for hostile-file tests: it writes exactly the entries,
// sizes and methods it is given, including sizes that lie, which no zip
// library would produce. Also reads an existing zip's parts back (yauzl).
import { deflateRawSync, constants } from 'node:zlib';
import yauzl from 'yauzl';

export interface ZipPart {
  name: string;
  /** Bytes as stored (already deflated when method is 8). */
  stored: Buffer;
  method: 0 | 8;
  /** Size the directory announces. */
  uncompressedSize: number;
  crc?: number;
  /** Written as a local entry but left out of the central directory (readers that walk the file in order still find it). */
  hidden?: boolean;
}

export function buildZip(parts: ZipPart[]): Buffer {
  const chunks: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const part of parts) {
    const name = Buffer.from(part.name, 'utf8');
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6);
    local.writeUInt16LE(part.method, 8);
    local.writeUInt16LE(0, 10);
    local.writeUInt16LE(0x21, 12);
    local.writeUInt32LE(part.crc ?? 0, 14);
    local.writeUInt32LE(part.stored.length, 18);
    local.writeUInt32LE(part.uncompressedSize, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    const dir = Buffer.alloc(46);
    dir.writeUInt32LE(0x02014b50, 0);
    dir.writeUInt16LE(20, 4);
    dir.writeUInt16LE(20, 6);
    local.copy(dir, 8, 6, 30); // flags through extra-field length, as in the local header
    dir.writeUInt16LE(0, 32);
    dir.writeUInt16LE(0, 34);
    dir.writeUInt16LE(0, 36);
    dir.writeUInt32LE(0, 38);
    dir.writeUInt32LE(offset, 42);
    if (!part.hidden) central.push(dir, name);
    chunks.push(local, name, part.stored);
    offset += local.length + name.length + part.stored.length;
  }
  const cd = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  const listed = parts.filter((p) => !p.hidden).length;
  end.writeUInt16LE(listed, 8);
  end.writeUInt16LE(listed, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...chunks, cd, end]);
}

/** A deflated part holding `data` with honest sizes. */
export const deflatedPart = (name: string, data: Buffer | string): ZipPart => {
  const raw = Buffer.from(data);
  return { name, stored: deflateRawSync(raw), method: 8, uncompressedSize: raw.length };
};

/**
 * Raw deflate data that inflates to prefix + `repeats` × `block` + suffix,
 * built from independently compressed segments (each ends on a full flush,
 * so they concatenate into one valid stream) without ever holding the
 * inflated text in memory.
 */
export function deflateRepeated(prefix: string, block: Buffer, repeats: number, suffix: string): { stored: Buffer; size: number } {
  const flush = { finishFlush: constants.Z_FULL_FLUSH, level: 9 };
  const head = deflateRawSync(Buffer.from(prefix), flush);
  const body = deflateRawSync(block, flush);
  const tail = deflateRawSync(Buffer.from(suffix));
  const stored = Buffer.concat([head, ...Array.from({ length: repeats }, () => body), tail]);
  return { stored, size: Buffer.byteLength(prefix) + block.length * repeats + Buffer.byteLength(suffix) };
}

/** The parts of a zip (for instance an exceljs workbook), inflated. */
export async function readParts(zip: Buffer): Promise<Map<string, Buffer>> {
  const file = await yauzl.fromBufferPromise(zip, { lazyEntries: true });
  const parts = new Map<string, Buffer>();
  for await (const entry of file.eachEntry()) {
    const stream = await file.openReadStreamPromise(entry);
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    parts.set(entry.fileName, Buffer.concat(chunks));
  }
  return parts;
}
