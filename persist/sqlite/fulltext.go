package sqlite

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/contextd/contextd/persist"
)

// This file gives full-text indexes and native full-text search what they
// need from SQLite: unrestricted entry reads for indexing, the change-log
// head, the ids matching a filter (the allowed set of metadata filters),
// a commit hook, and FTS5 search over the context_entries_fts table that
// migration 0002 keeps in every writing transaction.

// AfterCommit registers fn to run after every committed write transaction
// of this Store, in the writer's goroutine. Followers of the change log
// (the in-process indexes) apply new rows there. nil unregisters.
func (s *Store) AfterCommit(fn func(ctx context.Context)) {
	if fn == nil {
		s.afterCommit.Store(nil)
		return
	}
	s.afterCommit.Store(&fn)
}

// LastSeq returns the newest change-log seq (0 when the log is empty). In
// memory it stops at the newest committed seq, as Changes does.
func (s *Store) LastSeq(ctx context.Context) (int64, error) {
	if s.cfg.memory {
		return s.committed.Load(), nil
	}
	var seq int64
	if err := s.q.QueryRowContext(ctx, `SELECT coalesce(max(seq), 0) FROM change_log`).Scan(&seq); err != nil {
		return 0, fmt.Errorf("sqlite: read change-log head: %w", err)
	}
	return seq, nil
}

// FilterIDs returns the ids of the readable entries matching f, in id
// order: the allowed set when a filter (metadata) can only be evaluated
// by SQL.
func (s *Store) FilterIDs(ctx context.Context, acc persist.Access, f persist.Filter) ([]string, error) {
	b, err := s.reader.FilterIDsSQL(acc, f)
	if err != nil {
		return nil, err
	}
	return s.reader.IDs(ctx, b)
}

// FullTextSearch ranks the readable entries matching q with FTS5 bm25
// (score = -bm25, higher is better; ties by id DESC). A boolean query that
// FTS5 cannot parse is retried as the sanitized match query.
func (s *Store) FullTextSearch(ctx context.Context, acc persist.Access, q persist.FullTextQuery) (persist.FullTextResult, error) {
	if strings.IndexByte(q.Query, 0) >= 0 {
		// FTS5 reads NUL as the end of the query string.
		return persist.FullTextResult{}, ErrNULQuery
	}
	// Another process searching in-process may have dropped the triggers
	// that keep the table current.
	if err := s.ensureFullTextTriggers(ctx); err != nil {
		return persist.FullTextResult{}, err
	}
	expr := FTS5Expression(q.Query, q.Mode, q.Language)
	res, err := s.fts5(ctx, acc, q, expr)
	if err != nil && q.Mode == persist.FullTextBoolean && isFTS5SyntaxError(err) {
		expr = FTS5Expression(q.Query, persist.FullTextMatch, q.Language)
		res, err = s.fts5(ctx, acc, q, expr)
		res.Degraded = true
	}
	return res, err
}

func (s *Store) fts5(ctx context.Context, acc persist.Access, q persist.FullTextQuery, expr string) (persist.FullTextResult, error) {
	var res persist.FullTextResult
	if expr == "" || q.Limit <= 0 {
		res.Hits = []persist.FullTextHit{}
		return res, nil
	}
	b := newB()
	b.W("SELECT e.id, -bm25(context_entries_fts)")
	if q.Highlight {
		b.W(", highlight(context_entries_fts, 0, '<mark>', '</mark>')")
	} else {
		b.W(", ''")
	}
	b.W(" FROM context_entries_fts JOIN context_entries e ON e.rowid_int = context_entries_fts.rowid")
	b.W(" WHERE context_entries_fts MATCH ").Arg(expr).W(" AND ")
	if err := filter(b, acc, q.Filter); err != nil {
		return res, err
	}
	b.W(" ORDER BY bm25(context_entries_fts), e.id DESC LIMIT ").Arg(q.Limit)
	rows, err := s.q.QueryContext(ctx, b.String(), b.Args()...)
	if err != nil {
		return res, fmt.Errorf("sqlite: full-text search: %w", err)
	}
	defer rows.Close()
	res.Hits = []persist.FullTextHit{}
	for rows.Next() {
		var h persist.FullTextHit
		if err := rows.Scan(&h.ID, &h.Score, &h.Highlighted); err != nil {
			return res, fmt.Errorf("sqlite: full-text search: %w", err)
		}
		res.Hits = append(res.Hits, h)
	}
	if err := rows.Err(); err != nil {
		return res, fmt.Errorf("sqlite: full-text search: %w", err)
	}
	if q.Explain {
		if res.Plan, err = Dialect.Plan(ctx, s.reader.Q, b); err != nil {
			return res, err
		}
	}
	return res, nil
}

// ErrNULQuery rejects a full-text query holding U+0000 (the engine reports
// it to callers as a validation error before the store sees it).
var ErrNULQuery = errors.New("sqlite: full-text query contains an embedded NUL (U+0000) character")

// isFTS5SyntaxError reports an FTS5 query the grammar rejects (syntax
// errors, unknown column filters, unbalanced quotes or parentheses).
func isFTS5SyntaxError(err error) bool {
	if err == nil {
		return false
	}
	msg := err.Error()
	for _, s := range []string{"fts5:", "no such column", "unterminated string", "malformed MATCH", "unknown special query", "SQL logic error"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// fts5Quote quotes s as an FTS5 string (a phrase), doubling inner quotes.
func fts5Quote(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// FTS5Expression renders a query of the given mode as an FTS5 MATCH
// expression. It returns "" when nothing is left to search for
// (which means no rows). Boolean queries pass through verbatim.
func FTS5Expression(query, mode, language string) string {
	switch mode {
	case persist.FullTextPhrase:
		if strings.TrimSpace(query) == "" {
			return ""
		}
		return fts5Quote(query)
	case persist.FullTextBoolean:
		return query
	case persist.FullTextPrefix:
		terms := persist.PrefixTerms(query, language)
		parts := make([]string, len(terms))
		for i, t := range terms {
			parts[i] = fts5Quote(t.Text) + "*"
		}
		return strings.Join(parts, " ")
	default:
		terms := persist.MatchTerms(query, language)
		parts := make([]string, len(terms))
		for i, t := range terms {
			parts[i] = fts5Quote(t.Text)
		}
		return strings.Join(parts, " ")
	}
}

// fts5Tokenizer is the FTS5 tokenizer of an FTS_LANGUAGE: porter
// stemming for english, plain unicode61 (no stemming) for every other.
func fts5Tokenizer(language string) string {
	if language == "" || language == "english" {
		return "porter unicode61 remove_diacritics 2"
	}
	return "unicode61 remove_diacritics 2"
}

// EnsureFullTextLanguage makes the FTS5 table tokenize for language,
// rebuilding it (in one write transaction) when the language changed.
func (s *Store) EnsureFullTextLanguage(ctx context.Context, language string) error {
	want := fts5Tokenizer(language)
	var ddl string
	if err := s.w.QueryRowContext(ctx, `SELECT sql FROM sqlite_master WHERE name = 'context_entries_fts'`).Scan(&ddl); err != nil {
		return fmt.Errorf("sqlite: read full-text table: %w", err)
	}
	if strings.Contains(ddl, "'"+want+"'") {
		return s.ensureFullTextTriggers(ctx)
	}
	err := s.ddl(ctx, "rebuild full-text table", []string{
		`DROP TABLE context_entries_fts`,
		`CREATE VIRTUAL TABLE context_entries_fts USING fts5(text_content, content = 'context_entries', content_rowid = 'rowid_int', tokenize = '` + want + `')`,
		`INSERT INTO context_entries_fts (context_entries_fts) VALUES ('rebuild')`,
	})
	if err != nil {
		return err
	}
	return s.ensureFullTextTriggers(ctx)
}

// accessCols are entryCols without the text and summary: what an index's
// access catalog keeps (the metadata answers search_context's filters);
// the summary column is "*" when the entry has one (IndexDoc.Summarized).
func (dialect) AccessCols() string { return accessCols }

const accessCols = `e.id, e.thread_id, e.source, e.content_type, '' AS text_content, e.metadata,
	CASE WHEN e.summary IS NOT NULL AND e.summary <> '' THEN '*' END AS summary,
	e.content_hash, e.version, e.owner_id, e.visibility, e.created_at, e.updated_at`
