package sqlite

import (
	"context"
	"fmt"
	"strings"
)

// DocFreqs reports, for each word, how many entries the FTS5 index holds
// it in (the word quoted as an FTS5 string, so the index's own tokenizer
// and stemmer apply), and the number of entries: the collection statistics
// of the built-in reranker on the native backend. A word the tokenizer
// reduces to nothing counts as held by every entry.
func (s *Store) DocFreqs(ctx context.Context, words []string) ([]int, int, error) {
	var n int
	if err := s.q.QueryRowContext(ctx, "SELECT count(*) FROM context_entries").Scan(&n); err != nil {
		return nil, 0, fmt.Errorf("sqlite: count entries: %w", err)
	}
	out := make([]int, len(words))
	for i, w := range words {
		out[i] = n
		if strings.TrimSpace(w) == "" {
			continue
		}
		q := `"` + strings.ReplaceAll(w, `"`, `""`) + `"`
		var df int
		err := s.q.QueryRowContext(ctx, "SELECT count(*) FROM context_entries_fts WHERE context_entries_fts MATCH ?", q).Scan(&df)
		if err != nil {
			continue // a word FTS5 cannot take as a term keeps the neutral weight
		}
		out[i] = df
	}
	return out, n, nil
}
