package postgres

import (
	"context"
	"encoding/json"

	"github.com/contextd/contextd/persist"
	"github.com/jackc/pgx/v5"
)

// Row-level security (ENABLE_POSTGRESQL_RLS=true): policies on
// context_entries mirror the READ, WRITE and OWNER predicates the store
// already writes into every statement, so that even a bug in the engine's
// SQL cannot return a row the caller may not read.
//
// The caller is bound per transaction: every read that takes an Access
// runs in a read-only transaction that first calls
// set_config('contextd.principal', ..., true) and
// set_config('contextd.groups', <JSON array>, true) and clears
// contextd.unrestricted. The store's own unrestricted reads (the index
// feed, the change log, entry state) run with contextd.unrestricted=on,
// set for the session of every pooled connection; write transactions run
// unrestricted too (the engine decides access before it writes, and a
// delete must see the row it removes). The child tables (tags, images,
// chunks, node summaries) follow their entry through the same policy.
// The grants table has no policy: the READ policy reads it.
//
// PostgreSQL never applies policies to superusers or BYPASSRLS roles, so
// Open refuses RLS on such a connection; FORCE ROW LEVEL SECURITY makes
// them apply to the tables' owner, the role the store connects as.

const (
	settingPrincipal    = "contextd.principal"
	settingGroups       = "contextd.groups"
	settingUnrestricted = "contextd.unrestricted"
)

// rlsRead is the predicate of the READ policy on the row of
// context_entries being checked.
const rlsRead = `current_setting('contextd.unrestricted', true) = 'on'
	OR owner_id = current_setting('contextd.principal', true)
	OR visibility = 'public'
	OR EXISTS (SELECT 1 FROM context_entry_grants g WHERE g.context_entry_id = context_entries.id AND (
		(g.principal_type = 'user' AND g.principal_id = current_setting('contextd.principal', true))
		OR (g.principal_type = 'group' AND g.principal_id IN (SELECT jsonb_array_elements_text(
			coalesce(nullif(current_setting('contextd.groups', true), ''), '[]')::jsonb)))))`

// rlsWrite is the WRITE predicate: owner or a write grant.
const rlsWrite = `current_setting('contextd.unrestricted', true) = 'on'
	OR owner_id = current_setting('contextd.principal', true)
	OR EXISTS (SELECT 1 FROM context_entry_grants g WHERE g.context_entry_id = context_entries.id AND g.permission = 'write' AND (
		(g.principal_type = 'user' AND g.principal_id = current_setting('contextd.principal', true))
		OR (g.principal_type = 'group' AND g.principal_id IN (SELECT jsonb_array_elements_text(
			coalesce(nullif(current_setting('contextd.groups', true), ''), '[]')::jsonb)))))`

// rlsOwner is the OWNER predicate (delete, and the owner of a new row).
const rlsOwner = `current_setting('contextd.unrestricted', true) = 'on'
	OR owner_id = current_setting('contextd.principal', true)`

// enableRLS installs the policies (idempotently) under the migration lock.
func enableRLS(ctx context.Context, conn *pgx.Conn) error {
	var bypass bool
	if err := conn.QueryRow(ctx, `SELECT rolsuper OR rolbypassrls FROM pg_roles WHERE rolname = current_user`).Scan(&bypass); err != nil {
		return wrap("enable row-level security", err)
	}
	if bypass {
		return errf("option RLS needs a database role without SUPERUSER or BYPASSRLS: PostgreSQL never applies row-level security to such a role")
	}
	stmts := []string{
		`ALTER TABLE context_entries ENABLE ROW LEVEL SECURITY`,
		`ALTER TABLE context_entries FORCE ROW LEVEL SECURITY`,
		`DROP POLICY IF EXISTS contextd_read ON context_entries`,
		`DROP POLICY IF EXISTS contextd_insert ON context_entries`,
		`DROP POLICY IF EXISTS contextd_update ON context_entries`,
		`DROP POLICY IF EXISTS contextd_delete ON context_entries`,
		`CREATE POLICY contextd_read ON context_entries FOR SELECT USING (` + rlsRead + `)`,
		`CREATE POLICY contextd_insert ON context_entries FOR INSERT WITH CHECK (` + rlsOwner + `)`,
		`CREATE POLICY contextd_update ON context_entries FOR UPDATE USING (` + rlsWrite + `) WITH CHECK (` + rlsWrite + `)`,
		`CREATE POLICY contextd_delete ON context_entries FOR DELETE USING (` + rlsOwner + `)`,
	}
	for table, col := range map[string]string{"tags": "context_entry_id", "image_attachments": "context_entry_id",
		"embedding_chunks": "context_id", "embedding_metadata": "context_id", "context_index_nodes": "context_entry_id"} {
		stmts = append(stmts,
			`ALTER TABLE `+table+` ENABLE ROW LEVEL SECURITY`,
			`ALTER TABLE `+table+` FORCE ROW LEVEL SECURITY`,
			`DROP POLICY IF EXISTS contextd_entry ON `+table,
			// The subquery is itself filtered by the entry's policies.
			`CREATE POLICY contextd_entry ON `+table+` USING (current_setting('contextd.unrestricted', true) = 'on'
				OR EXISTS (SELECT 1 FROM context_entries e WHERE e.id = `+table+`.`+col+`))`)
	}
	err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		for _, s := range stmts {
			if _, err := tx.Exec(ctx, s); err != nil {
				return err
			}
		}
		return nil
	})
	return wrap("enable row-level security", err)
}

// asCaller runs fn on a reader bound to acc: with RLS, in a read-only
// REPEATABLE READ transaction whose settings name the caller; without,
// on the Store's reader.
func asCaller[T any](s *Store, ctx context.Context, acc persist.Access, fn func(r reader) (T, error)) (T, error) {
	if !s.cfg.RLS {
		return fn(s.reader)
	}
	var out T
	err := s.readTx(ctx, acc, func(tx pgx.Tx) error {
		var err error
		out, err = fn(newReader(tx, nil, s.cfg.Schema))
		return err
	})
	if err != nil {
		var zero T
		return zero, wrap("read as caller", err)
	}
	return out, nil
}

// readTx runs fn in a read-only REPEATABLE READ transaction, whose
// settings name the caller when RLS is on.
func (s *Store) readTx(ctx context.Context, acc persist.Access, fn func(tx pgx.Tx) error) error {
	return pgx.BeginTxFunc(ctx, s.pq, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		if s.cfg.RLS {
			groups, _ := json.Marshal(acc.Groups) // []string always encodes
			if acc.Groups == nil {
				groups = []byte("[]")
			}
			if _, err := tx.Exec(ctx, `SELECT set_config($1, $2, true), set_config($3, $4, true), set_config($5, 'off', true)`,
				settingPrincipal, acc.Principal, settingGroups, string(groups), settingUnrestricted); err != nil {
				return wrap("bind caller", err)
			}
		}
		return fn(tx)
	})
}

// The reads that take an Access, bound to the caller when RLS is on.

func (s *Store) ResolvePrefix(ctx context.Context, acc persist.Access, prefix string) ([]string, error) {
	return asCaller(s, ctx, acc, func(r reader) ([]string, error) { return r.ResolvePrefix(ctx, acc, prefix) })
}

func (s *Store) Get(ctx context.Context, acc persist.Access, ids []string, opt persist.GetOptions) ([]persist.Entry, error) {
	return asCaller(s, ctx, acc, func(r reader) ([]persist.Entry, error) { return r.Get(ctx, acc, ids, opt) })
}

func (s *Store) Search(ctx context.Context, acc persist.Access, q persist.SearchQuery) (persist.SearchResult, error) {
	return asCaller(s, ctx, acc, func(r reader) (persist.SearchResult, error) { return r.Search(ctx, acc, q) })
}

func (s *Store) ListThreads(ctx context.Context, acc persist.Access, limit, offset int) ([]persist.ThreadInfo, error) {
	return asCaller(s, ctx, acc, func(r reader) ([]persist.ThreadInfo, error) { return r.ListThreads(ctx, acc, limit, offset) })
}

func (s *Store) Stats(ctx context.Context, acc persist.Access) (persist.Stats, error) {
	return asCaller(s, ctx, acc, func(r reader) (persist.Stats, error) { return r.Stats(ctx, acc) })
}

type dedup struct {
	cand  *persist.Entry
	inter bool
}

func (s *Store) DedupCandidate(ctx context.Context, acc persist.Access, threadID, source string) (*persist.Entry, bool, error) {
	d, err := asCaller(s, ctx, acc, func(r reader) (dedup, error) {
		c, i, err := r.DedupCandidate(ctx, acc, threadID, source)
		return dedup{c, i}, err
	})
	return d.cand, d.inter, err
}

func (s *Store) MatchDelete(ctx context.Context, acc persist.Access, c persist.DeleteCriteria) ([]persist.Ref, error) {
	return asCaller(s, ctx, acc, func(r reader) ([]persist.Ref, error) { return r.MatchDelete(ctx, acc, c) })
}

func (s *Store) Texts(ctx context.Context, acc persist.Access, ids []string) (map[string]string, error) {
	return asCaller(s, ctx, acc, func(r reader) (map[string]string, error) { return r.Texts(ctx, acc, ids) })
}

func (s *Store) IngestEntries(ctx context.Context, acc persist.Access, q persist.IngestQuery) ([]persist.IngestRow, error) {
	return asCaller(s, ctx, acc, func(r reader) ([]persist.IngestRow, error) { return r.IngestEntries(ctx, acc, q) })
}

func (s *Store) CountNodeSummaries(ctx context.Context, acc persist.Access) (int, error) {
	return asCaller(s, ctx, acc, func(r reader) (int, error) { return r.CountNodeSummaries(ctx, acc) })
}

type counts struct{ entries, chunks int }

func (s *Store) EmbeddingCounts(ctx context.Context, acc persist.Access) (int, int, error) {
	c, err := asCaller(s, ctx, acc, func(r reader) (counts, error) {
		e, ch, err := r.EmbeddingCounts(ctx, acc)
		return counts{e, ch}, err
	})
	return c.entries, c.chunks, err
}
