package sqlite

import (
	"context"
	"fmt"
)

// The FTS5 table of the native backend is kept by three triggers in every
// writing transaction, which costs about a fifth of a store. A deployment
// searching with the in-process index does not read it, so the engine
// drops the triggers (DropFullTextTriggers) and the table falls behind;
// the native backend restores them and rebuilds the table from
// context_entries before it searches (EnsureFullTextLanguage, and
// FullTextSearch when another process dropped them meanwhile).

// ftsTriggers re-creates the triggers of migration 0002.
var ftsTriggers = []string{
	`CREATE TRIGGER context_entries_fts_ai AFTER INSERT ON context_entries BEGIN
    INSERT INTO context_entries_fts (rowid, text_content) VALUES (new.rowid_int, new.text_content);
END`,
	`CREATE TRIGGER context_entries_fts_ad AFTER DELETE ON context_entries BEGIN
    INSERT INTO context_entries_fts (context_entries_fts, rowid, text_content)
        VALUES ('delete', old.rowid_int, old.text_content);
END`,
	`CREATE TRIGGER context_entries_fts_au AFTER UPDATE OF text_content ON context_entries BEGIN
    INSERT INTO context_entries_fts (context_entries_fts, rowid, text_content)
        VALUES ('delete', old.rowid_int, old.text_content);
    INSERT INTO context_entries_fts (rowid, text_content) VALUES (new.rowid_int, new.text_content);
END`,
}

var ftsTriggerDrops = []string{
	`DROP TRIGGER IF EXISTS context_entries_fts_ai`,
	`DROP TRIGGER IF EXISTS context_entries_fts_ad`,
	`DROP TRIGGER IF EXISTS context_entries_fts_au`,
}

// fullTextTriggers counts the FTS5 maintenance triggers present.
func (s *Store) fullTextTriggers(ctx context.Context) (int, error) {
	var n int
	err := s.q.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'trigger'
		AND name IN ('context_entries_fts_ai', 'context_entries_fts_ad', 'context_entries_fts_au')`).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("sqlite: read full-text triggers: %w", err)
	}
	return n, nil
}

// DropFullTextTriggers stops maintaining the FTS5 table; a later native
// start rebuilds it. Nothing is written when the triggers are gone already.
func (s *Store) DropFullTextTriggers(ctx context.Context) error {
	n, err := s.fullTextTriggers(ctx)
	if err != nil || n == 0 {
		return err
	}
	return s.ddl(ctx, "drop full-text triggers", ftsTriggerDrops)
}

// ensureFullTextTriggers restores the triggers and rebuilds the FTS5
// table from context_entries when any trigger is missing.
func (s *Store) ensureFullTextTriggers(ctx context.Context) error {
	n, err := s.fullTextTriggers(ctx)
	if err != nil || n == len(ftsTriggers) {
		return err
	}
	stmts := append(append(append([]string{}, ftsTriggerDrops...), ftsTriggers...),
		`INSERT INTO context_entries_fts (context_entries_fts) VALUES ('rebuild')`)
	return s.ddl(ctx, "restore full-text triggers", stmts)
}

// ddl runs statements in one write transaction.
func (s *Store) ddl(ctx context.Context, what string, stmts []string) error {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sqlite: %s: %w", what, err)
	}
	defer func() { _ = tx.Rollback() }()
	for _, stmt := range stmts {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("sqlite: %s: %w", what, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sqlite: %s: %w", what, err)
	}
	return nil
}
