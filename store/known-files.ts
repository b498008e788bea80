// Files changed on disk under the running service (a checkout, a merge, an
// editor): the identity of each document's file as the service last read or
// wrote it, and the rule that a write or removal replaces only that file. The
// check itself runs on the writer thread just before the rename or unlink
// (write-thread.mjs); this module decides what a refusal means.
import { ServiceError } from '../errors.ts';
import { canonicalJson } from './canonical-json.ts';
import { DurableFile, type FsFacade } from './durable-file.ts';
import type { Json } from './types.ts';
import { CHANGED } from './write-thread.mjs';

export class KnownFiles {
  /** write-thread.mjs identityOf of each document's file, by `<collection>/<key>`; '' or absent: no file. */
  private readonly identities = new Map<string, string>();

  constructor(private readonly fs: FsFacade, private readonly log: (message: string) => void) {}

  /** Notes the identity of the file of `what` (`<collection>/<key>`) as just read or written. */
  set(what: string, identity: string): void {
    this.identities.set(what, identity);
  }

  delete(what: string): void {
    this.identities.delete(what);
  }

  /**
   * Runs `op`, a write or removal of the file of `what` that the writer
   * refuses (ECHANGED) unless the file has the identity `op` is given; its
   * result. When the file changed on disk yet holds `doc`, the document
   * memory holds (it was touched, or checked out with the same content), `op`
   * runs once more with the file's new identity; when it holds anything else,
   * nothing is written: 409 changed_on_disk. Other failures pass through.
   * `goneIsFine`: a file deleted on disk is what a removal wants anyway.
   */
  async guard<R>(what: string, file: string, doc: Json | undefined, op: (expect: string) => Promise<R>, goneIsFine = false): Promise<R> {
    const attempt = async (expect: string) => {
      try {
        return { result: await op(expect) };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === CHANGED) return undefined;
        throw error;
      }
    };
    const first = await attempt(this.identities.get(what) ?? '');
    if (first) return first.result;
    const now = await identityIfHolding(this.fs, file, doc, goneIsFine);
    const second = now === undefined ? undefined : await attempt(now);
    if (second) return second.result;
    this.log(`did not save ${what}: its file was changed on disk by something other than the service; restart the service to load it`);
    throw new ServiceError('changed_on_disk', `the data file of ${what} was changed on disk after the service read it ` +
      '(by a checkout, a merge or an editor), so this request was not saved and the change is kept; ' +
      'restart the service to serve the data folder as it is now');
  }
}

/**
 * The identity of `file` when it holds `doc` (as JSON, in any layout), or is
 * absent while `doc` is (or `goneIsFine`); undefined when it holds anything
 * else.
 */
async function identityIfHolding(fs: FsFacade, file: string, doc: Json | undefined, goneIsFine: boolean): Promise<string | undefined> {
  const adapter = new DurableFile<Json>(file, { fs });
  let found: Json | null;
  try {
    found = await adapter.read();
  } catch {
    return undefined; // unreadable, or not JSON: not the document the service holds
  }
  if (found === null) return doc === undefined || goneIsFine ? '' : undefined;
  return doc !== undefined && canonicalJson(found) === canonicalJson(doc) ? adapter.identity : undefined;
}
