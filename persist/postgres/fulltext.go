package postgres

import (
	"context"
	"errors"
	"regexp"
	"strings"

	"github.com/contextd/contextd/cerrors"
	"github.com/contextd/contextd/persist"
	"github.com/jackc/pgx/v5"
)

// Native full-text search of SEARCH_BACKEND=native on PostgreSQL:
// tsvector (migration 0002) ranked by ts_rank and highlighted by
// ts_headline, with FTS_LANGUAGE as the text search configuration.
//
// The ranking function was chosen on the Cranfield collection (1,400
// documents, 225 queries, the OR-of-words queries of `contextd eval`),
// nDCG@10 of the native full-text run, 2026-12-03:
//
//	ts_rank_cd(tsv, q)      0.240    ts_rank(tsv, q)      0.284
//	ts_rank_cd(tsv, q, 1)   0.277    ts_rank(tsv, q, 1)   0.323
//	ts_rank(tsv, q, 2)      0.192    ts_rank(tsv, q, 8)   0.201
//
// Cover density (ts_rank_cd) rewards words that occur close together,
// which OR queries of a whole question rarely have; normalization 1
// divides by 1 + log(document length), the closest of PostgreSQL's
// options to BM25's length normalization (neither has IDF).

var _ persist.NativeFullText = (*Store)(nil)

// FullTextInfo describes the engine.
func (s *Store) FullTextInfo() persist.FullTextInfo {
	return persist.FullTextInfo{Engine: "postgresql tsvector (ts_rank)", Highlights: true}
}

// configName is what a text search configuration name may look like; the
// name is also checked against pg_ts_config before it is used.
var configName = regexp.MustCompile(`^[a-z_]{1,63}$`)

// tsConfig maps FTS_LANGUAGE to a text search configuration: the 29
// languages of R-350 are PostgreSQL's own configurations (stemming and
// stop words); a language the server lacks falls back to "simple"
// (lower-casing only), as SQLite falls back to unicode61 without stemming.
func (s *Store) tsConfig(ctx context.Context, q querier, language string) (string, error) {
	if language == "" {
		language = "english"
	}
	if !configName.MatchString(language) {
		return "simple", nil
	}
	var ok bool
	if err := q.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_ts_config WHERE cfgname = $1)`, language).Scan(&ok); err != nil {
		return "", wrap("read text search configurations", err)
	}
	if !ok {
		return "simple", nil
	}
	return language, nil
}

// fullTextState returns the configuration the column is maintained with;
// ok is false when it is not maintained (never built, or dropped).
func fullTextState(ctx context.Context, q querier) (language, config string, ok bool, err error) {
	err = q.QueryRow(ctx, `SELECT language, config FROM fulltext_state WHERE id = 1`).Scan(&language, &config)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", "", false, nil
	}
	if err != nil {
		return "", "", false, wrap("read full-text state", err)
	}
	return language, config, true, nil
}

// EnsureFullTextLanguage makes the database maintain text_search_vector
// with the configuration of language, rebuilding the column when the
// language changed or its upkeep was dropped. It runs under the write
// lock, so no write slips between the rebuild and the trigger.
func (s *Store) EnsureFullTextLanguage(ctx context.Context, language string) error {
	if language == "" {
		language = "english"
	}
	lang, _, ok, err := fullTextState(ctx, s.q)
	if err != nil {
		return err
	}
	if ok && lang == language {
		return nil
	}
	return s.locked(ctx, "rebuild full-text index", func(tx pgx.Tx) error {
		lang, _, ok, err := fullTextState(ctx, tx)
		if err != nil || ok && lang == language {
			return err
		}
		cfg, err := s.tsConfig(ctx, tx, language)
		if err != nil {
			return err
		}
		for _, stmt := range []string{
			`CREATE OR REPLACE FUNCTION context_entries_tsv() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	NEW.text_search_vector := to_tsvector('` + cfg + `'::regconfig, NEW.text_content);
	RETURN NEW;
END $$`,
			`DROP TRIGGER IF EXISTS context_entries_tsv ON context_entries`,
			`CREATE TRIGGER context_entries_tsv BEFORE INSERT OR UPDATE OF text_content ON context_entries
				FOR EACH ROW EXECUTE FUNCTION context_entries_tsv()`,
			`UPDATE context_entries SET text_search_vector = to_tsvector('` + cfg + `'::regconfig, text_content)`,
		} {
			if _, err := tx.Exec(ctx, stmt); err != nil {
				return err
			}
		}
		_, err = tx.Exec(ctx, `INSERT INTO fulltext_state (id, language, config) VALUES (1, $1, $2)
			ON CONFLICT (id) DO UPDATE SET language = excluded.language, config = excluded.config`, language, cfg)
		return err
	})
}

// DropFullTextTriggers stops maintaining text_search_vector; the next
// EnsureFullTextLanguage rebuilds it.
func (s *Store) DropFullTextTriggers(ctx context.Context) error {
	return s.locked(ctx, "drop full-text trigger", func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `DROP TRIGGER IF EXISTS context_entries_tsv ON context_entries`); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `DELETE FROM fulltext_state`)
		return err
	})
}

// locked runs fn in a transaction holding the write lock.
func (s *Store) locked(ctx context.Context, what string, fn func(tx pgx.Tx) error) error {
	err := pgx.BeginFunc(ctx, s.pq, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, s.lockKey); err != nil {
			return err
		}
		return fn(tx)
	})
	return wrap(what, err)
}

// errNULQuery rejects a query PostgreSQL could not hold.
var errNULQuery = cerrors.Invalidf("full-text query contains an embedded NUL (U+0000) character")

// FullTextSearch ranks the readable entries matching q by ts_rank with
// log-length normalization (higher is better; ties by id DESC). A boolean query outside the grammar
// is run as the match query of its text (Degraded).
func (s *Store) FullTextSearch(ctx context.Context, acc persist.Access, q persist.FullTextQuery) (persist.FullTextResult, error) {
	res := persist.FullTextResult{Hits: []persist.FullTextHit{}}
	if strings.IndexByte(q.Query, 0) >= 0 {
		return res, errNULQuery
	}
	lang := q.Language
	if lang == "" {
		lang = "english"
	}
	// Another process serving in-process search may have dropped the
	// trigger, or switched the language: bring the column back first.
	if err := s.EnsureFullTextLanguage(ctx, lang); err != nil {
		return res, err
	}
	_, cfg, _, err := fullTextState(ctx, s.q)
	if err != nil {
		return res, err
	}
	tsq, err := TSQuery(q.Query, q.Mode, lang)
	if errors.Is(err, errBadBoolean) {
		tsq, _ = TSQuery(q.Query, persist.FullTextMatch, lang)
		res.Degraded = true
	}
	if strings.TrimSpace(tsq) == "" || q.Limit <= 0 {
		return res, nil
	}
	b := newB()
	b.W("SELECT e.id, ts_rank(e.text_search_vector, q, 1)::float8")
	if q.Highlight {
		b.W(", ts_headline('" + cfg + "'::regconfig, e.text_content, q, 'StartSel=<mark>, StopSel=</mark>, HighlightAll=true')")
	} else {
		b.W(", ''")
	}
	b.W(" FROM context_entries e, to_tsquery('"+cfg+"'::regconfig, ").Typed(tsq, "::text").W(") q")
	b.W(" WHERE e.text_search_vector @@ q AND ")
	if err := filter(b, acc, q.Filter); err != nil {
		return res, err
	}
	b.W(" ORDER BY 2 DESC, e.id DESC LIMIT ").Typed(int64(q.Limit), "::bigint")
	hits, err := asCaller(s, ctx, acc, func(r reader) ([]persist.FullTextHit, error) {
		rows, err := r.q.Query(ctx, b.String(), b.Args()...)
		if err != nil {
			return nil, wrap("full-text search", err)
		}
		hits := []persist.FullTextHit{}
		var h persist.FullTextHit
		_, err = pgx.ForEachRow(rows, []any{&h.ID, &h.Score, &h.Highlighted}, func() error {
			hits = append(hits, h)
			return nil
		})
		return hits, wrap("full-text search", err)
	})
	if err != nil {
		return res, err
	}
	res.Hits = hits
	if q.Explain {
		if res.Plan, err = Dialect.Plan(ctx, s.reader.Q, b); err != nil {
			return res, err
		}
	}
	return res, nil
}

// DocFreqs reports for each word how many entries hold it (normalized by
// the index's configuration) and the number of entries.
func (s *Store) DocFreqs(ctx context.Context, words []string) ([]int, int, error) {
	_, cfg, ok, err := fullTextState(ctx, s.q)
	if err != nil {
		return nil, 0, err
	}
	if !ok {
		cfg = "simple"
	}
	var n int
	if err := s.q.QueryRow(ctx, `SELECT count(*) FROM context_entries`).Scan(&n); err != nil {
		return nil, 0, wrap("document frequencies", err)
	}
	df := make([]int, len(words))
	for i, w := range words {
		if strings.IndexByte(w, 0) >= 0 || strings.TrimSpace(w) == "" {
			continue
		}
		if err := s.q.QueryRow(ctx, `SELECT count(*) FROM context_entries
			WHERE text_search_vector @@ plainto_tsquery('`+cfg+`'::regconfig, $1)`, w).Scan(&df[i]); err != nil {
			return nil, 0, wrap("document frequencies", err)
		}
	}
	return df, n, nil
}
