// Keeping a replica's memory current: a connection of its own LISTENs for
// change notifications, and every notification not from this replica, or out
// of sequence, makes it read the changes table from the last change it
// applied. Changes commit in the order of their numbers (migrations.ts), so
// reading from the last one applied misses none, whatever notifications were
// lost. A lost connection marks the store degraded (writes answer 503 at once,
// reads go on from memory) and is made again, by itself, until it holds; then
// the replica catches up before it takes writes again. Changes are pruned
// after a while (prune.ts): a replica that has not seen the last change
// pruned cannot catch up from the table and loads everything again (reload).
import pg from 'pg';
import type { Remote } from '../replica.ts';
import type { DocCollection, LogCollection } from '../types.ts';
import { clientConfig, describeUrl, type Log } from './connection.ts';
import { CHANNEL } from './migrations.ts';

/** Changes read per query while catching up. */
const BATCH = 1000;
const RETRY_MIN_MS = 100;
const RETRY_MAX_MS = 1000;

interface ChangeRow {
  /** The last change pruned, read with the rows. */
  horizon: string;
  /** Null on the one row that only carries the horizon when no change follows. */
  seq: string | null;
  kind: 'entry' | 'drop' | 'doc' | 'blob';
  collection: string;
  key: string;
  body: string | null;
  rev: string | null;
}

/** What the follower tells the adapter besides memory: documents' revisions, and whether the database answers. */
export interface FollowerHooks {
  remote: Remote;
  /** A document's revision as read with a change (undefined: removed); false when memory already holds a newer one. */
  docRev(c: DocCollection, key: string, rev: string | undefined): boolean;
  /** Loads everything again (changes this replica missed were pruned); resolves with the last change the load includes. */
  reload(): Promise<string>;
  log: Log;
}

export class Follower {
  private client: pg.Client | undefined;
  private last = 0n;
  private reading: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  private retryMs = RETRY_MIN_MS;
  private timer: NodeJS.Timeout | undefined;
  /** Whether the listening connection holds and memory has caught up since it was made. */
  up = false;

  constructor(private url: string, private pool: pg.Pool, private origin: string, private hooks: FollowerHooks) {}

  /** LISTENs first, so no change committed after `since` (read in the start-up snapshot) goes unheard. */
  async start(): Promise<void> {
    await this.connect();
  }

  /** Starts from the snapshot's last change number (memory holds everything up to it). */
  from(seq: string): void {
    this.last = BigInt(seq);
    this.up = true;
    this.catchUp();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.reading?.catch(() => undefined);
    await this.client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ ...clientConfig(this.url), query_timeout: undefined, statement_timeout: undefined });
    client.on('notification', (n) => this.heard(n.payload ?? ''));
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client, new Error('the connection was closed')));
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    this.client = client;
  }

  private heard(payload: string) {
    const [seq, origin] = payload.split(' ');
    // One's own next change: memory has it (or will, once the write returns); nothing to read.
    if (origin === this.origin && !this.reading && BigInt(seq) === this.last + 1n) this.last++;
    else if (BigInt(seq) > this.last) this.catchUp();
  }

  /** Reads the changes after the last one applied; one reader at a time, again if asked meanwhile. */
  private catchUp() {
    if (!this.up) return;
    if (this.reading) {
      this.again = true;
      return;
    }
    this.reading = (async () => {
      do {
        this.again = false;
        let rows: ChangeRow[];
        do {
          // The horizon in the same statement (one snapshot): rows after `last` are all there unless it passed `last`.
          ({ rows } = await this.pool.query<ChangeRow>(`
            SELECT h.seq AS horizon, c.* FROM changes_horizon h LEFT JOIN LATERAL (
              SELECT c.seq, c.kind, c.collection, c.key,
                CASE c.kind WHEN 'entry' THEN e.body WHEN 'doc' THEN d.body END AS body, d.rev
              FROM changes c
              LEFT JOIN entries e ON c.kind = 'entry' AND e.collection = c.collection AND e.key = c.key AND e.version = c.version
              LEFT JOIN documents d ON c.kind = 'doc' AND d.collection = c.collection AND d.key = c.key
              WHERE c.seq > $1 ORDER BY c.seq LIMIT ${BATCH}) c ON true ORDER BY c.seq`, [String(this.last)]));
          if (BigInt(rows[0].horizon) > this.last) {
            this.hooks.log(`changes after ${this.last} were pruned before this replica read them: loading everything again`);
            this.last = BigInt(await this.hooks.reload());
            this.again = true;
            break;
          }
          for (const row of rows) {
            if (row.seq === null) continue;
            this.apply(row);
            this.last = BigInt(row.seq);
          }
        } while (rows.length === BATCH);
      } while (this.again);
    })().catch((error) => {
      // Read again once the connection is made again (lost() calls back here through reconnect()).
      this.hooks.log(`could not read the database's changes: ${(error as Error).message}`);
      this.again = false;
      if (this.client) this.lost(this.client, error as Error);
    }).finally(() => {
      this.reading = undefined;
    });
  }

  private apply(row: ChangeRow) {
    const { remote } = this.hooks;
    if (row.kind === 'entry') {
      if (row.body !== null) remote.entry(row.collection as LogCollection, row.key, row.body);
    } else if (row.kind === 'drop') {
      remote.dropped(row.collection as LogCollection, row.key);
    } else if (row.kind === 'doc') {
      const c = row.collection as DocCollection;
      if (this.hooks.docRev(c, row.key, row.rev ?? undefined)) remote.doc(c, row.key, row.body ?? undefined);
    } else {
      remote.blob(row.key, true);
    }
  }

  /** The connection failed: degraded until a new one holds and memory has caught up. */
  private lost(client: pg.Client, error: Error) {
    if (this.client !== client) return;
    this.client = undefined;
    void client.end().catch(() => undefined);
    this.up = false;
    if (this.stopped) return;
    this.hooks.log(`lost the connection to ${describeUrl(this.url)} (${error.message}): writes answer 503, reads are served from memory; reconnecting`);
    this.hooks.remote.outage({
      collection: 'private', key: 'database', where: describeUrl(this.url),
      message: `cannot be reached since ${new Date().toISOString()} (${error.message}); writes answer 503, reads are served from memory`,
    });
    this.retryMs = RETRY_MIN_MS;
    this.schedule();
  }

  private schedule() {
    this.timer = setTimeout(() => void this.reconnect(), this.retryMs);
    this.retryMs = Math.min(this.retryMs * 2, RETRY_MAX_MS);
  }

  private async reconnect() {
    if (this.stopped) return;
    try {
      await this.connect();
    } catch {
      this.schedule();
      return;
    }
    if (this.stopped) return void this.client?.end().catch(() => undefined);
    this.up = true;
    this.catchUp();
    await this.reading;
    if (!this.up) return; // lost again while catching up
    this.hooks.remote.outage(undefined);
    this.hooks.log(`reconnected to ${describeUrl(this.url)}; caught up with the changes made meanwhile`);
  }
}
