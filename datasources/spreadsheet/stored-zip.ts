// A zip stream of stored (uncompressed) parts, written from parts the zip
// guard already let through (zip-guard.ts): for each, a local header with its
// exact size and CRC, then its bytes, and at the end an empty central
// directory. This is how the xlsx reader hands exceljs's public streaming
// reader only those parts, in the order it reads them best and under the
// names it expects (read-xlsx.ts). Sizes in the headers, never a data
// descriptor: the reader takes exactly that many bytes, so no byte of a part
// can be read as a header of its own.
// Each chunk ends on a whole UTF-8 character (the bytes unchanged, only cut
// elsewhere): exceljs decodes every chunk on its own, which would split a
// character cut in two.
import { Readable } from 'node:stream';

export interface StoredPart {
  /** Its name in the zip: ours, plain ASCII. */
  name: string;
  /** Its exact length, which its source has been checked to keep to. */
  size: number;
  crc32: number;
  open(): Promise<AsyncIterable<Buffer> | Iterable<Buffer>>;
}

const LOCAL_HEADER = 0x04034b50;
const END_OF_DIRECTORY = 0x06054b50;
/** General purpose flags: names in UTF-8; bit 3 (sizes after the data) is never set. */
const UTF8_NAMES = 0x0800;
/** 1980-01-01, the earliest date a zip can say. */
const DOS_DATE = 0x21;

function localHeader(part: StoredPart): Buffer {
  const name = Buffer.from(part.name, 'utf8');
  const header = Buffer.alloc(30);
  header.writeUInt32LE(LOCAL_HEADER, 0);
  header.writeUInt16LE(10, 4); // version needed to extract: 1.0, stored data
  header.writeUInt16LE(UTF8_NAMES, 6);
  header.writeUInt16LE(0, 8); // method: stored
  header.writeUInt16LE(0, 10);
  header.writeUInt16LE(DOS_DATE, 12);
  header.writeUInt32LE(part.crc32 >>> 0, 14);
  header.writeUInt32LE(part.size, 18);
  header.writeUInt32LE(part.size, 22);
  header.writeUInt16LE(name.length, 26);
  header.writeUInt16LE(0, 28);
  return Buffer.concat([header, name]);
}

function endOfDirectory(offset: number): Buffer {
  const end = Buffer.alloc(22);
  end.writeUInt32LE(END_OF_DIRECTORY, 0);
  end.writeUInt32LE(offset, 16); // where the (empty) central directory starts
  return end;
}

/** How many bytes at the end of `bytes` start a UTF-8 character that they do not finish (0 to 3). */
export function unfinishedTail(bytes: Uint8Array): number {
  for (let back = 1; back <= Math.min(3, bytes.length); back++) {
    const byte = bytes[bytes.length - back];
    if ((byte & 0xc0) === 0x80) continue; // a continuation byte: its lead is further back
    const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return length > back ? back : 0;
  }
  return 0;
}

async function* storedZipChunks(parts: readonly StoredPart[]): AsyncGenerator<Buffer> {
  let offset = 0;
  for (const part of parts) {
    const header = localHeader(part);
    yield header;
    // The last bytes read are held back until more come or the part ends as its source checked it: the
    // reader, given all `size` bytes, would take the part as whole before its source could say it is longer.
    let written = 0;
    let held: Buffer = Buffer.alloc(0);
    for await (const chunk of await part.open()) {
      if (written + held.length + chunk.length > part.size) throw new Error(`part ${part.name} holds more than the ${part.size} bytes announced`);
      const cut = held.length - unfinishedTail(held);
      if (cut > 0) {
        yield held.subarray(0, cut);
        written += cut;
      }
      held = cut === held.length ? chunk : Buffer.concat([held.subarray(cut), chunk]);
    }
    if (written + held.length !== part.size) throw new Error(`part ${part.name} holds ${written + held.length} bytes, not the ${part.size} announced`);
    if (held.length) yield held;
    written += held.length;
    offset += header.length + written;
  }
  yield endOfDirectory(offset);
}

/** The stream of a zip holding `parts`, stored, in this order. */
export function storedZip(parts: readonly StoredPart[]): Readable {
  return Readable.from(storedZipChunks(parts), { objectMode: true });
}
