package sqlite

// This file maintains the sqlite-vec table of native vector search and
// its triggers (see vectors.go).

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"regexp"
	"strconv"
)

// Triggers keeping vec_context_embeddings in step with embedding_chunks.
// Chunks of another dimension than the table's are left out of it.
const (
	vecTriggerInsert = "embedding_chunks_vec_ai"
	vecTriggerDelete = "embedding_chunks_vec_ad"
	vecTriggerUpdate = "embedding_chunks_vec_au"
)

var vecDimPattern = regexp.MustCompile(`float\[(\d+)\]`)

// vecTableDim returns the dimension of vec_context_embeddings, 0 when the
// table does not exist.
func vecTableDim(ctx context.Context, q querier) (int, error) {
	var ddl string
	err := q.QueryRowContext(ctx, `SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?`, vecTable).Scan(&ddl)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("sqlite: read vector table: %w", err)
	}
	m := vecDimPattern.FindStringSubmatch(ddl)
	if m == nil {
		return 0, fmt.Errorf("sqlite: read vector table: no dimension in %q", ddl)
	}
	d, err := strconv.Atoi(m[1])
	if err != nil {
		return 0, fmt.Errorf("sqlite: read vector table: %w", err)
	}
	return d, nil
}

// loadVectorTable remembers whether (and with which dimension) the native
// vector table exists.
func (s *Store) loadVectorTable(ctx context.Context) error {
	d, err := vecTableDim(ctx, s.w)
	if err != nil {
		return err
	}
	s.vecDim.Store(int64(d))
	return nil
}

// VectorTableDim returns the dimension of the native vector table as this
// Store last saw it (at Open, EnsureVectorTable, DropVectorTable), 0 when
// it does not exist.
func (s *Store) VectorTableDim() int { return int(s.vecDim.Load()) }

// EnsureVectorTable makes the sqlite-vec table of native vector search
// exist with dimension dim, in one write transaction: it is created when
// missing, recreated when its dimension differs or it lost its triggers,
// and (re)filled from embedding_chunks (the chunks of dimension dim) when
// it was (re)created or its row count differs from theirs. From then on
// every write maintains it in its own transaction. It runs on the writer:
// do not call it from inside Write.
func (s *Store) EnsureVectorTable(ctx context.Context, dim int) error {
	if dim <= 0 || dim > maxVectorDim {
		return fmt.Errorf("sqlite: ensure vector table: dimension %d is not between 1 and %d", dim, maxVectorDim)
	}
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sqlite: ensure vector table: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	cur, err := vecTableDim(ctx, tx)
	if err != nil {
		return err
	}
	rebuild := cur != dim
	if !rebuild {
		var ok bool
		if err := tx.QueryRowContext(ctx, `SELECT
			(SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND name IN (?, ?, ?)) = 3
			AND (SELECT count(*) FROM `+vecTable+`) = (SELECT count(*) FROM embedding_chunks WHERE length(embedding) = ?)`,
			vecTriggerInsert, vecTriggerDelete, vecTriggerUpdate, 4*dim).Scan(&ok); err != nil {
			return fmt.Errorf("sqlite: ensure vector table: %w", err)
		}
		rebuild = !ok
	}
	if rebuild {
		bytes := strconv.Itoa(4 * dim)
		stmts := append(dropVectorTableSQL(),
			`CREATE VIRTUAL TABLE `+vecTable+` USING vec0(embedding float[`+strconv.Itoa(dim)+`])`,
			`CREATE TRIGGER `+vecTriggerInsert+` AFTER INSERT ON embedding_chunks
				WHEN length(new.embedding) = `+bytes+` BEGIN
				INSERT INTO `+vecTable+` (rowid, embedding) VALUES (new.id, new.embedding);
			END`,
			`CREATE TRIGGER `+vecTriggerDelete+` AFTER DELETE ON embedding_chunks BEGIN
				DELETE FROM `+vecTable+` WHERE rowid = old.id;
			END`,
			`CREATE TRIGGER `+vecTriggerUpdate+` AFTER UPDATE OF id, embedding ON embedding_chunks BEGIN
				DELETE FROM `+vecTable+` WHERE rowid = old.id;
				INSERT INTO `+vecTable+` (rowid, embedding) SELECT new.id, new.embedding
					WHERE length(new.embedding) = `+bytes+`;
			END`,
			`INSERT INTO `+vecTable+` (rowid, embedding)
				SELECT id, embedding FROM embedding_chunks WHERE length(embedding) = `+bytes+` ORDER BY id`,
		)
		for _, q := range stmts {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return fmt.Errorf("sqlite: ensure vector table: %w", err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sqlite: ensure vector table: %w", err)
	}
	s.vecDim.Store(int64(dim))
	return nil
}

func dropVectorTableSQL() []string {
	return []string{
		`DROP TRIGGER IF EXISTS ` + vecTriggerInsert,
		`DROP TRIGGER IF EXISTS ` + vecTriggerDelete,
		`DROP TRIGGER IF EXISTS ` + vecTriggerUpdate,
		`DROP TABLE IF EXISTS ` + vecTable,
	}
}

// DropVectorTable drops the sqlite-vec table and its triggers (the
// in-process vector backend does not want their write cost). Without them
// it writes nothing. It runs on the writer: do not call it from inside
// Write.
func (s *Store) DropVectorTable(ctx context.Context) error {
	var n int
	if err := s.w.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE name IN (?, ?, ?, ?)`,
		vecTable, vecTriggerInsert, vecTriggerDelete, vecTriggerUpdate).Scan(&n); err != nil {
		return fmt.Errorf("sqlite: drop vector table: %w", err)
	}
	if n == 0 {
		s.vecDim.Store(0)
		return nil
	}
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sqlite: drop vector table: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	for _, q := range dropVectorTableSQL() {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("sqlite: drop vector table: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sqlite: drop vector table: %w", err)
	}
	s.vecDim.Store(0)
	return nil
}
