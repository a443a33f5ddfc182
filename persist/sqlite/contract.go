package sqlite

import (
	"context"
	"fmt"

	"github.com/contextd/contextd/persist"
	"github.com/contextd/contextd/persist/sqlstore"
)

// The storage contract of package persist, checked at compile time.
var (
	_ persist.Store          = (*Store)(nil)
	_ persist.Tx             = (*tx)(nil)
	_ persist.NativeFullText = (*Store)(nil)
	_ persist.NativeVectors  = (*Store)(nil)
)

// Backend is the name this store registers under (STORAGE_BACKEND).
const Backend = "sqlite"

func init() { persist.Register(Backend, openConfig) }

// openConfig opens a store from a persist.OpenConfig: Path is the file,
// Options (when set) must be Options.
func openConfig(ctx context.Context, c persist.OpenConfig) (persist.Store, error) {
	o, ok := sqlstore.OptionsOf[Options](c.Options)
	if !ok {
		return nil, fmt.Errorf("sqlite: options are %T, want sqlite.Options", c.Options)
	}
	if c.Path != "" {
		o.Path = c.Path
	}
	if o.Path == "" {
		return nil, fmt.Errorf("sqlite: no database path (option Path)")
	}
	st, err := Open(ctx, o)
	if err != nil {
		return nil, err
	}
	return st, nil
}

// Native reports FTS5 and sqlite-vec: both are compiled into the driver.
func (s *Store) Native() persist.Native {
	return persist.Native{FullText: s, Vectors: s}
}

// FullTextInfo describes FTS5 with its bm25() ranking and highlight().
func (s *Store) FullTextInfo() persist.FullTextInfo {
	return persist.FullTextInfo{Engine: "sqlite fts5 (bm25)", Highlights: true}
}
