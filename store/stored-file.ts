// Reading one stored file back: the names of log entry files and outlines, and a read that
// refuses a file larger than the store ever writes before it is loaded (a
// string that long could not even be held) and says plainly what is wrong.
import type { FsFacade } from './durable-file.ts';
import { MAX_FILE_BYTES } from './keys.ts';

/** `v<N>.json`: one entry of a log. */
export const ENTRY_NAME = /^v([1-9][0-9]{0,15})\.json$/;
export const entryName = (version: number) => `v${version}.json`;
/** A log's outlines, beside its entries: hidden (not an entry file), and never a name an entry file could have. */
export const OUTLINES_NAME = '.outlines';

/** Throws, saying why, when `file` is missing or larger than the store ever writes. */
async function checkSize(fs: FsFacade, file: string): Promise<void> {
  const { size } = await fs.stat(file, { bigint: true }).catch((error: NodeJS.ErrnoException) => {
    throw new Error(error.code === 'ENOENT' ? 'is missing' : `cannot be read (${error.code ?? error.message})`);
  });
  if (size > BigInt(MAX_FILE_BYTES)) throw new Error(`is ${size} bytes, more than the ${MAX_FILE_BYTES} the service reads`);
}

const unreadable = (error: NodeJS.ErrnoException): never => {
  throw new Error(`cannot be read (${error.code ?? error.message})`);
};

/** A stored file's text, refusing one larger than the store ever writes (a string that long cannot even be held). */
export async function readBounded(fs: FsFacade, file: string): Promise<string> {
  await checkSize(fs, file);
  return fs.readFile(file, 'utf8').catch(unreadable);
}

/** A stored file's bytes, undecoded, with readBounded's refusals. */
export async function readBoundedBytes(fs: FsFacade, file: string): Promise<Uint8Array> {
  await checkSize(fs, file);
  return fs.readFile(file).catch(unreadable);
}

/** Parsed stored text; an error saying so when it is not JSON. */
export function parseStored<T>(text: string): T {
  try {
    return JSON.parse(text) as T;
  } catch (error) {
    throw new Error(`is not valid JSON (${(error as Error).message})`);
  }
}
