// The database schema, as numbered migrations applied in order at start. Each
// runs in its own transaction and is recorded in schema_migrations; a session
// advisory lock makes replicas that start together take turns, so exactly one
// applies each migration. A migration, once released, is never edited: a
// change of schema is a new migration at the end of the list.
//
// Tables: entries (the append-only versions: the primary key refuses a second
// version N of one resource; each with its outline since V4), documents (read-modify-write with a revision
// number for compare-and-set), blobs (content-addressed), changes (one row per
// write, numbered by a sequence: what replicas catch up from), shared_counters
// (login_failures until V3), shared_entries and changes_horizon (the last
// change pruned). Writes go through functions that also record the change
// and NOTIFY the other replicas in the same transaction.
import type pg from 'pg';
import type { Log } from './connection.ts';

/** Arbitrary constants naming the service's advisory locks (pg_advisory_lock takes a bigint). */
const MIGRATION_LOCK = 7_311_020_170_001;
const CHANGES_LOCK = 7_311_020_170_002;
/** Expired shared entries removed by each write of one, at most (mts_put_entry): a flood prunes as it writes. */
const PRUNE_ON_WRITE = 100;
/** The channel of change notifications. */
export const CHANNEL = 'mts_changes';

const V1 = `
CREATE TABLE entries (
  collection text NOT NULL,
  key text NOT NULL,
  version integer NOT NULL CHECK (version >= 1),
  body text NOT NULL,
  PRIMARY KEY (collection, key, version)
);
CREATE SEQUENCE document_revs;
CREATE TABLE documents (
  collection text NOT NULL,
  key text NOT NULL,
  rev bigint NOT NULL,
  body text NOT NULL,
  PRIMARY KEY (collection, key)
);
CREATE TABLE blobs (key text PRIMARY KEY, body text NOT NULL);
CREATE TABLE changes (
  seq bigserial PRIMARY KEY,
  origin text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('entry', 'drop', 'doc', 'blob')),
  collection text NOT NULL,
  key text NOT NULL,
  version integer
);

-- Records one change and tells the replicas. The lock (held to commit) makes
-- changes commit in the order of their numbers, so a replica that has seen
-- change N has seen every change before it: catching up from N misses none.
CREATE FUNCTION mts_change(p_origin text, p_kind text, p_collection text, p_key text, p_version integer) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE s bigint;
BEGIN
  PERFORM pg_advisory_xact_lock(${CHANGES_LOCK});
  INSERT INTO changes (origin, kind, collection, key, version) VALUES (p_origin, p_kind, p_collection, p_key, p_version)
    RETURNING seq INTO s;
  PERFORM pg_notify('${CHANNEL}', s || ' ' || p_origin);
  RETURN s;
END $$;

-- Appends version p_version, only above every stored one (the primary key
-- refuses a second version N even between concurrent transactions); false
-- when a version as high is stored already.
CREATE FUNCTION mts_append(p_origin text, p_collection text, p_key text, p_version integer, p_body text) RETURNS boolean
LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM entries WHERE collection = p_collection AND key = p_key AND version >= p_version) THEN
    RETURN false;
  END IF;
  INSERT INTO entries (collection, key, version, body) VALUES (p_collection, p_key, p_version, p_body);
  PERFORM mts_change(p_origin, 'entry', p_collection, p_key, p_version);
  RETURN true;
END $$;

CREATE FUNCTION mts_drop(p_origin text, p_collection text, p_key text) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM entries WHERE collection = p_collection AND key = p_key;
  IF FOUND THEN PERFORM mts_change(p_origin, 'drop', p_collection, p_key, NULL); END IF;
END $$;

-- Writes a document if its revision is still p_rev (0: absent); the new
-- revision, or NULL when another replica wrote it since.
CREATE FUNCTION mts_write_doc(p_origin text, p_collection text, p_key text, p_rev bigint, p_body text) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE r bigint := nextval('document_revs');
BEGIN
  IF p_rev = 0 THEN
    INSERT INTO documents (collection, key, rev, body) VALUES (p_collection, p_key, r, p_body) ON CONFLICT DO NOTHING;
  ELSE
    UPDATE documents SET rev = r, body = p_body WHERE collection = p_collection AND key = p_key AND rev = p_rev;
  END IF;
  IF NOT FOUND THEN RETURN NULL; END IF;
  PERFORM mts_change(p_origin, 'doc', p_collection, p_key, NULL);
  RETURN r;
END $$;

-- Removes a document if its revision is still p_rev; false when another replica wrote it since.
CREATE FUNCTION mts_remove_doc(p_origin text, p_collection text, p_key text, p_rev bigint) RETURNS boolean
LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM documents WHERE collection = p_collection AND key = p_key AND rev = p_rev;
  IF FOUND THEN
    PERFORM mts_change(p_origin, 'doc', p_collection, p_key, NULL);
    RETURN true;
  END IF;
  RETURN NOT EXISTS (SELECT 1 FROM documents WHERE collection = p_collection AND key = p_key);
END $$;

CREATE FUNCTION mts_put_blob(p_origin text, p_key text, p_body text) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO blobs (key, body) VALUES (p_key, p_body) ON CONFLICT DO NOTHING;
  IF FOUND THEN PERFORM mts_change(p_origin, 'blob', 'results', p_key, NULL); END IF;
END $$;

CREATE FUNCTION mts_remove_blob(p_origin text, p_key text) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM blobs WHERE key = p_key;
  IF FOUND THEN PERFORM mts_change(p_origin, 'blob', 'results', p_key, NULL); END IF;
END $$;

-- Login throttling shared by every replica: failures per key in fixed windows.
CREATE TABLE login_failures (
  key text PRIMARY KEY,
  failures integer NOT NULL,
  reset_at timestamptz NOT NULL
);
`;

// The changes table is pruned (prune.ts): rows older than a window go, and
// changes_horizon remembers the last change removed. A replica that has not
// seen that far cannot catch up from the table and loads everything again.
// Also shared_entries, and expired rows of it and of login_failures pruned.
const V2 = `
ALTER TABLE changes ADD COLUMN at timestamptz NOT NULL DEFAULT now();
CREATE TABLE changes_horizon (one boolean PRIMARY KEY DEFAULT true CHECK (one), seq bigint NOT NULL);
INSERT INTO changes_horizon (seq) VALUES (0);

-- Removes the changes older than p_keep (oldest first, at most p_limit) and
-- moves the horizon past them; also the login counts whose window ended.
-- Returns the horizon.
CREATE FUNCTION mts_prune(p_keep interval, p_limit integer) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE upto bigint;
BEGIN
  WITH gone AS (
    DELETE FROM changes WHERE seq IN (SELECT seq FROM changes WHERE at < now() - p_keep ORDER BY seq LIMIT p_limit)
    RETURNING seq)
  SELECT max(seq) INTO upto FROM gone;
  IF upto IS NOT NULL THEN UPDATE changes_horizon SET seq = greatest(seq, upto); END IF;
  DELETE FROM login_failures WHERE reset_at <= now();
  DELETE FROM shared_entries WHERE expires_at <= extract(epoch FROM now());
  RETURN (SELECT seq FROM changes_horizon);
END $$;

-- Short-lived entries every replica sees (shared-entries.ts: the built-in
-- OpenID provider's interactions, sessions, codes), with the payload fields
-- they are found by; expires_at in epoch seconds.
CREATE TABLE shared_entries (
  kind text NOT NULL,
  id text NOT NULL,
  payload text NOT NULL,
  expires_at bigint,
  uid text,
  user_code text,
  grant_id text,
  account_id text,
  PRIMARY KEY (kind, id)
);
CREATE INDEX shared_entries_uid ON shared_entries (kind, uid) WHERE uid IS NOT NULL;
CREATE INDEX shared_entries_user_code ON shared_entries (kind, user_code) WHERE user_code IS NOT NULL;
CREATE INDEX shared_entries_grant ON shared_entries (grant_id) WHERE grant_id IS NOT NULL;
CREATE INDEX shared_entries_account ON shared_entries (account_id) WHERE account_id IS NOT NULL;
CREATE INDEX shared_entries_expiry ON shared_entries (expires_at) WHERE expires_at IS NOT NULL;
`;

// The store's contract speaks of store concepts only: shared_entries finds
// rows by lookup values whose names the writer chooses (one JSON object under
// a GIN index instead of a column per sign-in field) and keeps when a row was
// consumed in a column of its own; login_failures becomes shared_counters.
// Rows in flight survive: a sign-in begun before the upgrade ends after it.
// The old columns' values move under the names the built-in provider gives
// them (auth/oidc/shared-form.ts), and a consumed mark leaves the payload.
// The entries are bounded as the built-in provider's are in memory: each row
// knows the client address it was made for (owner), whether its login form was
// shown (kept), and its place in write order (seq). mts_put_entry writes one
// entry and, in the same statement, applies the bounds the caller gives: one
// owner keeps at most p_per_owner live entries of a kind that are not kept
// (its own oldest go first), a kind at most p_total (those never shown go
// first); and it removes up to PRUNE_ON_WRITE expired rows. mts_prune removes
// expired entries in batches too, so no call holds its locks long.
const V3 = `
ALTER TABLE shared_entries ADD COLUMN lookup jsonb NOT NULL DEFAULT '{}', ADD COLUMN consumed_at bigint;
UPDATE shared_entries SET
  lookup = jsonb_strip_nulls(jsonb_build_object('uid', uid, 'userCode', user_code, 'grantId', grant_id, 'accountId', account_id)),
  consumed_at = CASE WHEN jsonb_typeof(payload::jsonb -> 'consumed') = 'number' THEN (payload::jsonb ->> 'consumed')::numeric::bigint END,
  payload = (payload::jsonb - 'consumed')::text;
ALTER TABLE shared_entries DROP COLUMN uid, DROP COLUMN user_code, DROP COLUMN grant_id, DROP COLUMN account_id;
CREATE INDEX shared_entries_lookup ON shared_entries USING gin (lookup jsonb_path_ops);

ALTER TABLE login_failures RENAME TO shared_counters;
ALTER TABLE shared_counters RENAME COLUMN failures TO count;

ALTER TABLE shared_entries ADD COLUMN owner text, ADD COLUMN kept boolean NOT NULL DEFAULT false, ADD COLUMN seq bigserial;
CREATE INDEX shared_entries_owner ON shared_entries (kind, owner, seq) WHERE owner IS NOT NULL AND NOT kept;
CREATE INDEX shared_entries_order ON shared_entries (kind, kept, seq);

CREATE FUNCTION mts_put_entry(p_kind text, p_id text, p_payload text, p_expires bigint, p_lookup jsonb, p_consumed bigint,
  p_owner text, p_per_owner integer, p_total integer) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  -- A rewrite moves the entry to the end of the write order and keeps it kept.
  INSERT INTO shared_entries (kind, id, payload, expires_at, lookup, consumed_at, owner)
  VALUES (p_kind, p_id, p_payload, p_expires, p_lookup, p_consumed, p_owner)
  ON CONFLICT (kind, id) DO UPDATE SET payload = excluded.payload, expires_at = excluded.expires_at,
    lookup = excluded.lookup, consumed_at = excluded.consumed_at,
    owner = coalesce(excluded.owner, shared_entries.owner), seq = nextval(pg_get_serial_sequence('shared_entries', 'seq'));
  IF p_owner IS NOT NULL AND p_per_owner IS NOT NULL THEN
    DELETE FROM shared_entries WHERE kind = p_kind AND id IN (
      SELECT id FROM shared_entries WHERE kind = p_kind AND owner = p_owner AND NOT kept ORDER BY seq DESC OFFSET p_per_owner);
  END IF;
  IF p_total IS NOT NULL THEN
    DELETE FROM shared_entries WHERE kind = p_kind AND id IN (
      SELECT id FROM shared_entries WHERE kind = p_kind ORDER BY kept DESC, seq DESC OFFSET p_total);
  END IF;
  DELETE FROM shared_entries WHERE ctid = ANY (ARRAY(
    SELECT ctid FROM shared_entries WHERE expires_at <= extract(epoch FROM now()) LIMIT ${PRUNE_ON_WRITE}));
END $$;

CREATE OR REPLACE FUNCTION mts_prune(p_keep interval, p_limit integer) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE upto bigint;
BEGIN
  WITH gone AS (
    DELETE FROM changes WHERE seq IN (SELECT seq FROM changes WHERE at < now() - p_keep ORDER BY seq LIMIT p_limit)
    RETURNING seq)
  SELECT max(seq) INTO upto FROM gone;
  IF upto IS NOT NULL THEN UPDATE changes_horizon SET seq = greatest(seq, upto); END IF;
  DELETE FROM shared_counters WHERE reset_at <= now();
  DELETE FROM shared_entries WHERE ctid = ANY (ARRAY(
    SELECT ctid FROM shared_entries WHERE expires_at <= extract(epoch FROM now()) LIMIT p_limit));
  RETURN (SELECT seq FROM changes_horizon);
END $$;
`;

// Each entry's outline (../outline.ts) is stored in its row, by the same
// statement as its body. Rows stored before keep none until a replica first
// needs a log's outlines and stores them (an UPDATE of that column only). The
// five-argument mts_append stays, so replicas of the previous release go on
// writing during a rolling upgrade; their entries get their outlines later.
const V4 = `
ALTER TABLE entries ADD COLUMN outline text;

CREATE FUNCTION mts_append(p_origin text, p_collection text, p_key text, p_version integer, p_body text, p_outline text)
RETURNS boolean
LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM entries WHERE collection = p_collection AND key = p_key AND version >= p_version) THEN
    RETURN false;
  END IF;
  INSERT INTO entries (collection, key, version, body, outline) VALUES (p_collection, p_key, p_version, p_body, p_outline);
  PERFORM mts_change(p_origin, 'entry', p_collection, p_key, p_version);
  RETURN true;
END $$;
`;

/** The migrations, in order; the number of each is its place in the list, from 1. */
const MIGRATIONS: readonly string[] = [V1, V2, V3, V4];

/** Whether every migration is applied already (the usual start: one query, no lock). */
async function current(pool: pg.Pool, upTo: number): Promise<boolean> {
  try {
    const { rows } = await pool.query<{ latest: number | null }>('SELECT max(version) AS latest FROM schema_migrations');
    return rows[0].latest === upTo;
  } catch (error) {
    if ((error as { code?: string }).code === '42P01') return false; // no schema_migrations yet
    throw error;
  }
}

/** Applies the migrations the database lacks, one replica at a time; says which it applied. `upTo`: the last to apply (tests of a migration stop before it). */
export async function migrate(pool: pg.Pool, log: Log, upTo = MIGRATIONS.length): Promise<void> {
  if (await current(pool, upTo)) return;
  const client = await pool.connect();
  let broken: unknown;
  try {
    // Taking the lock may wait for another replica's migrations: longer than a statement may last.
    await client.query('SET statement_timeout = 0; SET lock_timeout = 0');
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
        version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
      const { rows } = await client.query<{ version: number }>('SELECT version FROM schema_migrations');
      const applied = new Set(rows.map((r) => r.version));
      if ([...applied].some((v) => v > MIGRATIONS.length)) {
        throw new Error(`the database's schema is newer (migration ${Math.max(...applied)}) than this release knows ` +
          `(${MIGRATIONS.length}): run the newer release, or restore a backup`);
      }
      for (const [i, sql] of MIGRATIONS.slice(0, upTo).entries()) {
        const version = i + 1;
        if (applied.has(version)) continue;
        await client.query('BEGIN');
        try {
          await client.query(sql);
          await client.query('INSERT INTO schema_migrations (version) VALUES ($1)', [version]);
          await client.query('COMMIT');
        } catch (error) {
          await client.query('ROLLBACK').catch(() => undefined);
          throw error;
        }
        log(`database schema: applied migration ${version}`);
      }
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
      await client.query('RESET statement_timeout; RESET lock_timeout').catch(() => undefined);
    }
  } catch (error) {
    broken = error;
    throw error;
  } finally {
    client.release(broken instanceof Error ? broken : undefined);
  }
}
