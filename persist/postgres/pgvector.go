package postgres

// This file maintains the pgvector table of native vector search
// (SEARCH_BACKEND=native): vec_context_embeddings, one vector(dim) row per
// float32 chunk of embedding_chunks, with an HNSW index, kept in step by a
// trigger on embedding_chunks. pgvector_search.go searches it.

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/contextd/contextd/cerrors"
	"github.com/contextd/contextd/persist/sqlval"
	"github.com/jackc/pgx/v5"
)

const (
	vecTable   = "vec_context_embeddings"
	vecTrigger = "contextd_vec_sync"
	// maxVectorDim is pgvector's largest vector dimension.
	maxVectorDim = 16000
	// maxHNSWDim is the largest dimension pgvector's HNSW indexes a
	// vector column in; wider tables are searched by exact scans only.
	maxHNSWDim = 2000
	// hnswM and hnswEF are the index parameters of the reference
	// (spec A: "pgvector HNSW (m=16, ef=64)").
	hnswM  = 16
	hnswEF = 64
)

// vecState is what a Store knows of the vector table: the schema holding
// the pgvector extension ("" when it is not installed), the table's
// dimension (0 when there is none) and whether pgvector scans iteratively
// (0.8 and later: filtered HNSW scans go on until LIMIT rows pass).
type vecState struct {
	ext       string
	dim       int
	iterative bool
}

// errNoPgvector is the start-up error of SEARCH_BACKEND=native with
// semantic search on a server without pgvector (errors.ErrUnavailable).
var errNoPgvector error = unavailableError("postgresql: native vector search (SEARCH_BACKEND=native) needs the pgvector extension, " +
	"which this PostgreSQL server does not have: install pgvector 0.8 or later on the server (https://github.com/pgvector/pgvector) " +
	"so that CREATE EXTENSION vector works, or set SEARCH_BACKEND=in-process, or turn semantic search off " +
	"(ENABLE_SEMANTIC_SEARCH=false or ENABLE_EMBEDDINGS=false); native full text (tsvector) needs no extension")

// unavailableError is a fixed message matching errors.ErrUnavailable.
type unavailableError string

func (e unavailableError) Error() string { return string(e) }
func (e unavailableError) Unwrap() error { return cerrors.ErrUnavailable }

// loadVecState reads the extension and the vector table as the database
// has them now (another replica may have created or dropped the table).
func loadVecState(ctx context.Context, q querier) (vecState, error) {
	var (
		st      vecState
		ext     *string
		version *string
		dim     *int32
	)
	err := q.QueryRow(ctx, `SELECT (SELECT n.nspname::text FROM pg_extension x JOIN pg_namespace n ON n.oid = x.extnamespace WHERE x.extname = 'vector'),
		(SELECT extversion FROM pg_extension WHERE extname = 'vector'),
		(SELECT a.atttypmod FROM pg_attribute a WHERE a.attrelid = to_regclass('`+vecTable+`') AND a.attname = 'embedding' AND NOT a.attisdropped)`).
		Scan(&ext, &version, &dim)
	if err != nil {
		return st, wrap("read vector table", err)
	}
	if ext != nil {
		st.ext = *ext
		st.iterative = versionAtLeast(deref(version), 0, 8)
	}
	if dim != nil && *dim > 0 && st.ext != "" {
		st.dim = int(*dim)
	}
	return st, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// versionAtLeast reports whether the extension version v ("0.8.0") is at
// least major.minor.
func versionAtLeast(v string, major, minor int) bool {
	parts := strings.SplitN(v, ".", 3)
	if len(parts) < 2 {
		return false
	}
	ma, err1 := strconv.Atoi(parts[0])
	mi, err2 := strconv.Atoi(parts[1])
	if err1 != nil || err2 != nil {
		return false
	}
	return ma > major || ma == major && mi >= minor
}

// vecType is the qualified pgvector type of dimension dim ("" for any).
func (v vecState) vecType(dim int) string {
	t := quoteIdent(v.ext) + ".vector"
	if dim > 0 {
		t += "(" + strconv.Itoa(dim) + ")"
	}
	return t
}

// l2 is pgvector's Euclidean distance operator, qualified so that it
// resolves whatever the search_path.
func (v vecState) l2() string { return "OPERATOR(" + quoteIdent(v.ext) + ".<->)" }

// installPgvector creates the extension when the server offers it: in
// schema public when that exists (where extensions conventionally live,
// shared by every schema of the database, so dropping one contextd schema
// cannot drop another's vector table with it), else in the store's schema.
func (s *Store) installPgvector(ctx context.Context, tx pgx.Tx) error {
	var available, public bool
	if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector'),
		EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = 'public')`).Scan(&available, &public); err != nil {
		return wrap("ensure vector table: read extensions", err)
	}
	if !available {
		return errNoPgvector
	}
	schema := s.cfg.Schema
	if public {
		schema = "public"
	}
	if _, err := tx.Exec(ctx, `CREATE EXTENSION IF NOT EXISTS vector WITH SCHEMA `+quoteIdent(schema)); err != nil {
		return fmt.Errorf("%w (ask the database owner to run CREATE EXTENSION vector in schema %s)",
			wrap("ensure vector table: create extension vector", err), schema)
	}
	return nil
}

// EnsureVectorTable makes the pgvector table of native vector search exist
// with dimension dim, in one transaction serialized with every writer of
// the schema: the extension is created when the server has it but the
// database does not (an error naming pgvector when the server lacks it);
// the table, its trigger and its HNSW index are created when missing,
// recreated when the dimension differs or the trigger is gone, and
// (re)filled from embedding_chunks (the chunks of dimension dim) when
// (re)created or when its row count differs from theirs. From then on
// every write of every replica maintains it through the trigger.
func (s *Store) EnsureVectorTable(ctx context.Context, dim int) error {
	if dim <= 0 || dim > maxVectorDim {
		return errf("ensure vector table: dimension %d is not between 1 and %d", dim, maxVectorDim)
	}
	var st vecState
	err := s.schemaTx(ctx, func(tx pgx.Tx) error {
		var err error
		if st, err = loadVecState(ctx, tx); err != nil {
			return err
		}
		if st.ext == "" {
			if err := s.installPgvector(ctx, tx); err != nil {
				return err
			}
			if st, err = loadVecState(ctx, tx); err != nil {
				return err
			}
		}
		rebuild := st.dim != dim
		if !rebuild {
			var ok bool
			if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_trigger WHERE tgname = $1 AND tgrelid = to_regclass('embedding_chunks'))
				AND (SELECT count(*) FROM `+vecTable+`) = (SELECT count(*) FROM embedding_chunks WHERE octet_length(embedding) = $2)`,
				vecTrigger, 4*dim).Scan(&ok); err != nil {
				return wrap("ensure vector table", err)
			}
			rebuild = !ok
		}
		if !rebuild {
			return nil
		}
		stmts := s.vectorTableSQL(st, dim)
		for _, q := range stmts[:len(stmts)-1] {
			if _, err := tx.Exec(ctx, q); err != nil {
				return wrap("ensure vector table", err)
			}
		}
		if err := fillVectorTable(ctx, tx, st, dim); err != nil {
			return err
		}
		// The index after the fill: building HNSW over a filled table is
		// faster than inserting into it row by row.
		if _, err := tx.Exec(ctx, stmts[len(stmts)-1]); err != nil {
			return wrap("ensure vector table: index", err)
		}
		st.dim = dim
		return nil
	})
	if err != nil {
		return err
	}
	s.vec.Store(&st)
	return nil
}

// vectorTableSQL are the statements that (re)create the table of
// dimension dim and its trigger, then, last, the statement of its index
// (EnsureVectorTable fills the table in between).
func (s *Store) vectorTableSQL(st vecState, dim int) []string {
	sch := quoteIdent(s.cfg.Schema)
	tbl := sch + "." + vecTable
	bytes := strconv.Itoa(4 * dim)
	decode := sch + ".contextd_f32le(NEW.embedding)::" + st.vecType(dim)
	stmts := append(dropVectorTableSQL(s.cfg.Schema),
		`CREATE TABLE `+tbl+` (
			chunk_id  BIGINT PRIMARY KEY REFERENCES `+sch+`.embedding_chunks (id) ON DELETE CASCADE,
			embedding `+st.vecType(dim)+` NOT NULL)`,
		// Chunk ids never change (BIGSERIAL keys); a rewrite of a chunk's
		// forms (RewriteChunks) updates embedding in place.
		`CREATE FUNCTION `+sch+`.`+vecTrigger+`() RETURNS trigger LANGUAGE plpgsql AS $f$
		BEGIN
			IF NEW.embedding IS NOT NULL AND octet_length(NEW.embedding) = `+bytes+` THEN
				INSERT INTO `+tbl+` (chunk_id, embedding) VALUES (NEW.id, `+decode+`)
					ON CONFLICT (chunk_id) DO UPDATE SET embedding = excluded.embedding;
			ELSIF TG_OP = 'UPDATE' THEN
				DELETE FROM `+tbl+` WHERE chunk_id = NEW.id;
			END IF;
			RETURN NULL;
		END $f$`,
		`CREATE TRIGGER `+vecTrigger+` AFTER INSERT OR UPDATE OF embedding ON `+sch+`.embedding_chunks
			FOR EACH ROW EXECUTE FUNCTION `+sch+`.`+vecTrigger+`()`,
	)
	if s.cfg.RLS {
		// The table holds vectors of entries; a caller's session sees the
		// rows of the chunks (and so entries) its policies let it see.
		stmts = append(stmts,
			`ALTER TABLE `+tbl+` ENABLE ROW LEVEL SECURITY`,
			`ALTER TABLE `+tbl+` FORCE ROW LEVEL SECURITY`,
			`CREATE POLICY contextd_entry ON `+tbl+` USING (current_setting('contextd.unrestricted', true) = 'on'
				OR EXISTS (SELECT 1 FROM `+sch+`.embedding_chunks c WHERE c.id = `+vecTable+`.chunk_id))`)
	}
	index := `SELECT 1` // no HNSW for vector columns wider than maxHNSWDim
	if dim <= maxHNSWDim {
		index = `CREATE INDEX ` + vecTable + `_hnsw ON ` + tbl + ` USING hnsw (embedding ` + quoteIdent(st.ext) + `.vector_l2_ops)
			WITH (m = ` + strconv.Itoa(hnswM) + `, ef_construction = ` + strconv.Itoa(hnswEF) + `)`
	}
	return append(stmts, index)
}

// fillBatch is the number of chunks fillVectorTable moves per statement.
const fillBatch = 500

// fillVectorTable copies the stored chunks of dimension dim into the new
// table, decoded in Go and sent in pgvector's text form: on PostgreSQL 15
// (2-core machine, loaded) decoding 2,000 chunks of 384 dimensions in SQL
// (contextd_f32le, what the trigger does for each write) took 5.7 s, about
// 2.8 ms a chunk, which a fill of 100,000 chunks should not pay. Batches
// are read whole before they are written (one connection), in key order.
func fillVectorTable(ctx context.Context, tx pgx.Tx, st vecState, dim int) error {
	var after int64
	for {
		rows, err := tx.Query(ctx, `SELECT id, embedding FROM embedding_chunks
			WHERE octet_length(embedding) = $1 AND id > $2 ORDER BY id LIMIT $3`, 4*dim, after, fillBatch)
		if err != nil {
			return wrap("ensure vector table: read chunks", err)
		}
		var (
			ids  []int64
			vecs []string
			id   int64
			blob []byte
		)
		_, err = pgx.ForEachRow(rows, []any{&id, &blob}, func() error {
			v, err := sqlval.DecodeVector(blob)
			if err != nil {
				return err
			}
			ids, vecs = append(ids, id), append(vecs, vectorLiteral(v))
			return nil
		})
		if err != nil {
			return wrap("ensure vector table: read chunks", err)
		}
		if len(ids) == 0 {
			return nil
		}
		if _, err := tx.Exec(ctx, `INSERT INTO `+vecTable+` (chunk_id, embedding)
			SELECT u.id, u.v::`+st.vecType(dim)+` FROM unnest($1::bigint[], $2::text[]) AS u(id, v)`, ids, vecs); err != nil {
			return wrap("ensure vector table: fill", err)
		}
		after = ids[len(ids)-1]
		if len(ids) < fillBatch {
			return nil
		}
	}
}

func dropVectorTableSQL(schema string) []string {
	sch := quoteIdent(schema)
	return []string{
		`DROP TRIGGER IF EXISTS ` + vecTrigger + ` ON ` + sch + `.embedding_chunks`,
		`DROP FUNCTION IF EXISTS ` + sch + `.` + vecTrigger + `()`,
		`DROP TABLE IF EXISTS ` + sch + `.` + vecTable,
	}
}

// DropVectorTable drops the pgvector table and its trigger (the in-process
// vector backend does not want their write cost). Without them, or without
// pgvector, it changes nothing.
func (s *Store) DropVectorTable(ctx context.Context) error {
	var exists bool
	if err := s.pq.QueryRow(ctx, `SELECT to_regclass('`+vecTable+`') IS NOT NULL
		OR EXISTS (SELECT 1 FROM pg_trigger WHERE tgname = $1 AND tgrelid = to_regclass('embedding_chunks'))`, vecTrigger).Scan(&exists); err != nil {
		return wrap("drop vector table", err)
	}
	if exists {
		err := s.schemaTx(ctx, func(tx pgx.Tx) error {
			for _, q := range dropVectorTableSQL(s.cfg.Schema) {
				if _, err := tx.Exec(ctx, q); err != nil {
					return wrap("drop vector table", err)
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	st := s.vecState()
	st.dim = 0
	s.vec.Store(&st)
	return nil
}

// schemaTx runs fn in a transaction holding the schema's write lock, so
// that DDL and its fill see no concurrent write (a write waits, then its
// trigger maintains the new table).
func (s *Store) schemaTx(ctx context.Context, fn func(tx pgx.Tx) error) error {
	return pgx.BeginFunc(ctx, s.pq, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, s.lockKey); err != nil {
			return wrap("lock schema", err)
		}
		return fn(tx)
	})
}

// vecState returns what this Store last saw of the vector table.
func (s *Store) vecState() vecState {
	if p := s.vec.Load(); p != nil {
		return *p
	}
	return vecState{}
}
